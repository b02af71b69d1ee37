/**
 * `nerve-agents/runtime`: the generic kernel that runs a graph — `run`,
 * `startRun` and `stream` (also at the root), their errors, events, traces,
 * budgets and metrics, run control and approval gates, the clock.
 *
 * @packageDocumentation
 */
// kernel/ (GraphRun, StepContext, attempts, links) is internal: deliberately not exported here.
export { systemClock } from './Clock.js'
export type { Clock } from './Clock.js'
export type { Budget, BudgetLimit, RunUsage } from './Budget.js'
export type { LatencySummary, Metrics } from './Metrics.js'
export {
  BudgetExceeded,
  Cancelled,
  InvalidGraph,
  isRunError,
  LinkCycle,
  MissingInterpreter,
  RunError,
  StepFailed,
  StepTimeout,
  UnknownLinkHandle,
  UnknownNodeRef,
} from './RunError.js'
export type {
  GraphCompleted,
  GraphStarted,
  NodeRespawned,
  RunEvent,
  StepChunk,
  StepComplete,
  StepError,
  StepStart,
  StreamEvent,
  StreamLag,
} from './RunEvent.js'
export { traceRecord, traceUsage } from './Trace.js'
export type { RunStatus, StepRecord, StepStatus, Trace } from './Trace.js'
export { explain } from './explain.js'
export { LiveHandles } from './LiveHandles.js'
export { run, runGraph, startRun } from './run.js'
export type { RunOptions, RunResult, StartedRun } from './run.js'
export { stream } from './stream.js'
export type { StreamOptions } from './stream.js'
export { RunControl } from './RunControl.js'
export type { ApprovalDecision, ApprovalRequest, AskOptions, ControlledRun } from './RunControl.js'
export { approvalGate, approvalGateInterpreter, ApprovalRefused } from './approvalGate.js'
export type { ApprovalGateOptions } from './approvalGate.js'
