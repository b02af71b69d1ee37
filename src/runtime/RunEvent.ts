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
 * What `stream` yields (and `run`'s `onEvent` receives). Nested graphs'
 * events carry the full path of their step.
 *
 * @category events
 */
export type RunEvent =
  GraphStarted | StepStart | StepChunk | StepComplete | StepError | GraphCompleted
