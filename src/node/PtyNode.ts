import { UsageError } from '../errors.js'
import { EMPTY_METADATA, forkCopy, makeNode, type Node, type NodeOptions } from './Node.js'

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
export interface PtyNode extends Node {
  readonly kind: 'pty'
  readonly persistent: true
  readonly command: string
  readonly args?: readonly string[]
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string>>
  readonly cols?: number
  readonly rows?: number
  readonly parser?: string
  readonly timeoutMs?: number
  readonly quietMs?: number
}

const OPTION_KEYS: ReadonlySet<string> = new Set([
  'metadata',
  'command',
  'args',
  'cwd',
  'env',
  'cols',
  'rows',
  'parser',
  'timeoutMs',
  'quietMs',
])

const typeOf = (u: unknown): string => (u === null ? 'null' : typeof u)
const show = (u: unknown): string => (typeof u === 'string' ? JSON.stringify(u) : typeOf(u))

const checkOptions = (api: string, id: string, options: PtyOptions): void => {
  const bad = (what: string): never => {
    throw new UsageError(api, `node "${id}": ${what}`)
  }
  if (typeof options !== 'object' || (options as unknown) === null) {
    bad(`options must be an object, got ${typeOf(options)}`)
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) bad(`unknown option "${key}"`)
  }
  const { command, args, cwd, env, cols, rows, parser, timeoutMs, quietMs } = options
  if (typeof command !== 'string' || command.trim() === '') {
    bad(`command must be a non-blank string, got ${show(command)}`)
  }
  if (args !== undefined) {
    if (!Array.isArray(args)) bad('args must be an array of strings')
    args.forEach((a, i) => {
      if (typeof a !== 'string') bad(`args[${i}] must be a string, got ${typeOf(a)}`)
    })
  }
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '')) {
    bad(`cwd must be a non-empty string, got ${show(cwd)}`)
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
  for (const [name, value] of [
    ['cols', cols],
    ['rows', rows],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1 || value > 10_000)) {
      bad(`${name} must be an integer from 1 to 10000, got ${String(value)}`)
    }
  }
  if (parser !== undefined && (typeof parser !== 'string' || parser === '')) {
    bad(`parser must be a parser name, got ${show(parser)}`)
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
  ) {
    bad(`timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`)
  }
  if (
    quietMs !== undefined &&
    (typeof quietMs !== 'number' || !Number.isFinite(quietMs) || quietMs < 0)
  ) {
    bad(`quietMs must be a non-negative number of milliseconds, got ${String(quietMs)}`)
  }
}

/**
 * A PTY node: `command` with `args` run in a pseudo-terminal of `cols` ×
 * `rows`, in `cwd` with `env` over the process's environment. Each step's
 * input is typed into it (with Enter); the answer is what the program printed
 * until it was ready again, read by `parser`. A pure description: the
 * interpreter spawns the program.
 *
 * @category pty nodes
 * @example
 * import { pty } from 'nerve'
 * import assert from 'assert'
 *
 * const sh = pty('sh', { command: 'bash', args: ['--norc'], env: { PS1: '$ ' }, cols: 100 })
 * assert.strictEqual(sh.kind, 'pty')
 * assert.strictEqual(sh.persistent, true)
 * assert.ok(Object.isFrozen(sh))
 * assert.throws(() => pty('sh', { command: '' }), /command must be a non-blank string/)
 */
export const pty = (id: string, options: PtyOptions): PtyNode => {
  checkOptions('pty', id, options)
  const { metadata, ...config } = options
  return makeNode<PtyNode>(
    { id, kind: 'pty', persistent: true, metadata: metadata ?? EMPTY_METADATA, ...config },
    'pty',
  )
}

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
 * import { forkPty, pty } from 'nerve'
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
