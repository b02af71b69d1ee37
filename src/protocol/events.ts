import * as t from 'io-ts'
import type { NetworkEvent } from '../network/index.js'
import type { NodeState } from '../node/index.js'
import type { WireErrorShape } from './parts.js'

/**
 * The protocol's name of each network run event: an envelope sent along an
 * edge, a firing starting and ending, a node reaching Done, a live edit
 * (with its patches), a halt (stall, iterations, budget), an approval asked
 * and decided, a policy refusal, pause and resume, the end.
 *
 * @category protocol
 */
export const networkEventNames = Object.freeze({
  envelope: 'ENVELOPE_DELIVERED',
  firing: 'NODE_FIRING',
  fired: 'NODE_FIRED',
  done: 'NODE_DONE',
  patch: 'NETWORK_PATCHED',
  halt: 'NETWORK_HALTED',
  approval: 'APPROVAL_REQUESTED',
  decision: 'APPROVAL_DECIDED',
  refused: 'POLICY_REFUSED',
  paused: 'NETWORK_PAUSED',
  resumed: 'NETWORK_RESUMED',
  finished: 'NETWORK_COMPLETED',
} as const)

type NetworkNames = typeof networkEventNames

/**
 * The event types, in the Nerve PRD's names. Node lifecycle events come
 * from the session's own events, run events from the runtime's, output
 * events from the executes the engine runs; `LAGGED` tells a slow reader
 * how many events it missed, `SERVER_SHUTDOWN` is the last event.
 *
 * @category protocol
 */
export const eventTypes = Object.freeze([
  'NODE_CREATED',
  'NODE_READY',
  'NODE_BUSY',
  'NODE_STOPPED',
  'NODE_FORKED',
  'NODE_DELETED',
  'OUTPUT_CHUNK',
  'OUTPUT_PARSED',
  'GRAPH_STARTED',
  'STEP_STARTED',
  'STEP_COMPLETED',
  'STEP_FAILED',
  'GRAPH_COMPLETED',
  ...Object.values(networkEventNames),
  'ERROR',
  'SERVER_SHUTDOWN',
  'LAGGED',
] as const)

/**
 * One of {@link eventTypes}.
 *
 * @category protocol
 */
export type EventType = (typeof eventTypes)[number]

/**
 * The codec of an event type name.
 *
 * @category protocol
 */
export const EventTypeCodec: t.Type<EventType, EventType> = t.keyof(
  Object.fromEntries(eventTypes.map((e) => [e, null])) as Record<EventType, null>,
  'EventType',
)

/** What every event has: its type and when it happened (ISO 8601). */
interface Base<T extends EventType> {
  readonly type: T
  readonly time: string
}

/** An event about one node of one session. */
interface NodeBase<T extends EventType> extends Base<T> {
  readonly sessionId: string
  readonly nodeId: string
}

/**
 * A node's lifecycle moved: registered (`NODE_CREATED`), started
 * (`NODE_READY`, also when an execute ends), executing (`NODE_BUSY`),
 * stopped, forked (with `from`, the source's id) or deleted. `kind` is the
 * node's kind.
 *
 * @category protocol
 */
export interface NodeEvent extends NodeBase<
  'NODE_CREATED' | 'NODE_READY' | 'NODE_BUSY' | 'NODE_STOPPED' | 'NODE_FORKED' | 'NODE_DELETED'
> {
  readonly kind: string
  readonly state: NodeState
  readonly from?: string
}

/**
 * A piece of output while a node executes (a terminal's text as it comes,
 * a bash command's stdout/stderr chunk, a step's emitted value). In a graph
 * run, `runId` and `stepId` say which step.
 *
 * @category protocol
 */
export interface OutputChunk extends NodeBase<'OUTPUT_CHUNK'> {
  readonly chunk: unknown
  readonly runId?: string
  readonly stepId?: string
}

/**
 * The answer of an execute (`EXECUTE_INPUT`, `RUN_COMMAND`): a terminal's
 * parsed response, a bash result, a model's text.
 *
 * @category protocol
 */
