import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import type { Graph } from '../../graph/index.js'
import type { Interpreter, InterpreterRegistry, Node, NodeContext } from '../../node/index.js'
import {
  run,
  systemClock,
  type Clock,
  type RunOptions,
  type RunResult,
} from '../../runtime/index.js'
import {
  jsonOf,
  type RecordedCall,
  type RecordedError,
  type RecordedOutcome,
  type Recording,
} from './Recording.js'

/** Kinds whose calls are not recorded but run, so what they run is recorded: nested graphs. @internal */
export const PASS_THROUGH: ReadonlySet<string> = new Set(['graph'])

/** The error a recording keeps. @internal */
export const recordedError = (e: unknown): RecordedError => {
  if (e instanceof Error) {
    const tag = (e as { readonly _tag?: unknown })._tag
    return { name: e.name, message: e.message, ...(typeof tag === 'string' && { _tag: tag }) }
  }
  return { name: 'Error', message: String(e) }
}

const isThenable = (u: unknown): u is PromiseLike<unknown> =>
  typeof (u as { then?: unknown } | null)?.then === 'function'

/** Tells how a step ended: whether it ended after `execute` returned, and its outcome. */
type Keep = (
  async: boolean,
  outcome: Exclude<RecordedOutcome, { readonly _tag: 'pending' }>,
) => void

/**
 * `i` with each step it runs told to `begin`, and how it ended to what
 * `begin` answers (a streamed step by its result: a replay answers it at
 * once, without its chunks). A graph interpreter, or one that runs no step,
 * is given back as it is.
 *
 * @internal
 */
export const observed = (
  i: Interpreter,
  begin: (node: Node, ctx: NodeContext) => Keep,
): Interpreter => {
  const execute = i.execute?.bind(i)
  const stream = i.executeStream?.bind(i)
  if (PASS_THROUGH.has(i.kind) || (execute === undefined && stream === undefined)) return i
  const wrapped: Interpreter = { ...i }
  if (execute !== undefined) {
    wrapped.execute = (node: Node, ctx: NodeContext): unknown => {
      const keep = begin(node, ctx)
      let out: unknown
      try {
        out = execute(node, ctx)
      } catch (e) {
        keep(false, { _tag: 'error', error: recordedError(e) })
        throw e
      }
      if (!isThenable(out)) {
        keep(false, { _tag: 'value', value: jsonOf(out) })
        return out
      }
      return Promise.resolve(out).then(
        (value) => {
          keep(true, { _tag: 'value', value: jsonOf(value) })
          return value
        },
        (e: unknown) => {
          keep(true, { _tag: 'error', error: recordedError(e) })
          throw e
        },
      )
    }
  }
  if (stream !== undefined) {
    wrapped.executeStream = async function* (node: Node, ctx: NodeContext) {
      const keep = begin(node, ctx)
      try {
        const value: unknown = yield* stream(node, ctx)
        keep(true, { _tag: 'value', value: jsonOf(value) })
        return value
      } catch (e) {
        keep(true, { _tag: 'error', error: recordedError(e) })
        throw e
      }
    }
  }
  return Object.freeze(wrapped)
}

/**
 * What wraps a run's interpreters, clock and random source and keeps what
 * they return, in the order they were asked. Give its `interpreters`,
 * `clock` and `random` to `run`; read {@link Recorder.recording} after.
 *
 * @category replay
 */
export interface Recorder {
  readonly interpreters: InterpreterRegistry
  readonly clock: Clock
  readonly random: () => number
  /** The recording so far, of the run with this id, graph and input. */
  recording(runId: string, graphId: string, input: unknown, failed: boolean): Recording
}

/**
 * A {@link Recorder} around an interpreter registry (and a clock and random
 * source, by default the real ones). Only `execute` is wrapped; a `graph`
 * step is not recorded itself, its nested steps are (by their paths).
 *
 * @category replay
 */
export const recorder = (options: {
  readonly interpreters: InterpreterRegistry
  readonly clock?: Clock
  readonly random?: () => number
}): Recorder => {
  const calls: RecordedCall[] = []
  let ended = 0
  const clockReadings: number[] = []
  const randoms: number[] = []
  const inner = options.clock ?? systemClock
  const innerRandom = options.random ?? Math.random
  /** Records a call of `kind` on `node` (pending until `keep` answers how it ended). */
  const begin = (kind: string, node: Node, ctx: NodeContext) => {
    const slot = calls.length
    const base = {
      path: [...ctx.path],
      attempt: ctx.attempt,
      kind,
      nodeId: node.id,
      input: jsonOf(ctx.input),
    }
    calls.push(Object.freeze({ ...base, async: true, outcome: { _tag: 'pending' as const } }))
    const keep: Keep = (async, outcome) => {
      calls[slot] = Object.freeze({ ...base, async, outcome, end: ended++ })
    }
    return keep
  }
  const registry = new Map<string, Interpreter>()
  for (const [kind, i] of options.interpreters) {
    registry.set(
      kind,
      observed(i, (node, ctx) => begin(kind, node, ctx)),
    )
  }
  return Object.freeze({
    interpreters: registry,
    clock: Object.freeze({
      now: (): number => {
        const t = inner.now()
        clockReadings.push(t)
        return t
      },
      sleep: (ms: number, signal?: AbortSignal) => inner.sleep(ms, signal),
    }),
    random: (): number => {
      const r = innerRandom()
      randoms.push(r)
      return r
    },
    recording: (runId: string, graphId: string, input: unknown, failed: boolean): Recording =>
      Object.freeze({
        version: 1 as const,
        runId,
        graphId,
        input: jsonOf(input),
        failed,
        calls: [...calls],
        clock: [...clockReadings],
        random: [...randoms],
      }),
  })
}

/**
 * What {@link record} resolves with: the run's result (or the error it
 * failed with) and its recording.
 *
 * @category replay
 */
export interface Recorded {
  readonly result: E.Either<unknown, RunResult>
  readonly recording: Recording
}

/**
 * Runs `graph` as `run` does, recording everything its interpreters, clock
 * and random source return. The kernel knows nothing of it: the recording
 * is made by wrapping what the run is given.
 *
 * @category replay
 * @example
 * import { addStep, defaultInterpreters, fn, graph } from 'nerve-agents'
 * import { record } from 'nerve-agents/store'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const g = pipe(graph('g'), addStep({ id: 'a', node: fn('double', (ctx) => Number(ctx.input) * 2) }))
 * const { recording } = await record(g, { interpreters: defaultInterpreters, input: 21 })
 * assert.deepStrictEqual(recording.calls[0]?.outcome, { _tag: 'value', value: 42 })
 */
export const record = async (graph: Graph, options: RunOptions): Promise<Recorded> => {
  const r = recorder(options)
  const runId = options.runId ?? randomUUID()
  const result = await run(graph, {
    ...options,
    runId,
    interpreters: r.interpreters,
    clock: r.clock,
    random: r.random,
  }).then(
    (ok) => E.right(ok),
    (e: unknown) => E.left(e),
  )
  return Object.freeze({
    result,
    recording: r.recording(runId, graph.id, options.input, E.isLeft(result)),
  })
}
