import * as t from 'io-ts'
import type { StepRecord, Trace } from '../runtime/index.js'

/**
 * An error as a stored trace keeps it: its name and message, and its
 * `_tag` and `path` when it is one of Nerve's tagged errors.
 *
 * @category store
 */
export interface ErrorJson {
  readonly name: string
  readonly message: string
  readonly _tag?: string
  readonly path?: unknown
}

/**
 * A {@link StepRecord} as JSON: `input`, `output` and `error` made JSON
 * (a value JSON cannot hold is kept as its `String(…)`), `nested` the
 * nested trace or `null`.
 *
 * @category store
 */
export type StepRecordJson = Omit<StepRecord, 'nested'> & {
  readonly nested: TraceJson | null
}

/**
 * A {@link Trace} as JSON: the same fields, its records as `{ id, parents,
 * data }` with parents by id (the records of the step's dependencies).
 *
 * @category store
 */
export type TraceJson = Omit<Trace, 'records'> & {
  readonly records: readonly {
    readonly id: string
    readonly parents: readonly string[]
    readonly data: StepRecordJson
  }[]
}

/** A value as JSON can hold it: errors by name and message, what JSON cannot hold as its text. */
const jsonValue = (u: unknown): unknown => {
  if (u instanceof Error) {
    const tagged = u as Error & { readonly _tag?: unknown; readonly path?: unknown }
    return {
      name: u.name,
      message: u.message,
      ...(typeof tagged._tag === 'string' && { _tag: tagged._tag }),
      ...(tagged.path !== undefined && { path: jsonValue(tagged.path) }),
    }
  }
  if (u === undefined) return null
  const unfit = `[${typeof u} that JSON cannot hold]`
  try {
    const text = JSON.stringify(u) as string | undefined
    return text === undefined ? unfit : (JSON.parse(text) as unknown)
  } catch {
    return unfit
  }
}

const stepJson = (r: StepRecord): StepRecordJson => ({
  stepId: r.stepId,
  path: r.path,
  nodeId: r.nodeId,
  kind: r.kind,
  status: r.status,
  input: jsonValue(r.input),
  output: jsonValue(r.output),
  error: jsonValue(r.error),
  attempts: r.attempts,
  start: r.start,
  end: r.end,
  durationMs: r.durationMs,
  tokens: r.tokens,
  apiCalls: r.apiCalls,
  cost: r.cost,
  nested: r.nested === undefined ? null : traceJson(r.nested),
})

/**
 * The JSON form of a run's trace, as the store keeps it.
 *
 * @category store
 * @example
 * import { addStep, defaultInterpreters, fn, graph, run } from 'nerve-agents'
 * import { traceJson } from 'nerve-agents/store'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const g = pipe(graph('g'), addStep({ id: 'a', node: fn('one', () => 1) }))
 * const { trace } = await run(g, { interpreters: defaultInterpreters })
 * const json = traceJson(trace)
 * assert.strictEqual(json.records[0]?.data.output, 1)
 * assert.deepStrictEqual(JSON.parse(JSON.stringify(json)), json)
 */
export const traceJson = (trace: Trace): TraceJson => ({
  runId: trace.runId,
  graphId: trace.graphId,
  path: trace.path,
  status: trace.status,
  start: trace.start,
  end: trace.end,
  durationMs: trace.durationMs,
  records: trace.records.map((v) => ({
    id: v.id,
    parents: v.parents.map((p) => p.id),
    data: stepJson(v.data),
  })),
})

/**
 * The io-ts codec of a stored trace's outline: the fields a reader relies
 * on are checked, the step records' data kept as written.
 *
 * @category store
 */
export const TraceJsonCodec: t.Type<TraceJson, TraceJson> = t.type({
  runId: t.string,
  graphId: t.string,
  path: t.readonlyArray(t.string),
  status: t.keyof({ completed: null, failed: null, cancelled: null }),
  start: t.number,
  end: t.number,
  durationMs: t.number,
  records: t.readonlyArray(
    t.type({
      id: t.string,
      parents: t.readonlyArray(t.string),
      data: t.UnknownRecord,
    }),
  ),
}) as unknown as t.Type<TraceJson, TraceJson>
