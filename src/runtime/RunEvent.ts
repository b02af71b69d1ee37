import type { RunStatus, StepStatus } from './Trace.js'

/**
 * A graph (the root, `path: []`, or a nested one, `path` = the step that runs it) started.
 *
 * @category events
 */
export interface GraphStarted {
  readonly type: 'graph_started'
  readonly runId: string
  readonly path: readonly string[]
  readonly graphId: string
  readonly time: number
}

/**
 * An attempt of a step started (`attempt` 1 first, then one per retry and
 * one for a fallback node).
 *
 * @category events
 */
export interface StepStart {
  readonly type: 'step_start'
  readonly runId: string
  readonly path: readonly string[]
  readonly stepId: string
  readonly nodeId: string
  readonly kind: string
  readonly attempt: number
  readonly time: number
}

/**
 * A partial result of a running step: what it `ctx.emit`ted or its
 * interpreter's `executeStream` yielded.
 *
 * @category events
 */
export interface StepChunk {
  readonly type: 'step_chunk'
  readonly runId: string
  readonly path: readonly string[]
  readonly stepId: string
  readonly attempt: number
  readonly chunk: unknown
}

/**
 * A step finished with a value: its own (`completed`), its skip value or its fallback's.
 *
 * @category events
 */
export interface StepComplete {
  readonly type: 'step_complete'
  readonly runId: string
  readonly path: readonly string[]
  readonly stepId: string
  readonly status: Exclude<StepStatus, 'failed' | 'cancelled'>
  readonly output: unknown
  readonly attempts: number
  readonly durationMs: number
  readonly time: number
}

/**
 * An attempt of a step failed. `final`: no more attempts follow (the step
 * then fails, or its skip or fallback policy takes over).
 *
 * @category events
 */
export interface StepError {
  readonly type: 'step_error'
  readonly runId: string
  readonly path: readonly string[]
  readonly stepId: string
  readonly attempt: number
  readonly error: unknown
  readonly final: boolean
  readonly time: number
}

/**
 * A graph finished; for `failed` and `cancelled`, `error` is the run error.
 *
 * @category events
 */
export interface GraphCompleted {
  readonly type: 'graph_completed'
  readonly runId: string
  readonly path: readonly string[]
  readonly graphId: string
  readonly status: RunStatus
  readonly error: unknown
  readonly durationMs: number
  readonly time: number
}

/**
 * A persistent node the run started itself (no session holds it) was
 * started again for a step, because the handle it had was no longer alive
 * (a terminal whose program exited): the dead one stopped, a fresh one in
 * its place. `path` is the step that needed it.
 *
 * @category events
 */
export interface NodeRespawned {
  readonly type: 'node_respawned'
  readonly runId: string
  readonly path: readonly string[]
  readonly nodeId: string
  readonly kind: string
  readonly time: number
}

/**
 * What `stream` yields (and `run`'s `onEvent` receives). Nested graphs'
 * events carry the full path of their step.
 *
 * @category events
 */
export type RunEvent =
  GraphStarted | StepStart | StepChunk | StepComplete | StepError | GraphCompleted | NodeRespawned

/**
 * Told to a reader of {@link stream} that fell behind: `dropped` events
 * were not kept since the one before (the stream keeps a bounded buffer).
 * The events after it are the newest ones again; the last event of a stream
 * (the root's `graph_completed`) is never dropped.
 *
 * @category events
 */
export interface StreamLag {
  readonly type: 'stream_lag'
  readonly runId: string
  readonly dropped: number
}

/**
 * What {@link stream} yields: the run's events, and a lag notice where a
 * slow reader missed some.
 *
 * @category events
 */
export type StreamEvent = RunEvent | StreamLag

/**
 * Where the kernel sends events: the run's id and its listener, which is
 * `undefined` when nobody listens or once the run has settled, and a listener
 * of chunks alone. Each `emit…` helper builds its event only when there is a
 * listener for it.
 *
 * @internal
 */
export interface EventSink {
  readonly runId: string
  readonly onEvent: ((event: RunEvent) => void) | undefined
  /** A listener of step chunks alone: no other event is built for it. */
  readonly onChunk: ((event: StepChunk) => void) | undefined
}

/** @internal */
export const emitGraphStarted = (
  sink: EventSink,
  path: readonly string[],
  graphId: string,
  time: number,
): void => {
  const listener = sink.onEvent
  if (listener === undefined) return
  listener({ type: 'graph_started', runId: sink.runId, path, graphId, time })
}

/** @internal */
export const emitStepStart = (
  sink: EventSink,
  path: readonly string[],
  stepId: string,
  nodeId: string,
  kind: string,
  attempt: number,
  time: number,
): void => {
  const listener = sink.onEvent
  if (listener === undefined) return
  listener({ type: 'step_start', runId: sink.runId, path, stepId, nodeId, kind, attempt, time })
}

/** @internal */
export const emitStepChunk = (
  sink: EventSink,
  path: readonly string[],
  stepId: string,
  attempt: number,
  chunk: unknown,
): void => {
  const listener = sink.onEvent ?? sink.onChunk
  if (listener === undefined) return
  listener({ type: 'step_chunk', runId: sink.runId, path, stepId, attempt, chunk })
}

/** @internal */
export const emitStepComplete = (
  sink: EventSink,
  path: readonly string[],
  stepId: string,
  status: StepComplete['status'],
  output: unknown,
  attempts: number,
  durationMs: number,
  time: number,
): void => {
  const listener = sink.onEvent
  if (listener === undefined) return
  listener({
    type: 'step_complete',
    runId: sink.runId,
    path,
    stepId,
    status,
    output,
    attempts,
    durationMs,
    time,
  })
}

/** @internal */
export const emitStepError = (
  sink: EventSink,
  path: readonly string[],
  stepId: string,
  attempt: number,
  error: unknown,
  final: boolean,
  time: number,
): void => {
  const listener = sink.onEvent
  if (listener === undefined) return
  listener({ type: 'step_error', runId: sink.runId, path, stepId, attempt, error, final, time })
}

/** @internal */
export const emitGraphCompleted = (
  sink: EventSink,
  path: readonly string[],
  graphId: string,
  status: RunStatus,
  error: unknown,
  durationMs: number,
  time: number,
): void => {
  const listener = sink.onEvent
  if (listener === undefined) return
  listener({
    type: 'graph_completed',
    runId: sink.runId,
    path,
    graphId,
    status,
    error,
    durationMs,
    time,
  })
}

/** @internal */
export const emitNodeRespawned = (
  sink: EventSink,
  path: readonly string[],
  nodeId: string,
  kind: string,
  time: number,
): void => {
  const listener = sink.onEvent
  if (listener === undefined) return
  listener({ type: 'node_respawned', runId: sink.runId, path, nodeId, kind, time })
}

/** A lag notice for a reader of a stream. @internal */
export const streamLag = (runId: string, dropped: number): StreamLag => ({
  type: 'stream_lag',
  runId,
  dropped,
})
