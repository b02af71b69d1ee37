import type { RunInfo, RunSummary, TraceJson, TraceStep } from '../../protocol/index.js'
import type { SqliteStore, StoredRun, TraceJson as StoredTrace } from '../../store/index.js'

/** A stored trace as `GET_RUN` answers one: the wire's trace shape. */
const wireTrace = (trace: StoredTrace): TraceJson => ({
  runId: trace.runId,
  graphId: trace.graphId,
  status: trace.status,
  durationMs: trace.durationMs,
  steps: trace.records.map(({ id, parents, data: r }): TraceStep => {
    const error = r.error as { readonly _tag?: unknown; readonly message?: unknown } | null
    return {
      id,
      stepId: r.stepId,
      path: r.path,
      nodeId: r.nodeId,
      kind: r.kind,
      status: r.status,
      output: r.output,
      ...(error !== null && {
        error: {
          tag: typeof error._tag === 'string' ? error._tag : 'Error',
          message: typeof error.message === 'string' ? error.message : String(error.message),
        },
      }),
      attempts: r.attempts,
      durationMs: r.durationMs,
      tokens: r.tokens,
      cost: r.cost,
      parents,
      ...(r.nested !== null && { nested: wireTrace(r.nested) }),
    }
  }),
})

const summaryOf = (run: StoredRun, defaultSession: string): RunSummary => ({
  runId: run.runId,
  sessionId: run.sessionId ?? defaultSession,
  graphId: run.graphId,
  state: run.status,
  startedAt: new Date(run.start).toISOString(),
  stored: true,
})

/**
 * The runs the store keeps that `known` does not list (those the engine
 * holds), marked `stored`, of one session when named, oldest first.
 */
export const storedRuns = (
  store: SqliteStore,
  sessionId: string | undefined,
  known: readonly RunSummary[],
  defaultSession: string,
): RunSummary[] => {
  const held = new Set(known.map((r) => r.runId))
  return store
    .runs(sessionId)
    .filter((r) => !held.has(r.runId))
    .map((r) => summaryOf(r, defaultSession))
}

/** A run the store keeps, as `GET_RUN` answers it (`stored`, its trace and recording id); undefined when none. */
export const storedRun = (
  store: SqliteStore,
  runId: string,
  defaultSession: string,
): RunInfo | undefined => {
  const trace = store.trace(runId)
  if (trace === undefined) return undefined
  const run = store.runs().find((r) => r.runId === runId)
  const [recording] = store.recordings(runId)
  return Object.freeze({
    ...summaryOf(
      run ?? {
        runId,
        sessionId: undefined,
        graphId: trace.graphId,
        status: trace.status,
        start: trace.start,
      },
      defaultSession,
    ),
    trace: wireTrace(trace),
    ...(recording !== undefined && { recordingId: recording.id }),
  })
}