export interface OutputParsed extends NodeBase<'OUTPUT_PARSED'> {
  readonly output: unknown
}

/**
 * A graph run (or a nested graph, `path` = the step running it) started.
 *
 * @category protocol
 */
export interface GraphStartedEvent extends Base<'GRAPH_STARTED'> {
  readonly sessionId: string
  readonly runId: string
  readonly graphId: string
  readonly path: readonly string[]
}

/**
 * An attempt of a step started.
 *
 * @category protocol
 */
export interface StepStartedEvent extends Base<'STEP_STARTED'> {
  readonly sessionId: string
  readonly runId: string
  readonly stepId: string
  readonly path: readonly string[]
  readonly nodeId: string
  readonly attempt: number
}

/**
 * A step finished with a value (`status`: completed, skipped or fallback).
 *
 * @category protocol
 */
export interface StepCompletedEvent extends Base<'STEP_COMPLETED'> {
  readonly sessionId: string
  readonly runId: string
  readonly stepId: string
  readonly path: readonly string[]
  readonly status: string
  readonly output: unknown
  readonly durationMs: number
}

/**
 * An attempt of a step failed; `final`: no attempt follows.
 *
 * @category protocol
 */
export interface StepFailedEvent extends Base<'STEP_FAILED'> {
  readonly sessionId: string
  readonly runId: string
  readonly stepId: string
  readonly path: readonly string[]
  readonly attempt: number
  readonly final: boolean
  readonly error: WireErrorShape
}

/**
 * A graph run (or nested graph) ended: `completed`, `failed` or `cancelled`.
 *
 * @category protocol
 */
export interface GraphCompletedEvent extends Base<'GRAPH_COMPLETED'> {
  readonly sessionId: string
  readonly runId: string
  readonly graphId: string
  readonly path: readonly string[]
  readonly status: 'completed' | 'failed' | 'cancelled'
  readonly durationMs: number
  readonly error?: WireErrorShape
}

/** The variant of a network run's event whose `type` is `K`. */
type Variant<K> = NetworkEvent extends infer E
  ? E extends { readonly type: infer T }
    ? K extends T
      ? E
      : never
    : never
  : never

/**
 * An event of a network run (`CREATE_NETWORK`): the run's own event under
 * its protocol name, with the network's id and the session it was created
 * in in place of the run id.
 *
 * @category protocol
 */
export type NetworkEngineEvent = {
  readonly [K in keyof NetworkNames]: Omit<Variant<K>, 'type' | 'runId'> &
    Base<NetworkNames[K]> & { readonly sessionId: string; readonly networkId: string }
}[keyof NetworkNames]

/**
 * An error no call answers: a `RUN_COMMAND` that failed, a history write
 * that failed. `nodeId` when it is about a node.
 *
 * @category protocol
 */
export interface ErrorEvent extends Base<'ERROR'> {
  readonly sessionId?: string
  readonly nodeId?: string
  readonly error: WireErrorShape
}

/**
 * The engine is shutting down: the last event of every subscription.
 *
 * @category protocol
 */
export type ServerShutdownEvent = Base<'SERVER_SHUTDOWN'>

/**
 * The subscription's reader was slower than its events: `dropped` events
 * (the oldest) were left out just before this one.
 *
 * @category protocol
 */
export interface LaggedEvent extends Base<'LAGGED'> {
  readonly dropped: number
}

/**
 * Every event the engine sends, in `{"method":"EVENT","params":{subscription,event}}`.
 *
 * @category protocol
 */
export type EngineEvent =
  | NodeEvent
  | OutputChunk
  | OutputParsed
  | GraphStartedEvent
  | StepStartedEvent
  | StepCompletedEvent
  | StepFailedEvent
  | GraphCompletedEvent
  | NetworkEngineEvent
  | ErrorEvent
  | ServerShutdownEvent
  | LaggedEvent

/**
 * The params of an `EVENT` notification.
 *
 * @category protocol
 */
export interface EventParams {
  readonly subscription: string
  readonly event: EngineEvent
}
