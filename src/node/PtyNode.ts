import type * as t from 'io-ts'
import { nodeKind } from './NodeKind.js'
import { forkCopy, type Node, type NodeOptions } from './Node.js'
import {
  env,
  integer,
  nonBlank,
  nonEmpty,
  optionsCodec,
  persistentNode,
  terminalFields,
} from './options.js'

/**
 * The configuration of a PTY node, as given to {@link pty}.
 *
 * @category pty nodes
 */
export interface PtyOptions extends NodeOptions {
  /** The program to run in the terminal, e.g. `'bash'` or `'python3'`. */
  readonly command: string
  /** Its arguments. Default: none. */
  readonly args?: readonly string[]
  /** The working directory. Default: the current one of the process. */
  readonly cwd?: string
  /** Variables set for the program, over the environment of the process. */
  readonly env?: Readonly<Record<string, string>>
  /** Terminal width in columns. Default: 120. */
  readonly cols?: number
  /** Terminal height in rows. Default: 40. */
  readonly rows?: number
  /** The name of the parser that reads the answers. Default: `'none'`. */
  readonly parser?: string
  /** Milliseconds an execute (and the start) may wait for the program to be ready. Default: 30 000. */
  readonly timeoutMs?: number
  /**
   * Milliseconds readiness must hold with no new output. Default: 5 for the
   * `none` parser, else 30. A program back at the very prompt the input was
   * typed at needs only one idle turn of the event loop.
   */
  readonly quietMs?: number
}

/**
 * A program driven through a pseudo-terminal (node-pty): a shell, a REPL.
 * Persistent: it lives between executes. Build one with {@link pty}; the
 * interpreter made by `ptyInterpreter()` runs it.
 *
 * @category pty nodes
 */
export interface PtyNode extends Node, Omit<PtyOptions, keyof NodeOptions> {
  readonly kind: 'pty'
  readonly persistent: true
}

/** Any name without `=` or NUL: what `env` accepts for a process. */
const isEnvName = (k: string): boolean => k !== '' && !k.includes('=') && !k.includes('\0')

/**
 * The io-ts codec of a PTY node's options: what {@link pty} checks and a
 * graph file's `pty` node is decoded with. `command` is required; unknown
 * keys fail.
 *
 * @category pty nodes
 */
export const PtyOptionsCodec: t.Type<PtyOptions> = optionsCodec<PtyOptions>(
  'PtyOptions',
  { command: nonBlank },
  {
    ...terminalFields,
    cwd: nonEmpty,
    env: env(isEnvName),
    cols: integer(1, 10_000),
    rows: integer(1, 10_000),
  },
)

/**
 * A PTY node: `command` with `args` run in a pseudo-terminal of `cols` ×
 * `rows`, in `cwd` with `env` over the process's environment. Each step's
 * input is typed into it (with Enter); the answer is what the program printed
 * until it was ready again, read by `parser`. A pure description: the
 * interpreter spawns the program.
 *
 * @category pty nodes
 * @example
 * import { pty } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const sh = pty('sh', { command: 'bash', args: ['--norc'], env: { PS1: '$ ' }, cols: 100 })
 * assert.strictEqual(sh.kind, 'pty')
 * assert.strictEqual(sh.persistent, true)
 * assert.ok(Object.isFrozen(sh))
 * assert.throws(() => pty('sh', { command: '' }), /command must be a non-blank string/)
 */
export const pty = (id: string, options: PtyOptions): PtyNode =>
  persistentNode<PtyNode, PtyOptions>('pty', PtyOptionsCodec)(id, options)

/**
 * Whether a node is a PTY node.
 *
 * @category guards
 */
export const isPtyNode = (node: Node): node is PtyNode => node.kind === 'pty' && node.persistent

/**
 * A copy of a PTY node under a new id: the same command, cwd, env and
 * settings, with metadata `{ forked_from, fork_time }` added to its own. The
 * time is given (an ISO string), so the function stays pure; the interpreter's
 * `fork` stamps the current time and spawns the copy with a fresh buffer.
 *
 * @category pty nodes
 * @example
 * import { pty } from 'nerve-agents'
 * import { forkPty } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const sh = pty('sh', { command: 'bash', cwd: '/tmp' })
 * const copy = pipe(sh, forkPty('sh-2', '2025-01-01T00:00:00.000Z'))
 * assert.strictEqual(copy.cwd, '/tmp')
 * assert.deepStrictEqual(copy.metadata, { forked_from: 'sh', fork_time: '2025-01-01T00:00:00.000Z' })
 */
export const forkPty =
  (id: string, forkTime: string) =>
  (node: PtyNode): PtyNode =>
    forkCopy<PtyNode>('forkPty', 'pty', id, forkTime, node)

/**
 * The `pty` node kind, its data side: its options codec and builder, for graph files,
 * `CREATE_NODE` and stores.
 *
 * @category model
 */
export const ptyNodeKind = nodeKind({
  kind: 'pty',
  summary: 'a program in a pseudo-terminal Nerve owns (command=PROGRAM); needs nothing else',
  options: PtyOptionsCodec,
  build: (id, options) => pty(id, options),
  persistent: true,
  aliases: ['terminal'],
})
