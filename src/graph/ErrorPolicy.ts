import { UsageError } from '../errors.js'
import { isNode, type Node } from '../node/Node.js'

/**
 * The default: the step's failure fails the run (its dependents do not run).
 *
 * @category error policies
 */
export interface FailPolicy {
  readonly _tag: 'fail'
}

/**
 * The step's failure is replaced by `value`, which becomes its result.
 *
 * @category error policies
 */
export interface SkipPolicy {
  readonly _tag: 'skip'
  readonly value: unknown
}

/**
 * The step's failure is replaced by running `node` on the same input and
 * upstream; its result (or failure) becomes the step's.
 *
 * @category error policies
 */
export interface FallbackPolicy {
  readonly _tag: 'fallback'
  readonly node: Node
}

/**
 * Up to `count` more attempts after the first, waiting
 * {@link retryDelay} before each; when all fail, `then` decides.
 *
 * @category error policies
 */
export interface RetryPolicy {
  readonly _tag: 'retry'
  /** Retries after the first attempt: a step runs at most `count + 1` times. */
  readonly count: number
  /** The wait before the first retry, in ms. */
  readonly delayMs: number
  /** Each wait is the previous one times `backoff` (≥ 1; 1 keeps it constant). */
  readonly backoff: number
  /** No wait is longer than this, in ms. */
  readonly maxDelayMs?: number
  /** Each wait is shortened by up to this fraction, at random (0 to 1). */
  readonly jitter: number
  /** What to do when the last retry fails. */
  readonly then: FailPolicy | SkipPolicy | FallbackPolicy
}

/**
 * What the runtime does when an attempt of a step fails (or times out).
 *
 * @category error policies
 */
export type ErrorPolicy = FailPolicy | RetryPolicy | SkipPolicy | FallbackPolicy

/**
 * What a policy does once its own node's attempts have failed: a retry's
 * `then`, or the policy itself. The one place that knows a retry wraps the
 * final policy.
 *
 * @category error policies
 * @example
 * import { afterAttempts, retry, skip } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(afterAttempts(retry({ count: 2, then: skip(0) })), skip(0))
 * assert.deepStrictEqual(afterAttempts(skip(0)), skip(0))
 */
export const afterAttempts = (policy: ErrorPolicy): FailPolicy | SkipPolicy | FallbackPolicy =>
  policy._tag === 'retry' ? policy.then : policy

/**
 * How many times a step runs its own node at most under a policy:
 * `count + 1` for a retry, 1 otherwise (a fallback node's run is not counted).
 *
 * @category error policies
 * @example
 * import { fallback, fn, maxAttempts, retry } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.strictEqual(maxAttempts(retry({ count: 2 })), 3)
 * assert.strictEqual(maxAttempts(fallback(fn('spare', () => 0))), 1)
 */
export const maxAttempts = (policy: ErrorPolicy): number =>
  policy._tag === 'retry' ? policy.count + 1 : 1

/**
 * The node a policy falls back to, directly or after its retries;
 * `undefined` when it has none.
 *
 * @category error policies
 * @example
 * import { fallback, fallbackNode, fn, retry, skip } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const spare = fn('spare', () => 0)
 * assert.strictEqual(fallbackNode(retry({ count: 1, then: fallback(spare) })), spare)
 * assert.strictEqual(fallbackNode(skip(null)), undefined)
 */
export const fallbackNode = (policy: ErrorPolicy): Node | undefined => {
  const then = afterAttempts(policy)
  return then._tag === 'fallback' ? then.node : undefined
}

/**
 * The policy with its fallback node (direct or after retries) replaced by
 * `f(node)`; the policy itself when there is none or `f` returns the same
 * node. Data-last, for rewriting a graph's nodes.
 *
 * @category error policies
 * @example
 * import { fallback, fallbackNode, fn, mapFallbackNode, retry, skip } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const spare = fn('spare', () => 0)
 * const other = fn('other', () => 1)
 * const p = retry({ count: 1, then: fallback(spare) })
 * assert.strictEqual(fallbackNode(mapFallbackNode(() => other)(p)), other)
 * const s = skip(0)
 * assert.strictEqual(mapFallbackNode(() => other)(s), s)
 */
export const mapFallbackNode =
  (f: (node: Node) => Node) =>
  <P extends ErrorPolicy>(policy: P): P => {
    const node = fallbackNode(policy)
    if (node === undefined) return policy
    const mapped = f(node)
    if (mapped === node) return policy
    const then = fallback(mapped)
    return (policy._tag === 'retry' ? Object.freeze({ ...policy, then }) : then) as P
  }

/**
 * The fail policy (the default of every step).
 *
 * @category error policies
 */
export const fail: FailPolicy = Object.freeze({ _tag: 'fail' })

/**
 * The skip policy: on failure, the step's result is `value`.
 *
 * @category error policies
 * @example
 * import { skip } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(skip(null), { _tag: 'skip', value: null })
 */
export const skip = (value: unknown): SkipPolicy => Object.freeze({ _tag: 'skip', value })

/**
 * The fallback policy: on failure, run `node` instead.
 *
 * @category error policies
 */
export const fallback = (node: Node): FallbackPolicy => {
  if (!isNode(node)) throw new UsageError('fallback', `node must be a Node, got ${String(node)}`)
  return Object.freeze({ _tag: 'fallback', node })
}

/**
 * Options of {@link retry}. Defaults: no delay, `backoff` 1, no maximum,
 * no jitter, then fail.
 *
 * @category error policies
 */
