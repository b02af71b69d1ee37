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
  pattern,
  persistentNode,
  terminalFields,
} from './options.js'

/**
 * The configuration of a tmux node, as given to {@link tmux}.
 *
 * @category tmux nodes
 */
export interface TmuxOptions extends NodeOptions {
  /** Attach to this existing pane (`%3`) instead of spawning one; stop leaves it running. */
  readonly paneId?: string
  /** The program to spawn in a new session. Default: `bash --norc --noprofile`. Not with `paneId`. */
  readonly command?: string
  /** Its arguments. Default: none. */
  readonly args?: readonly string[]
  /** The working directory of the spawned program. */
  readonly cwd?: string
  /** Variables set for the spawned program (tmux `new-session -e`). */
  readonly env?: Readonly<Record<string, string>>
  /** The tmux server's socket name (`tmux -L`). Default: `nerve`, a server of Nerve's own. */
  readonly socket?: string
  /** The tmux server's socket path (`tmux -S`); wins over `socket`. */
  readonly socketPath?: string
  /** Width of a spawned session in columns. Default: 200. */
  readonly cols?: number
  /** Height of a spawned session in rows. Default: 50. */
  readonly rows?: number
  /** The name of the parser that reads the answers. Default: `'none'`. */
  readonly parser?: string
  /** Milliseconds an execute (and the start) may wait for readiness. Default: 30 000. */
  readonly timeoutMs?: number
  /** Milliseconds readiness must hold with no change on the screen. Default: 5 for `none`, else 30. */
  readonly quietMs?: number
}

/**
 * A program in a tmux pane: spawned in a session of its own, or an existing
 * pane attached to. Persistent. Build one with {@link tmux}; the interpreter
 * made by `tmuxInterpreter()` runs it.
 *
 * @category tmux nodes
 */
export interface TmuxNode extends Node, Omit<TmuxOptions, keyof NodeOptions> {
  readonly kind: 'tmux'
  readonly persistent: true
}

/**
 * The io-ts codec of a tmux node's options: what {@link tmux} checks and a
 * graph file's `tmux` node is decoded with. Unknown keys fail.
 *
 * @category tmux nodes
 */
export const TmuxOptionsCodec: t.Type<TmuxOptions> = optionsCodec<TmuxOptions>(
  'TmuxOptions',
  {},
  {
    ...terminalFields,
    paneId: pattern('PaneId', /^%\d+$/, 'look like %3'),
    command: nonBlank,
    cwd: nonBlank,
    env: env(isVariableName),
    socket: pattern('SocketName', /^[\w.-]+$/, 'be a socket name (letters, digits, . _ -)'),
    socketPath: nonBlank,
    cols: integer(1, 10_000),
    rows: integer(1, 10_000),
  },
  [attachOrSpawn],
)

/**
 * A tmux node: with `paneId`, the existing pane of that id on the server of
 * `socket` / `socketPath`; otherwise `command` with `args` spawned in a new
 * detached session of `cols` × `rows` on that server (by default Nerve's own
 * server, `tmux -L nerve`, so a user's server is never touched). Each step's
 * input is typed into the pane with Enter; the answer is the pane's text
 * after it, read by `parser`. A pure description: the interpreter talks to tmux.
 *
 * @category tmux nodes
 * @example
 * import { tmux } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const sh = tmux('sh', { command: 'bash', args: ['--norc'], cols: 100 })
 * assert.strictEqual(sh.kind, 'tmux')
 * assert.strictEqual(sh.persistent, true)
 * const mine = tmux('mine', { paneId: '%3', socket: 'default' })
 * assert.strictEqual(mine.paneId, '%3')
 * assert.throws(() => tmux('x', { paneId: '3' }), /paneId must look like %3/)
 */
export const tmux = (id: string, options: TmuxOptions = {}): TmuxNode =>
  persistentNode<TmuxNode, TmuxOptions>('tmux', TmuxOptionsCodec)(id, options)

/**
 * Whether a node is a tmux node.
 *
 * @category guards
 */
export const isTmuxNode = (node: Node): node is TmuxNode => node.kind === 'tmux'

/**
 * A copy of a tmux node under a new id, with metadata `{ forked_from,
 * fork_time }`. A spawning node's fork spawns the same program afresh; a
 * fork of an attached node spawns the default program on the same server
 * (one pane cannot be driven by two nodes). The time is given, so the
 * function stays pure.
 *
 * @category tmux nodes
 * @example
 * import { tmux } from 'nerve-agents'
 * import { forkTmux } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const copy = forkTmux('sh-2', '2025-01-01T00:00:00.000Z')(tmux('sh', { command: 'bash' }))
 * assert.strictEqual(copy.command, 'bash')
 * assert.strictEqual(copy.metadata['forked_from'], 'sh')
 */
export const forkTmux =
  (id: string, forkTime: string) =>
  (node: TmuxNode): TmuxNode =>
    forkCopy<TmuxNode>('forkTmux', 'tmux', id, forkTime, node, ['paneId'])

/**
 * The `tmux` node kind, its data side: its options codec and builder, for graph files,
 * `CREATE_NODE` and stores.
 *
 * @category model
 */
export const tmuxNodeKind = nodeKind({
  kind: 'tmux',
  summary: 'a program in a tmux session you can attach to and watch (needs tmux)',
  options: TmuxOptionsCodec,
  build: (id, options) => tmux(id, options),
  persistent: true,
})
