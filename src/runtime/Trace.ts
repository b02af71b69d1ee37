import { Vertex, type Meta } from '../dag/Vertex.js'
import type { RunUsage } from './Budget.js'

/**
 * How a step ended. `completed`: its node succeeded (maybe after retries);
 * `skipped`: it failed and its skip policy gave the value; `fallback`: it
 * failed and its fallback node gave the value; `failed`: it failed for good;
 * `cancelled`: it was still running when the run stopped.
 *
 * @category trace
 */
export type StepStatus = 'completed' | 'skipped' | 'fallback' | 'failed' | 'cancelled'

/**
 * What a trace keeps of one step: the data of its vertex. Times are the
 * run's clock readings. `output` and `input` are kept by reference (not
 * copied); `error` is the last attempt's error (also set for `skipped` and
 * `fallback`). `tokens`, `apiCalls` and `cost` sum what the step's attempts
 * reported, nested graphs included, and what materializing the artifacts of
 * the links it resolved reported. `nested` is the trace of the graph the
 * step ran, if it ran one.
 *
 * @category trace
 */
export interface StepRecord {
  readonly stepId: string
  /** Step ids from the root graph down to this step. */
  readonly path: readonly string[]
  readonly nodeId: string
  readonly kind: string
  readonly status: StepStatus
  readonly input: unknown
  readonly output: unknown
  readonly error: unknown
  /** Attempts made, the fallback's included; 0 if the step failed before its node ran. */
  readonly attempts: number
  readonly start: number
  readonly end: number
  readonly durationMs: number
  readonly tokens: number
  readonly apiCalls: number
  readonly cost: number
  readonly nested: Trace | undefined
}

/**
 * How a graph run ended.
 *
 * @category trace
 */
export type RunStatus = 'completed' | 'failed' | 'cancelled'

/**
 * The record of running one graph: a frozen DAG of {@link StepRecord}
 * vertices whose parents are the records of the step's dependencies (in
 * `dependsOn` order). `records` lists one vertex per step that started, in
 * the graph's insertion order; steps that never started have none. A
 * vertex's id is its step path joined by `/` (`outer/inner`).
 *
 * @category trace
 */
export interface Trace {
  readonly runId: string
  readonly graphId: string
  /** The path of the step that ran this graph; `[]` for the root. */
  readonly path: readonly string[]
  readonly status: RunStatus
  readonly start: number
  readonly end: number
  readonly durationMs: number
  readonly records: readonly Vertex<StepRecord>[]
}

/**
 * The record of a step in a trace, by step id (`undefined` if it did not start).
 *
 * @category trace
 * @example
 * import { addStep, defaultInterpreters, fn, graph, run } from 'nerve-agents'
 * import { traceRecord } from 'nerve-agents/runtime'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const g = pipe(graph('g'), addStep({ id: 'a', node: fn('one', () => 1) }))
 * const { trace } = await run(g, { interpreters: defaultInterpreters })
 * assert.strictEqual(traceRecord('a')(trace)?.status, 'completed')
 */
export const traceRecord =
  (stepId: string) =>
  (trace: Trace): StepRecord | undefined =>
    trace.records.find((v) => v.data.stepId === stepId)?.data

/**
 * What the records of a trace used, summed: for a run that completed, its
 * metrics' usage (nested graphs count in the steps that ran them).
 *
 * @category trace
 * @example
 * import { addStep, defaultInterpreters, fn, graph, run } from 'nerve-agents'
 * import { traceUsage } from 'nerve-agents/runtime'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const ask = fn('ask', (ctx) => {
 *   ctx.reportUsage({ tokens: 7, apiCalls: 1 })
 *   return 'ok'
 * })
 * const g = pipe(graph('g'), addStep({ id: 'a', node: ask }), addStep({ id: 'b', node: ask }))
 * const { trace, metrics } = await run(g, { interpreters: defaultInterpreters })
 * assert.deepStrictEqual(traceUsage(trace), { tokens: 14, apiCalls: 2, cost: 0 })
 * assert.deepStrictEqual(traceUsage(trace), metrics.usage)
 */
export const traceUsage = (trace: Trace): RunUsage => {
  let tokens = 0
  let apiCalls = 0
  let cost = 0
  for (const v of trace.records) {
    tokens += v.data.tokens
    apiCalls += v.data.apiCalls
    cost += v.data.cost
  }
  return Object.freeze({ tokens, apiCalls, cost })
}

const NO_META: Meta = Object.freeze({})

const NO_PARENTS: readonly Vertex<StepRecord>[] = Object.freeze([])

/**
 * The parents of step `i`'s record: the records of its dependencies
 * (`targets[offsets[i]]` up to `targets[offsets[i + 1]]`, in `dependsOn`
 * order). A single one is returned as is (a vertex keeps it inline), several
 * as a frozen tuple.
 *
 * @internal
 */
export const recordParents = (
  offsets: ArrayLike<number>,
  targets: ArrayLike<number>,
  records: readonly (Vertex<StepRecord> | undefined)[],
  i: number,
): Vertex<StepRecord> | readonly Vertex<StepRecord>[] => {
  const first = offsets[i]!
  const count = offsets[i + 1]! - first
  if (count === 0) return NO_PARENTS
  if (count === 1) return records[targets[first]!]!
  const list: Vertex<StepRecord>[] = []
  for (let k = 0; k < count; k++) list.push(records[targets[first + k]!]!)
  return Object.freeze(list)
}

/**
 * The vertex of one step record: its parents are the records of the step's
 * dependencies (one kept inline, several as a frozen tuple), its id the
 * step path joined by `/`. Freezes `data`.
 *
 * @internal
 */
export const recordVertex = (
  parents: Vertex<StepRecord> | readonly Vertex<StepRecord>[],
  data: StepRecord,
): Vertex<StepRecord> => {
  const path = data.path
  return new Vertex(
    parents,
    Object.freeze(data),
    path.length === 1 ? path[0]! : path.join('/'),
    NO_META,
  )
}

/**
 * The trace of one graph run from its records (one slot per step, empty for
 * steps that never started), kept in step order.
 *
 * @internal
 */
export const makeTrace = (
  runId: string,
  graphId: string,
  path: readonly string[],
  status: RunStatus,
  start: number,
  end: number,
  slots: readonly (Vertex<StepRecord> | undefined)[],
): Trace => {
  const records: Vertex<StepRecord>[] = []
  for (const r of slots) if (r !== undefined) records.push(r)
  return Object.freeze({
    runId,
    graphId,
    path,
    status,
    start,
    end,
    durationMs: end - start,
    records: Object.freeze(records),
  })
}
