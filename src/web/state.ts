/**
 * What the page knows, as signals fed by the daemon's events: the
 * daemon's sessions, the nodes of the session shown and the graph runs
 * (of every session) with their steps. Each event makes new
 * values (maps are replaced, never changed in place), so a view redraws
 * exactly what an event touched. Two pages on one daemon receive the same
 * events and so show the same thing.
 */
import { batch, signal } from '@preact/signals'
import type { EngineEvent, RunSummary, SessionSummary, TraceJson } from '../protocol/index.js'

/** A node as the page lists it. */
export interface NodeRow {
  readonly id: string
  readonly kind: string
  readonly state: string
  /** When it entered its state (ISO 8601), when known. */
  readonly since: string | undefined
}

/** The state of a step as drawn. */
export type StepState = 'pending' | 'running' | 'retrying' | 'done' | 'skipped' | 'failed'

/** A step of a run as drawn. */
export interface StepView {
  readonly id: string
  readonly state: StepState
  readonly nodeId: string | undefined
  readonly attempts: number
  readonly durationMs: number | undefined
  readonly output: unknown
  readonly error: { readonly tag: string; readonly message: string } | undefined
  /** The text the step streamed, its last 64 KiB. */
  readonly chunks: string
  /** When its first attempt started and when it ended (ms since the epoch), when the page saw it. */
  readonly startedAt: number | undefined
  readonly endedAt: number | undefined
  /** The attempts that failed and were retried. */
  readonly retries: number
  /** The times a node the run started itself was started again for it (its program had exited). */
  readonly respawns: number
}

/** A graph run as drawn. */
export interface RunView {
  readonly runId: string
  readonly graphId: string
  /** The session it runs in, when known. */
  readonly sessionId: string | undefined
  readonly state: string
  readonly startedAt: string
  readonly steps: ReadonlyMap<string, StepView>
  /** Dependencies, `[from, to]`: known from the graph the page ran, or from the trace at the end. */
  readonly edges: readonly (readonly [string, string])[]
  /** The recording a replay of it runs from (its own, or the one it replays), once it ended. */
  readonly recordingId: string | undefined
}

/** The daemon's sessions (`LIST_SESSIONS`, then `SESSION_CREATED` and `SESSION_CLOSED`), by id. */
export const sessions = signal<ReadonlyMap<string, SessionSummary>>(new Map())
/**
 * The session whose nodes {@link nodes} holds and in which the page acts
 * (creates nodes, starts runs, saves); `undefined` until the sessions are
 * listed: the daemon's default one then.
 */
export const shown = signal<string | undefined>(undefined)
/** The nodes of the {@link shown} session. */
export const nodes = signal<ReadonlyMap<string, NodeRow>>(new Map())
export const runs = signal<ReadonlyMap<string, RunView>>(new Map())
export const connection = signal<'connecting' | 'open' | 'lost'>('connecting')
/** Events that arrived, all told (the latency bench reads it). */
export const eventCount = signal(0)

const CHUNK_KEEP = 64 * 1024

const emptyStep = (id: string): StepView => ({
  id,
  state: 'pending',
  nodeId: undefined,
  attempts: 0,
  durationMs: undefined,
  output: undefined,
  error: undefined,
  chunks: '',
  startedAt: undefined,
  endedAt: undefined,
  retries: 0,
  respawns: 0,
})

const withStep = (run: RunView, id: string, f: (s: StepView) => StepView): RunView => {
  const steps = new Map(run.steps)
  steps.set(id, f(steps.get(id) ?? emptyStep(id)))
  return { ...run, steps }
}

const updateRun = (runId: string, f: (r: RunView) => RunView): void => {
  const run = runs.value.get(runId)
  if (run === undefined) return
  const next = new Map(runs.value)
  next.set(runId, f(run))
  runs.value = next
}

/** The params that make a command act in the {@link shown} session. */
export const inShown = (): { readonly sessionId?: string } =>
  shown.value === undefined ? {} : { sessionId: shown.value }

/** The daemon's default session's id, once the sessions are listed. */
export const defaultSession = (): string | undefined =>
  [...sessions.value.values()].find((s) => s.default)?.sessionId

/** Replaces the session list (the answer of LIST_SESSIONS). */
export const setSessions = (list: readonly SessionSummary[]): void => {
  sessions.value = new Map(list.map((s) => [s.sessionId, s]))
}

/** Adds a run the page learnt of (listed, started here or elsewhere); keeps what it knew. */
export const addRun = (
  summary: Pick<RunSummary, 'runId' | 'graphId' | 'startedAt'> & {
    readonly state: string
    readonly sessionId?: string | undefined
  },
  steps: readonly { readonly id: string; readonly dependsOn?: readonly string[] }[] = [],
): void => {
  const known = runs.value.get(summary.runId)
  const next = new Map(runs.value)
  // What events told already wins over the file's pending steps.
  const merged = new Map(steps.map((s) => [s.id, emptyStep(s.id)]))
  for (const [id, s] of known?.steps ?? []) merged.set(id, s)
  next.set(summary.runId, {
    ...summary,
    sessionId: summary.sessionId ?? known?.sessionId,
    recordingId: known?.recordingId,
    state: known?.state ?? summary.state,
    steps: merged,
    edges:
      known !== undefined && known.edges.length > 0
        ? known.edges
        : steps.flatMap((s) => (s.dependsOn ?? []).map((d) => [d, s.id] as const)),
  })
  runs.value = next
}

const stepStateOf = (status: string): StepState =>
  status === 'completed' || status === 'fallback'
    ? 'done'
    : status === 'skipped'
      ? 'skipped'
      : status === 'failed'
        ? 'failed'
        : status === 'cancelled'
          ? 'failed'
          : 'done'

