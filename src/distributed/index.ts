/**
 * `nerve-agents/distributed`: steps that run on other machines, as BullMQ jobs on
 * Redis — `remoteInterpreters` on the side that runs the graph,
 * `startWorker` on the machines that run the steps.
 *
 * @packageDocumentation
 */
export { remoteInterpreters } from './remote.js'
export type { RemoteInterpreters, RemoteOptions } from './remote.js'
export { startWorker, UnknownFunction } from './worker.js'
export type { NerveWorker, WorkerOptions } from './worker.js'
export type { RedisConnection } from './connection.js'
export { NoLiveWorker, RedisUnreachable, RemoteStepFailed, WireDecodeError } from './DistError.js'
export {
  BudgetShareCodec,
  NodeDescriptionCodec,
  StepFailureCodec,
  StepJobCodec,
  StepProgressCodec,
  StepReturnCodec,
} from './wire.js'
export type { BudgetShare, NodeDescription, StepJob, StepProgress } from './wire.js'
