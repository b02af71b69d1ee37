import type * as t from 'io-ts'
import { nodeKind } from './NodeKind.js'
import { EMPTY_METADATA, forkCopy, makeNode, type Node, type NodeOptions } from './Node.js'
import {
  bool,
  decodeOptions,
  env,
  metadata,
  millis,
  nonBlank,
  nonEmpty,
  nonNegativeInteger,
  optionsCodec,
} from './options.js'

/**
 * The configuration of a bash node, as given to {@link bash}.
 *
 * @category bash nodes
 */
export interface BashOptions extends NodeOptions {
  /**
   * The command line, run by `bash -c`. Without it, the command is the
   * step's input (which must then be a string).
   */
  readonly command?: string
  /** The working directory. Default: the current one of the process. */
  readonly cwd?: string
  /** Variables set for the command, over the environment of the process. */
  readonly env?: Readonly<Record<string, string>>
  /** Milliseconds before the command's process group is terminated (the result says `timedOut`). */
  readonly timeoutMs?: number
  /** When `true`, a non-zero exit is a result, not a failure of the step. Default: `false`. */
  readonly allowFailure?: boolean
  /** Bytes of stdout, and of stderr, kept in the result; the rest is dropped and marked. Default: 10 MiB. */
  readonly maxOutputBytes?: number
}

/**
 * A one-shot shell command: each run spawns `bash -c command` afresh (no
 * terminal, no state kept between runs). Build one with {@link bash}; the
 * `bash` interpreter runs it.
 *
 * @category bash nodes
 */
export interface BashNode extends Node {
  readonly kind: 'bash'
  readonly persistent: false
  readonly command?: string
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
  readonly allowFailure?: boolean
  readonly maxOutputBytes?: number
}

/** Any name without `=` or NUL: what `env` accepts for a process. */
const isEnvName = (k: string): boolean => k !== '' && !k.includes('=') && !k.includes('\0')

/**
 * The io-ts codec of a bash node's options: what {@link bash} checks and a
 * graph file's `bash` node is decoded with. Unknown keys fail.
 *
 * @category bash nodes
 */
export const BashOptionsCodec: t.Type<BashOptions> = optionsCodec<BashOptions>(
  'BashOptions',
  {},
  {
    metadata,
    command: nonBlank,
    cwd: nonEmpty,
    env: env(isEnvName),
    timeoutMs: millis(false),
    allowFailure: bool,
    maxOutputBytes: nonNegativeInteger,
  },
)

/**
 * A bash node: a one-shot command run with `bash -c` in its own process
 * group, with an optional working directory, environment, timeout and output
 * cap. The command is `command`, or else the step's input. Its result is
 * `{ stdout, stderr, exitCode, signal, interrupted, timedOut, durationMs, … }`;
 * a non-zero exit fails the step unless `allowFailure` is set.
 *
 * @category bash nodes
 * @example
 * import { bash } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const ls = bash('ls', { command: 'ls -1', cwd: '/tmp', timeoutMs: 5000 })
 * assert.strictEqual(ls.kind, 'bash')
 * assert.strictEqual(ls.persistent, false)
 * assert.ok(Object.isFrozen(ls))
 * assert.throws(() => bash('ls', { timeoutMs: -1 }), /timeoutMs must be a positive number/)
 */
export const bash = (id: string, options: BashOptions = {}): BashNode => {
  const { metadata: meta, ...config } = decodeOptions('bash', id, BashOptionsCodec, options)
  return makeNode<BashNode>(
    { id, kind: 'bash', persistent: false, metadata: meta ?? EMPTY_METADATA, ...config },
    'bash',
  )
}

/**
 * Whether a node is a bash node.
 *
 * @category guards
 */
export const isBashNode = (node: Node): node is BashNode => node.kind === 'bash' && !node.persistent

/**
 * A copy of a bash node under a new id, with the same configuration and
 * metadata `{ forked_from, fork_time }` added to its own. The time is given
 * (an ISO string), so the function stays pure; the `bash` interpreter's
 * `fork` stamps the current time.
 *
 * @category bash nodes
 * @example
 * import { bash } from 'nerve-agents'
 * import { forkBash } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const build = bash('build', { command: 'make', cwd: '/src' })
 * const copy = pipe(build, forkBash('build-2', '2025-01-01T00:00:00.000Z'))
 * assert.strictEqual(copy.command, 'make')
 * assert.deepStrictEqual(copy.metadata, { forked_from: 'build', fork_time: '2025-01-01T00:00:00.000Z' })
 */
export const forkBash =
  (id: string, forkTime: string) =>
  (node: BashNode): BashNode =>
    forkCopy<BashNode>('forkBash', 'bash', id, forkTime, node)

/**
 * The `bash` node kind, its data side: its options codec and builder, for graph files,
 * `CREATE_NODE` and stores.
 *
 * @category model
 */
export const bashNodeKind = nodeKind({
  kind: 'bash',
  summary: 'one shell command per execute: its stdout, stderr and exit code',
  options: BashOptionsCodec,
  build: (id, options) => bash(id, options),

  aliases: ['shell', 'sh'],
})