export interface RetryOptions {
  readonly count: number
  readonly delayMs?: number | undefined
  readonly backoff?: number | undefined
  readonly maxDelayMs?: number | undefined
  readonly jitter?: number | undefined
  readonly then?: FailPolicy | SkipPolicy | FallbackPolicy | undefined
}

/** One thing wrong with a policy: the field (`'count'`, `'then.node'`) and why. @internal */
export interface PolicyProblem {
  readonly field: string
  readonly reason: string
}

const show = (u: unknown): string => (typeof u === 'string' ? JSON.stringify(u) : String(u))

const nonNegative = (field: string, u: unknown, out: PolicyProblem[]): void => {
  if (typeof u !== 'number' || !Number.isFinite(u) || u < 0) {
    out.push({ field, reason: `must be a finite number ≥ 0, got ${show(u)}` })
  }
}

/**
 * Every problem of a policy value (built by hand or decoded), for
 * {@link retry} to throw and for `validate` to report.
 *
 * @internal
 */
export const policyProblems = (policy: unknown, prefix = ''): readonly PolicyProblem[] => {
  const out: PolicyProblem[] = []
  if (typeof policy !== 'object' || policy === null) {
    return [{ field: prefix === '' ? 'policy' : prefix.slice(0, -1), reason: 'must be a policy' }]
  }
  const p = policy as Record<string, unknown>
  switch (p._tag) {
    case 'fail':
    case 'skip':
      break
    case 'fallback':
      if (!isNode(p.node)) out.push({ field: `${prefix}node`, reason: 'must be a Node' })
      break
    case 'retry': {
      if (typeof p.count !== 'number' || !Number.isSafeInteger(p.count) || p.count < 0) {
        out.push({
          field: `${prefix}count`,
          reason: `must be an integer ≥ 0, got ${show(p.count)}`,
        })
      }
      nonNegative(`${prefix}delayMs`, p.delayMs, out)
      if (typeof p.backoff !== 'number' || !Number.isFinite(p.backoff) || p.backoff < 1) {
        out.push({
          field: `${prefix}backoff`,
          reason: `must be a finite number ≥ 1, got ${show(p.backoff)}`,
        })
      }
      if (p.maxDelayMs !== undefined) nonNegative(`${prefix}maxDelayMs`, p.maxDelayMs, out)
      if (typeof p.jitter !== 'number' || !(p.jitter >= 0 && p.jitter <= 1)) {
        out.push({
          field: `${prefix}jitter`,
          reason: `must be between 0 and 1, got ${show(p.jitter)}`,
        })
      }
      const then = p.then as { _tag?: unknown } | null | undefined
      if (typeof then !== 'object' || then === null || then._tag === 'retry') {
        out.push({ field: `${prefix}then`, reason: 'must be a fail, skip or fallback policy' })
      } else {
        out.push(...policyProblems(then, `${prefix}then.`))
      }
      break
    }
    default:
      out.push({ field: `${prefix}_tag`, reason: `is not a policy: ${show(p._tag)}` })
  }
  return out
}

/**
 * The retry policy. Invalid options (a negative or fractional `count`, a
 * negative or NaN delay, `backoff` below 1, `jitter` outside 0..1, a retry as
 * `then`) are a {@link UsageError} naming the field.
 *
 * @category error policies
 * @example
 * import { retry, skip } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const p = retry({ count: 3, delayMs: 100, backoff: 2, then: skip(null) })
 * assert.strictEqual(p.count, 3)
 * assert.throws(() => retry({ count: 1, jitter: 2 }), /options\.jitter must be between 0 and 1/)
 */
export const retry = (options: RetryOptions): RetryPolicy => {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new UsageError('retry', 'expects an options object with at least a count')
  }
  const policy: RetryPolicy = {
    _tag: 'retry',
    count: options.count,
    delayMs: options.delayMs ?? 0,
    backoff: options.backoff ?? 1,
    ...(options.maxDelayMs !== undefined && { maxDelayMs: options.maxDelayMs }),
    jitter: options.jitter ?? 0,
    then: options.then ?? fail,
  }
  const problems = policyProblems(policy)
  if (problems.length > 0) {
    throw new UsageError('retry', problems.map((p) => `options.${p.field} ${p.reason}`).join('; '))
  }
  return Object.freeze(policy)
}

/**
 * How long to wait before retry number `attempt` (1 for the first retry):
 * `delayMs · backoff^(attempt − 1)`, capped at `maxDelayMs`, then shortened
 * by `jitter · random01` of itself. The random number in [0, 1) is passed in,
 * so the runtime and the tests compute the same waits.
 *
 * @category error policies
 * @example
 * import { retry, retryDelay } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const p = retry({ count: 5, delayMs: 100, backoff: 2, maxDelayMs: 300, jitter: 0.5 })
 * assert.deepStrictEqual([1, 2, 3].map((n) => retryDelay(p, n, 0)), [100, 200, 300])
 * assert.strictEqual(retryDelay(p, 1, 0.5), 75)
 */
export const retryDelay = (policy: RetryPolicy, attempt: number, random01: number): number => {
  if (!Number.isSafeInteger(attempt) || attempt < 1) {
    throw new UsageError('retryDelay', `attempt must be an integer ≥ 1, got ${show(attempt)}`)
  }
  if (typeof random01 !== 'number' || !(random01 >= 0 && random01 < 1)) {
    throw new UsageError('retryDelay', `random01 must be in [0, 1), got ${show(random01)}`)
  }
  if (policy.delayMs === 0) return 0
  const base = policy.delayMs * Math.pow(policy.backoff, attempt - 1)
  const capped = Math.min(base, policy.maxDelayMs ?? Infinity)
  return capped * (1 - policy.jitter * random01)
}
