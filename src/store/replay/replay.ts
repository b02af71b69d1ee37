import * as E from 'fp-ts/lib/Either.js'
import { taggedError, UsageError } from '../../errors.js'
import type { Graph } from '../../graph/index.js'
import { graphInterpreter } from '../../interpreters/index.js'
import type { Interpreter, InterpreterRegistry, Node, NodeContext } from '../../node/index.js'
import {
  run,
  systemClock,
  type Clock,
  type RunOptions,
  type RunResult,
} from '../../runtime/index.js'
import { endOrder } from './endOrder.js'
import { PASS_THROUGH } from './record.js'
import { jsonOf, type RecordedCall, type Recording } from './Recording.js'

/**
 * What differed at a step: its `kind`, its `node`, its `input`, that it was
 * never recorded (`missing`), or that a recorded step did not run (`unused`).
 *
 * @category replay
 */
export type Difference = 'kind' | 'node' | 'input' | 'missing' | 'unused'

/**
 * A replay stopped at the first step that did not match the recording:
 * `path` names the step (from the root graph), `what` what differed, with
 * the recorded and the actual value.
 *
 * @category replay
 */
export class ReplayDivergence extends taggedError('ReplayDivergence', 'failed')<{
  readonly path: readonly string[]
  readonly attempt: number
  readonly what: Difference
  readonly recorded: unknown
  readonly actual: unknown
}> {
  constructor(
    path: readonly string[],
    attempt: number,
    what: Difference,
    recorded: unknown,
    actual: unknown,
  ) {
    super(
      `replay diverged at step ${path.join('/')} (attempt ${attempt}): ${what} differs: ` +
        `recorded ${JSON.stringify(recorded)}, got ${JSON.stringify(actual)}`,
      { path, attempt, what, recorded, actual },
    )
  }
}

/**
 * Whether a value is a {@link ReplayDivergence} (by its `_tag`).
 *
 * @category replay
 */
export const isReplayDivergence = (u: unknown): u is ReplayDivergence =>
  u instanceof Error && (u as { readonly _tag?: unknown })._tag === 'ReplayDivergence'

/**
 * How to replay. Without `from`, every step is answered from the recording.
 * With `from` (a step's path, or a root step's id; a nested graph step too,
 * whose first nested call is then the point), the calls recorded before
 * that step's first call are answered from the recording and from it on
 * everything runs live, with `live`'s interpreters, `clock` and `random`.
 *
 * @category replay
 */
export interface ReplayOptions {
  readonly from?: string | readonly string[]
  readonly live?: InterpreterRegistry
  /** Default: the system clock. */
  readonly clock?: Clock
  /** Default: `Math.random`. */
  readonly random?: () => number
  /** Other run options (`session`, `budget`, `parser`, …); not interpreters, clock, random, input, runId. */
  readonly run?: Omit<RunOptions, 'interpreters' | 'clock' | 'random' | 'input' | 'runId'>
}

const keyOf = (path: readonly string[], attempt: number): string =>
  `${JSON.stringify(path)}#${attempt}`

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** Whether `path` is `prefix` or a step nested under it. */
const startsWith = (path: readonly string[], prefix: readonly string[]): boolean =>
  prefix.length <= path.length && prefix.every((id, k) => path[k] === id)

/**
 * The registry of a replay: graphs run as they do; every other kind, also
 * one the recording never used, is answered by `answer` — so a step of a
 * new kind is a divergence (`missing`), not a `MissingInterpreter`.
 */
class AnsweringRegistry extends Map<string, Interpreter> {
  constructor(private readonly answer: (kind: string, node: Node, ctx: NodeContext) => unknown) {
    super([['graph', graphInterpreter]])
  }
  override get(kind: string): Interpreter | undefined {
    const known = super.get(kind)
    if (known !== undefined || PASS_THROUGH.has(kind)) return known
    const made: Interpreter = Object.freeze({
      kind,
      execute: (node: Node, ctx: NodeContext) => this.answer(kind, node, ctx),
    })
    this.set(kind, made)
    return made
  }
  override has(kind: string): boolean {
    return this.get(kind) !== undefined
  }
}

/** A call that never answered: it waits for its step to be cancelled. */
const cancelled = (ctx: NodeContext): Promise<never> =>
  new Promise((_, reject) => {
    const stop = (): void => {
      reject(ctx.signal.reason as Error)
    }
    if (ctx.signal.aborted) stop()
    else ctx.signal.addEventListener('abort', stop, { once: true })
  })

/** What a call recorded with a value or an error answers. */
const answered = (call: RecordedCall): unknown => {
  const outcome = call.outcome
  if (outcome._tag === 'value') return call.async ? Promise.resolve(outcome.value) : outcome.value
  const error = rebuilt(call as RecordedCall & { outcome: { _tag: 'error' } })
  if (call.async) return Promise.reject(error)
  throw error
}

const rebuilt = (call: RecordedCall & { outcome: { _tag: 'error' } }): Error => {
  const e = new Error(call.outcome.error.message)
  e.name = call.outcome.error.name
  if (call.outcome.error._tag !== undefined) Object.assign(e, { _tag: call.outcome.error._tag })
  return e
}

