import { join, resolve } from 'node:path'
import { requireName } from '../node/name.js'
import { nerveHome } from './nerveHome.js'

/**
 * Where a node's history lives: a directory (`dir`; or `<root>/.nerve/history`
 * when `root` is given; else `history` in {@link nerveHome}), then the
 * server's, the session's and the node's names.
 *
 * @category history
 */
export interface HistoryLocation {
  /** The histories directory itself. Wins over `root`. */
  readonly dir?: string
  /** A project directory: histories go in its `.nerve/history`. Only when asked. */
  readonly root?: string
  readonly server: string
  readonly session: string
  readonly node: string
}

/**
 * The path of a node's history file, `<dir>/<server>/<session>/<node>.jsonl`
 * where `dir` is {@link historyDir} of the location. Each name must
 * follow the name rule (`validateName`), so none can climb out of the root
 * (`..`, `/`, `\` are not names); a bad one throws a `UsageError`.
 *
 * @category history
 * @example
 * import { historyPath } from 'nerve-agents/session'
 * import assert from 'assert'
 *
 * const path = historyPath({ dir: '/srv/history', server: 'local', session: 'dev', node: 'shell' })
 * assert.strictEqual(path, '/srv/history/local/dev/shell.jsonl')
 * const inProject = historyPath({ root: '/srv', server: 'local', session: 'dev', node: 'shell' })
 * assert.strictEqual(inProject, '/srv/.nerve/history/local/dev/shell.jsonl')
 * assert.throws(() => historyPath({ root: '/srv', server: 'local', session: '..', node: 'shell' }))
 */
export const historyPath = (location: HistoryLocation): string =>
  historyPathFor('historyPath', location)

/** {@link historyPath}, naming `api` in its errors. @internal */
export const historyPathFor = (api: string, location: HistoryLocation): string => {
  const server = requireName(api, 'server', location.server)
  const session = requireName(api, 'session', location.session)
  const node = requireName(api, 'node', location.node)
  return join(historyDir(location), server, session, `${node}.jsonl`)
}

/**
 * The directory histories of a location go in: `dir`, else
 * `<root>/.nerve/history`, else `history` in {@link nerveHome}.
 *
 * @category history
 * @example
 * import { historyDir } from 'nerve-agents/session'
 * import assert from 'assert'
 *
 * assert.strictEqual(historyDir({ root: '/srv' }), '/srv/.nerve/history')
 * assert.strictEqual(historyDir({}, { NERVE_HOME: '/home/me/.nerve' }), '/home/me/.nerve/history')
 */
export const historyDir = (
  location: { readonly dir?: string; readonly root?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): string =>
  location.dir !== undefined
    ? resolve(location.dir)
    : location.root !== undefined
      ? join(resolve(location.root), '.nerve', 'history')
      : join(nerveHome(env), 'history')
