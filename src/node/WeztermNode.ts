import type * as t from 'io-ts'
import { nodeKind } from './NodeKind.js'
import { forkCopy, type Node, type NodeOptions } from './Node.js'
import {
  attachOrSpawn,
  env,
  integer,
  isVariableName,
  nonBlank,
  optionsCodec,
  persistentNode,
  terminalFields,
} from './options.js'

/**
 * The configuration of a WezTerm node, as given to {@link wezterm}.
 *
 * @category wezterm nodes
 */
export interface WeztermOptions extends NodeOptions {
  /** Attach to this existing pane instead of spawning one; stop leaves it running. */
  readonly paneId?: number
  /** The program to spawn in a new tab (`wezterm cli spawn`). Default: `bash --norc --noprofile`. */
  readonly command?: string
  /** Its arguments. Default: none. */
  readonly args?: readonly string[]
  /** The working directory of the spawned program (`--cwd`). */
  readonly cwd?: string
  /** Variables set for the spawned program (run through `env`). */
  readonly env?: Readonly<Record<string, string>>
  /** The `wezterm` executable. Default: `'wezterm'` on the PATH. */
  readonly wezterm?: string
  /** Lines of scrollback read above the screen. Default: 10 000. */
  readonly scrollbackLines?: number
  /** The name of the parser that reads the answers. Default: `'none'`. */
  readonly parser?: string
  /** Milliseconds an execute (and the start) may wait for readiness. Default: 30 000. */
  readonly timeoutMs?: number
  /** Milliseconds readiness must hold with no change on the screen. Default: 5 for `none`, else 30. */
  readonly quietMs?: number
}

/**
 * A program in a WezTerm pane, driven through `wezterm cli`: spawned in a new
 * tab, or an existing pane attached to. Persistent. Build one with
 * {@link wezterm}; the interpreter made by `weztermInterpreter()` runs it.
 *
 * @category wezterm nodes
 */
export interface WeztermNode extends Node, Omit<WeztermOptions, keyof NodeOptions> {
  readonly kind: 'wezterm'
  readonly persistent: true
}

/** The fields of a WezTerm node's options, less `paneId` and `command` (a Claude node has them too). @internal */
export const weztermFields = {
  ...terminalFields,
  cwd: nonBlank,
  env: env(isVariableName),
  wezterm: nonBlank,
  scrollbackLines: integer(0, 10_000_000),
}

/**
 * The io-ts codec of a WezTerm node's options: what {@link wezterm} checks
 * and a graph file's `wezterm` node is decoded with. Unknown keys fail.
 *
 * @category wezterm nodes
 */
export const WeztermOptionsCodec: t.Type<WeztermOptions> = optionsCodec<WeztermOptions>(
  'WeztermOptions',
  {},
  { ...weztermFields, paneId: integer(0, Number.MAX_SAFE_INTEGER), command: nonBlank },
  [attachOrSpawn],
)

/**
 * A WezTerm node: with `paneId`, that existing pane; otherwise `command`
 * with `args` spawned in a new tab (`wezterm cli spawn`). Each step's input is
 * typed into the pane (`send-text --no-paste`) with Enter; the answer is the
 * pane's text after it (`get-text`), read by `parser`. A pure description:
 * the interpreter runs `wezterm cli`.
 *
 * @category wezterm nodes
 * @example
 * import { wezterm } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const sh = wezterm('sh', { command: 'bash', cwd: '/tmp', wezterm: '/opt/wezterm/bin/wezterm' })
 * assert.strictEqual(sh.kind, 'wezterm')
 * assert.strictEqual(wezterm('mine', { paneId: 3 }).paneId, 3)
 * assert.throws(() => wezterm('x', { paneId: -1 }), /paneId must be an integer/)
 */
export const wezterm = (id: string, options: WeztermOptions = {}): WeztermNode =>
  persistentNode<WeztermNode, WeztermOptions>('wezterm', WeztermOptionsCodec)(id, options)

/**
 * Whether a node is a WezTerm node.
 *
 * @category guards
 */
export const isWeztermNode = (node: Node): node is WeztermNode => node.kind === 'wezterm'

/**
 * A copy of a WezTerm node under a new id, with metadata `{ forked_from,
 * fork_time }`; the copy spawns its own pane (an attached pane id is
 * dropped: one pane is not driven by two nodes). The time is given, so the
 * function stays pure.
 *
 * @category wezterm nodes
 * @example
 * import { wezterm } from 'nerve-agents'
 * import { forkWezterm } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const copy = forkWezterm('sh-2', '2025-01-01T00:00:00.000Z')(wezterm('sh', { command: 'zsh' }))
 * assert.strictEqual(copy.command, 'zsh')
 * assert.strictEqual(copy.metadata['forked_from'], 'sh')
 */
export const forkWezterm =
  (id: string, forkTime: string) =>
  (node: WeztermNode): WeztermNode =>
    forkCopy<WeztermNode>('forkWezterm', 'wezterm', id, forkTime, node, ['paneId'])

/**
 * The `wezterm` node kind, its data side: its options codec and builder, for graph files,
 * `CREATE_NODE` and stores.
 *
 * @category model
 */
export const weztermNodeKind = nodeKind({
  kind: 'wezterm',
  summary: 'a program in a WezTerm pane (needs WezTerm running)',
  options: WeztermOptionsCodec,
  build: (id, options) => wezterm(id, options),
  persistent: true,
})