/**
 * Runs `graph` again with interpreters, clock and random source that answer
 * from `recording`, so no model, process or clock is called: the trace and
 * results equal the recorded run's. Resolves with the run's result (or the
 * error it failed with, as recorded); rejects with a
 * {@link ReplayDivergence} at the first step whose kind, node or input
 * differs from the recording, or that it does not hold (`missing`, also a
 * step of a kind it never used).
 *
 * @category replay
 * @example
 * import { addStep, defaultInterpreters, fn, graph } from 'nerve-agents'
 * import { record, replay } from 'nerve-agents/store'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * let calls = 0
 * const g = pipe(graph('g'), addStep({ id: 'a', node: fn('count', () => ++calls) }))
 * const { recording } = await record(g, { interpreters: defaultInterpreters })
 * const again = await replay(recording, g)
 * assert.ok(E.isRight(again) && again.right.results.a === 1)
 * assert.strictEqual(calls, 1)
 */
export const replay = async (
  recording: Recording,
  graph: Graph,
  options?: ReplayOptions,
): Promise<E.Either<unknown, RunResult>> => {
  const from = options?.from === undefined ? undefined : [options.from].flat()
  const live = options?.live
  // A graph step is not recorded itself: going live from it is going live from its first nested call.
  const liveAt =
    from === undefined
      ? recording.calls.length
      : recording.calls.findIndex((c) => startsWith(c.path, from))
  if (liveAt < 0) {
    throw new UsageError(
      'replay',
      `options.from: neither step ${from!.join('/')} nor a step nested in it is in the recording`,
    )
  }
  if (from !== undefined && live === undefined) {
    throw new UsageError(
      'replay',
      'options.from needs options.live, the interpreters to go on with',
    )
  }
  const byKey = new Map<string, RecordedCall>()
  recording.calls.slice(0, liveAt).forEach((c) => byKey.set(keyOf(c.path, c.attempt), c))
  const rankOf = new Map<RecordedCall, number>()
  ;[...byKey.values()]
    .filter((c) => c.end !== undefined)
    .sort((a, b) => a.end! - b.end!)
    .forEach((c, rank) => rankOf.set(c, rank))
  const order = endOrder(rankOf.size)
  const used = new Set<string>()
  let isLive = false
  let divergence: ReplayDivergence | undefined
  const abort = new AbortController()
  const diverge = (d: ReplayDivergence): never => {
    divergence ??= d
    abort.abort(d)
    throw d
  }
  const answer = (kind: string, node: Node, ctx: NodeContext): unknown => {
    const key = keyOf(ctx.path, ctx.attempt)
    const call = byKey.get(key)
    if (call === undefined || isLive) {
      if (live !== undefined && (isLive || from !== undefined)) {
        isLive = true
        const i = live.get(kind)
        if (i?.execute === undefined)
          throw new UsageError('replay', `no live interpreter for kind "${kind}"`)
        return i.execute(node, ctx)
      }
      if (recording.failed && from === undefined) return cancelled(ctx)
      return diverge(
        new ReplayDivergence(ctx.path, ctx.attempt, 'missing', null, jsonOf(ctx.input)),
      )
    }
    used.add(key)
    if (call.kind !== kind)
      diverge(new ReplayDivergence(ctx.path, ctx.attempt, 'kind', call.kind, kind))
    if (call.nodeId !== node.id) {
      diverge(new ReplayDivergence(ctx.path, ctx.attempt, 'node', call.nodeId, node.id))
    }
    const input = jsonOf(ctx.input)
    if (!same(call.input, input)) {
      diverge(new ReplayDivergence(ctx.path, ctx.attempt, 'input', call.input, input))
    }
    return call.outcome._tag === 'pending'
      ? cancelled(ctx)
      : order.answer(rankOf.get(call), call.async, ctx.signal, () => answered(call))
  }
  const registry = new AnsweringRegistry((kind, node, ctx) => answer(kind, node, ctx))
  const liveClock = options?.clock ?? systemClock
  const liveRandom = options?.random ?? Math.random
  let tick = 0
  let drawn = 0
  const clock: Clock = Object.freeze({
    now: (): number => {
      if (isLive || tick >= recording.clock.length) {
        return live !== undefined || recording.clock.length === 0
          ? liveClock.now()
          : recording.clock[recording.clock.length - 1]!
      }
      return recording.clock[tick++]!
    },
    sleep: (ms: number, signal?: AbortSignal): Promise<void> =>
      isLive ? liveClock.sleep(ms, signal) : Promise.resolve(),
  })
  const random = (): number =>
    isLive || drawn >= recording.random.length ? liveRandom() : recording.random[drawn++]!
  const outer = options?.run?.signal
  const signal = outer === undefined ? abort.signal : AbortSignal.any([outer, abort.signal])
  const result = await run(graph, {
    ...options?.run,
    signal,
    input: recording.input,
    runId: recording.runId,
    interpreters: registry,
    clock,
    random,
  }).then(
    (ok) => E.right(ok),
    (e: unknown) => E.left(e),
  )
  if (divergence !== undefined) throw divergence
  if (from === undefined) {
    // In a failed run, a step of another branch may start after the failing step and before
    // the run stops, depending on how the branches' promises interleave: calls recorded
    // after the first failed one (calls are in start order) need not run again.
    const firstError = recording.failed
      ? recording.calls.findIndex((c) => c.outcome._tag === 'error')
      : -1
    const unused = recording.calls.find(
      (c, i) => (firstError < 0 || i <= firstError) && !used.has(keyOf(c.path, c.attempt)),
    )
    if (unused !== undefined) {
      throw new ReplayDivergence(unused.path, unused.attempt, 'unused', unused.input, null)
    }
  }
  return result
}