/** Fills a run from its trace (a run that ended): steps, their states and outputs, edges. */
export const applyTrace = (trace: TraceJson): void => {
  updateRun(trace.runId, (run) => {
    const steps = new Map(run.steps)
    for (const s of trace.steps) {
      const known = steps.get(s.stepId) ?? emptyStep(s.stepId)
      steps.set(s.stepId, {
        ...known,
        state: stepStateOf(s.status),
        nodeId: s.nodeId,
        attempts: s.attempts,
        retries: Math.max(known.retries, s.attempts - 1),
        durationMs: s.durationMs,
        output: s.output,
        error: s.error,
      })
    }
    const byRecord = new Map(trace.steps.map((s) => [s.id, s.stepId]))
    const edges = trace.steps.flatMap((s) =>
      s.parents.map((p) => [byRecord.get(p) ?? p, s.stepId] as const),
    )
    return { ...run, steps, edges: edges.length > 0 ? edges : run.edges }
  })
}

/** Notes the recording a run's replay runs from. */
export const setRecording = (runId: string, recordingId: string): void => {
  updateRun(runId, (r) => (r.recordingId === recordingId ? r : { ...r, recordingId }))
}

/** Replaces the node list (the answer of LIST_NODES). */
export const setNodes = (list: readonly Omit<NodeRow, 'since'>[]): void => {
  nodes.value = new Map(list.map((n) => [n.id, { ...n, since: undefined }]))
}

/** Whether `sessionId` is the session shown (any, before it is known). */
const isShown = (sessionId: string): boolean =>
  shown.value === undefined || shown.value === sessionId

/** Applies one event of the daemon. */
export const apply = (e: EngineEvent): void => {
  eventCount.value++
  switch (e.type) {
    case 'SESSION_CREATED': {
      const next = new Map(sessions.value)
      next.set(e.sessionId, e.session)
      sessions.value = next
      return
    }
    case 'SESSION_CLOSED': {
      const next = new Map(sessions.value)
      next.delete(e.sessionId)
      sessions.value = next
      return
    }
    case 'NODE_CREATED':
    case 'NODE_READY':
    case 'NODE_BUSY':
    case 'NODE_RESPAWNED':
    case 'NODE_STOPPED':
    case 'NODE_FORKED': {
      if (!isShown(e.sessionId)) return
      const next = new Map(nodes.value)
      const known = next.get(e.nodeId)
      next.set(e.nodeId, {
        id: e.nodeId,
        kind: e.kind,
        state: e.state,
        since: known?.state === e.state ? known.since : e.time,
      })
      nodes.value = next
      return
    }
    case 'NODE_DELETED': {
      if (!isShown(e.sessionId)) return
      const next = new Map(nodes.value)
      next.delete(e.nodeId)
      nodes.value = next
      return
    }
    case 'GRAPH_STARTED':
      if (e.path.length === 0) {
        const known = runs.value.get(e.runId)
        addRun({
          runId: e.runId,
          graphId: e.graphId,
          sessionId: e.sessionId,
          state: 'running',
          startedAt: known?.startedAt ?? e.time,
        })
      }
      return
    case 'STEP_STARTED':
      if (e.path.length === 1)
        updateRun(e.runId, (r) =>
          withStep(r, e.stepId, (s) => ({
            ...s,
            state: 'running',
            nodeId: e.nodeId,
            attempts: e.attempt,
            startedAt: s.startedAt ?? Date.parse(e.time),
            endedAt: undefined,
          })),
        )
      return
    case 'STEP_COMPLETED':
      if (e.path.length === 1)
        updateRun(e.runId, (r) =>
          withStep(r, e.stepId, (s) => ({
            ...s,
            state: stepStateOf(e.status),
            output: e.output,
            durationMs: e.durationMs,
            endedAt: Date.parse(e.time),
          })),
        )
      return
    case 'STEP_FAILED':
      if (e.path.length === 1)
        updateRun(e.runId, (r) =>
          withStep(r, e.stepId, (s) => ({
            ...s,
            state: e.final ? 'failed' : 'retrying',
            error: e.error,
            ...(e.final ? { endedAt: Date.parse(e.time) } : { retries: s.retries + 1 }),
          })),
        )
      return
    case 'RUN_NODE_RESPAWNED':
      updateRun(e.runId, (r) =>
        withStep(r, e.path[0]!, (s) => ({ ...s, respawns: s.respawns + 1 })),
      )
      return
    case 'OUTPUT_CHUNK': {
      const { runId, stepId } = e
      if (runId === undefined || stepId === undefined) return
      const text = chunkText(e.chunk)
      if (text !== undefined)
        updateRun(runId, (r) =>
          r.steps.has(stepId)
            ? withStep(r, stepId, (s) => ({ ...s, chunks: (s.chunks + text).slice(-CHUNK_KEEP) }))
            : r,
        )
      return
    }
    case 'GRAPH_COMPLETED':
      if (e.path.length === 0) updateRun(e.runId, (r) => ({ ...r, state: e.status }))
      return
    default:
      return
  }
}

/** Applies events arrived together in one redraw. */
export const applyAll = (events: readonly EngineEvent[]): void => {
  batch(() => {
    for (const e of events) apply(e)
  })
}

/** The text of an output chunk: a terminal's string, a bash chunk's `data`. */
export const chunkText = (chunk: unknown): string | undefined => {
  if (typeof chunk === 'string') return chunk
  const data = (chunk as { data?: unknown } | null)?.data
  return typeof data === 'string' ? data : undefined
}
