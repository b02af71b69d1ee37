import { UsageError } from '../errors.js'
import { EMPTY_METADATA, forkCopy, makeNode, type Node, type NodeOptions } from './Node.js'

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

const OPTION_KEYS: ReadonlySet<string> = new Set([
  'metadata',
  'command',
  'cwd',
  'env',
  'timeoutMs',
  'allowFailure',
  'maxOutputBytes',
])

const typeOf = (u: unknown): string => (u === null ? 'null' : typeof u)

const checkOptions = (api: string, id: string, options: BashOptions): void => {
  const bad = (what: string): never => {
    throw new UsageError(api, `node "${id}": ${what}`)
  }
  if (typeof options !== 'object' || (options as unknown) === null) {
    bad(`options must be an object, got ${typeOf(options)}`)
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) bad(`unknown option "${key}"`)
  }
  const { command, cwd, env, timeoutMs, allowFailure, maxOutputBytes } = options
  if (command !== undefined && (typeof command !== 'string' || command.trim() === '')) {
    bad(
      `command must be a non-blank string, got ${typeof command === 'string' ? JSON.stringify(command) : typeOf(command)}`,
    )
  }
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '')) {
    bad(
      `cwd must be a non-empty string, got ${typeof cwd === 'string' ? JSON.stringify(cwd) : typeOf(cwd)}`,
    )
  }
  if (env !== undefined) {
    if (typeof env !== 'object' || (env as unknown) === null) bad('env must be an object')
    for (const [name, value] of Object.entries(env)) {
      if (name === '' || name.includes('=') || name.includes('\0')) {
        bad(`env: ${JSON.stringify(name)} is not a variable name`)
      }
      if (typeof value !== 'string') bad(`env.${name} must be a string, got ${typeOf(value)}`)
    }
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
  ) {
    bad(`timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`)
  }
  if (allowFailure !== undefined && typeof allowFailure !== 'boolean') {
    bad(`allowFailure must be a boolean, got ${typeOf(allowFailure)}`)
  }
  if (
    maxOutputBytes !== undefined &&
    (!Number.isSafeInteger(maxOutputBytes) || maxOutputBytes < 0)
  ) {
    bad(`maxOutputBytes must be a non-negative integer, got ${String(maxOutputBytes)}`)
  }
}

/**
 * A bash node: a one-shot command run with `bash -c` in its own process
 * group, with an optional working directory, environment, timeout and output
 * cap. The command is `command`, or else the step's input. Its result is
 * `{ stdout, stderr, exitCode, signal, interrupted, timedOut, durationMs, … }`;
 * a non-zero exit fails the step unless `allowFailure` is set.
 *
 * @category bash nodes
 * @example
 * import { bash } from 'nerve'
 * import assert from 'assert'
 *
 * const ls = bash('ls', { command: 'ls -1', cwd: '/tmp', timeoutMs: 5000 })
 * assert.strictEqual(ls.kind, 'bash')
 * assert.strictEqual(ls.persistent, false)
 * assert.ok(Object.isFrozen(ls))
 * assert.throws(() => bash('ls', { timeoutMs: -1 }), /timeoutMs must be a positive number/)
 */
export const bash = (id: string, options: BashOptions = {}): BashNode => {
  checkOptions('bash', id, options)
  const { metadata, ...config } = options
  return makeNode<BashNode>(
    { id, kind: 'bash', persistent: false, metadata: metadata ?? EMPTY_METADATA, ...config },
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
 * import { bash, forkBash } from 'nerve'
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
