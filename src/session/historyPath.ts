import { join, resolve } from 'node:path'
import { requireName } from '../node/name.js'

/**
 * Where a node's history lives: `root` (default `process.cwd()`), the
 * server's, the session's and the node's names.
 *
 * @category history
 */
export interface HistoryLocation {
  readonly root?: string
  readonly server: string
  readonly session: string
  readonly node: string
}

/**
 * The path of a node's history file,
 * `<root>/.nerve/history/<server>/<session>/<node>.jsonl`. Each name must
 * follow the name rule (`validateName`), so none can climb out of the root
 * (`..`, `/`, `\` are not names); a bad one throws a `UsageError`.
 *
 * @category history
 * @example
 * import { historyPath } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const path = historyPath({ root: '/srv', server: 'local', session: 'dev', node: 'shell' })
 * assert.strictEqual(path, '/srv/.nerve/history/local/dev/shell.jsonl')
 * assert.throws(() => historyPath({ root: '/srv', server: 'local', session: '..', node: 'shell' }))
 */
export const historyPath = (location: HistoryLocation): string =>
  historyPathFor('historyPath', location)

/** {@link historyPath}, naming `api` in its errors. @internal */
export const historyPathFor = (api: string, location: HistoryLocation): string => {
  const server = requireName(api, 'server', location.server)
  const session = requireName(api, 'session', location.session)
  const node = requireName(api, 'node', location.node)
  return join(
    resolve(location.root ?? process.cwd()),
    '.nerve',
    'history',
    server,
    session,
    `${node}.jsonl`,
  )
}
