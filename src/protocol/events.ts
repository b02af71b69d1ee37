import * as t from 'io-ts'
import type { NetworkEvent } from '../network/index.js'
import { chatEventNames, ChatCreatedEventCodec, ChatEngineEventCodec } from './chat.js'
import { ApprovalDecidedEventCodec, ApprovalRequestedEventCodec } from './approvals.js'
import { literals, NodeStateCodec, struct, WireErrorShapeCodec } from './parts.js'
import { NetworkInfoCodec } from './networkInfo.js'
import { SessionSummaryCodec } from './sessionInfo.js'

/**
 * The protocol's name of each network run event: an envelope sent along an
 * edge, a firing starting and ending, a node reaching Done, a live edit
 * (with its patches), a halt (stall, iterations, budget), an approval asked
 * and decided, a policy refusal, a node's terminal respawned, pause and
 * resume, the end.
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
  respawned: 'NETWORK_NODE_RESPAWNED',
  paused: 'NETWORK_PAUSED',
  resumed: 'NETWORK_RESUMED',
  finished: 'NETWORK_COMPLETED',
} as const)

type NetworkNames = typeof networkEventNames

/**
 * The events of a graph run, each with its `runId`: the graph's and its
 * steps', and a node the run started itself started again.
 *
 * @category protocol
 */
export const runEventTypes = Object.freeze([
  'GRAPH_STARTED',
  'STEP_STARTED',
  'STEP_COMPLETED',
  'STEP_FAILED',
  'GRAPH_COMPLETED',
  'RUN_NODE_RESPAWNED',
] as const)

/**
 * The event types, in the Nerve PRD's names. Node lifecycle events come
 * from the session's own events, run events from the runtime's, output
 * events from the executes the engine runs; a session opened
 * (`CREATE_SESSION`) and closed is announced; `LAGGED` tells a slow reader
 * how many events it missed, `SERVER_SHUTDOWN` is the last event.
 *
 * @category protocol
 */
export const eventTypes = Object.freeze([
  'SESSION_CREATED',
  'SESSION_CLOSED',
  'NODE_CREATED',
  'NODE_READY',
  'NODE_BUSY',
  'NODE_RESPAWNED',
  'NODE_STOPPED',
  'NODE_FORKED',
  'NODE_DELETED',
  'OUTPUT_CHUNK',
  'OUTPUT_PARSED',
  ...runEventTypes,
  'NETWORK_CREATED',
  ...Object.values(networkEventNames),
  'CHAT_CREATED',
  ...Object.values(chatEventNames),
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

const str = t.string
const path = t.readonlyArray(t.string)

/** What every event has: its type and when it happened (ISO 8601). */
const base = <T extends EventType>(type: T) => ({ type: t.literal(type), time: str })

/** An event about one node of one session. */
const nodeBase = <T extends EventType>(type: T) => ({
  ...base(type),
  sessionId: str,
  nodeId: str,
})

/**
 * A session opened (`CREATE_SESSION`): its id, and the session as
 * `LIST_SESSIONS` lists it, so a reader learns of it before its first node.
 *
 * @category protocol
 */
export const SessionCreatedEventCodec = struct('SESSION_CREATED', {
  ...base('SESSION_CREATED'),
  sessionId: str,
  session: SessionSummaryCodec,
})

/**
 * A session opened.
 *
 * @category protocol
 */
export type SessionCreatedEvent = t.TypeOf<typeof SessionCreatedEventCodec>

/**
 * A session closed (`CLOSE_SESSION`): its nodes were stopped and it is
 * gone from `LIST_SESSIONS`.
 *
 * @category protocol
 */
export const SessionClosedEventCodec = struct('SESSION_CLOSED', {
  ...base('SESSION_CLOSED'),
  sessionId: str,
})

/**
 * A session closed.
 *
 * @category protocol
 */
export type SessionClosedEvent = t.TypeOf<typeof SessionClosedEventCodec>

const nodeEventTypes = [
  'NODE_CREATED',
  'NODE_READY',
  'NODE_BUSY',
  'NODE_RESPAWNED',
  'NODE_STOPPED',
  'NODE_FORKED',
  'NODE_DELETED',
] as const

/**
 * A node's lifecycle moved: registered (`NODE_CREATED`), started
 * (`NODE_READY`, also when an execute ends), executing (`NODE_BUSY`),
 * started again in place of a program that exited (`NODE_RESPAWNED`, on
 * the next execute; `state` unchanged), stopped, forked (with `from`, the source's id) or deleted. `kind` is the
 * node's kind.
 *
 * @category protocol
 */
export const NodeEventCodec = struct(
  'NodeEvent',
  {
    type: literals('NodeEventType', nodeEventTypes),
    time: str,
    sessionId: str,
    nodeId: str,
    kind: str,
    state: NodeStateCodec,
  },
  { from: str },
)

/**
 * A node's lifecycle moved.
 *
 * @category protocol
 */
export type NodeEvent = t.TypeOf<typeof NodeEventCodec>

/**
 * A piece of output while a node executes (a terminal's text as it comes,
 * a bash command's stdout/stderr chunk, a step's emitted value). In a graph
 * run, `runId` and `stepId` say which step.
 *
 * @category protocol
 */
export const OutputChunkCodec = struct(
  'OUTPUT_CHUNK',
  { ...nodeBase('OUTPUT_CHUNK'), chunk: t.unknown },
  { runId: str, stepId: str },
)

/**
 * A piece of output while a node executes.
 *
 * @category protocol
 */
export type OutputChunk = t.TypeOf<typeof OutputChunkCodec>

/**
 * The answer of an execute (`EXECUTE_INPUT`, `RUN_COMMAND`): a terminal's
 * parsed response, a bash result, a model's text. An event tells every
 * subscriber, so a text in the answer longer than 64 KiB is cut to its last
 * 64 KiB and `truncated` is set: the whole answer is `EXECUTE_INPUT`'s
 * result, and its text came whole as `OUTPUT_CHUNK`s.
 *
 * @category protocol
 */
export const OutputParsedCodec = struct(
  'OUTPUT_PARSED',
  { ...nodeBase('OUTPUT_PARSED'), output: t.unknown },
  { truncated: t.literal(true) },
)

/**
 * The answer of an execute.
 *
 * @category protocol
 */
export type OutputParsed = t.TypeOf<typeof OutputParsedCodec>

const run = { sessionId: str, runId: str }

/**
 * A graph run (or a nested graph, `path` = the step running it) started.
 *
 * @category protocol
 */
export const GraphStartedEventCodec = struct('GRAPH_STARTED', {
  ...base('GRAPH_STARTED'),
  ...run,
  graphId: str,
  path,
})

/**
 * A graph run started.
 *
 * @category protocol
 */
export type GraphStartedEvent = t.TypeOf<typeof GraphStartedEventCodec>

/**
 * An attempt of a step started.
 *
 * @category protocol
 */
export const StepStartedEventCodec = struct('STEP_STARTED', {
  ...base('STEP_STARTED'),
  ...run,
  stepId: str,
  path,
  nodeId: str,
  attempt: t.number,
})

/**
 * An attempt of a step started.
 *
 * @category protocol
 */
export type StepStartedEvent = t.TypeOf<typeof StepStartedEventCodec>

/**
 * A step finished with a value (`status`: completed, skipped or fallback).
 * A text in `output` longer than 64 KiB keeps its last 64 KiB and
 * `truncated` is set, as in `OUTPUT_PARSED`: `GET_RUN` has the results whole.
 *
 * @category protocol
 */
export const StepCompletedEventCodec = struct(
  'STEP_COMPLETED',
  {
    ...base('STEP_COMPLETED'),
    ...run,
    stepId: str,
    path,
    status: str,
    output: t.unknown,
    durationMs: t.number,
  },
  { truncated: t.literal(true) },
)

/**
 * A step finished with a value.
 *
 * @category protocol
 */
export type StepCompletedEvent = t.TypeOf<typeof StepCompletedEventCodec>

/**
 * An attempt of a step failed; `final`: no attempt follows.
 *
 * @category protocol
 */
export const StepFailedEventCodec = struct('STEP_FAILED', {
  ...base('STEP_FAILED'),
  ...run,
  stepId: str,
  path,
  attempt: t.number,
  final: t.boolean,
  error: WireErrorShapeCodec,
})

/**
 * An attempt of a step failed.
 *
 * @category protocol
 */
export type StepFailedEvent = t.TypeOf<typeof StepFailedEventCodec>

/**
 * A node the run started itself (no session holds it) was started again
 * for the step at `path`, its handle no longer alive (a terminal whose
 * program exited).
 *
 * @category protocol
 */
export const RunNodeRespawnedEventCodec = struct('RUN_NODE_RESPAWNED', {
  ...base('RUN_NODE_RESPAWNED'),
  ...run,
  path,
  nodeId: str,
  kind: str,
})

/**
 * A node the run started itself was started again.
 *
 * @category protocol
 */
export type RunNodeRespawnedEvent = t.TypeOf<typeof RunNodeRespawnedEventCodec>

/**
 * A graph run (or nested graph) ended: `completed`, `failed` or `cancelled`.
 *
 * @category protocol
 */
export const GraphCompletedEventCodec = struct(
  'GRAPH_COMPLETED',
  {
    ...base('GRAPH_COMPLETED'),
    ...run,
    graphId: str,
    path,
    status: literals('GraphStatus', ['completed', 'failed', 'cancelled']),
    durationMs: t.number,
  },
  { error: WireErrorShapeCodec },
)

/**
 * A graph run (or nested graph) ended.
 *
 * @category protocol
 */
export type GraphCompletedEvent = t.TypeOf<typeof GraphCompletedEventCodec>

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
  readonly [K in keyof NetworkNames]: Omit<Variant<K>, 'type' | 'runId'> & {
    readonly type: NetworkNames[K]
    readonly time: string
  } & { readonly sessionId: string; readonly networkId: string }
}[keyof NetworkNames]

/**
 * The codec of a network run's event: its protocol name, the network and
 * session it belongs to, when; the rest is the run's own event (see
 * {@link NetworkEngineEvent}) and passes as it is.
 *
 * @category protocol
 */
export const NetworkEngineEventCodec = struct('NetworkEngineEvent', {
  type: literals('NetworkEventType', Object.values(networkEventNames)),
  time: str,
  sessionId: str,
  networkId: str,
}) as unknown as t.Type<NetworkEngineEvent, NetworkEngineEvent>

/**
 * A network run started (`CREATE_NETWORK`): its id, the session it was
 * created in, and the network as the network commands answer it, so a
 * reader learns of it before its first event.
 *
 * @category protocol
 */
export const NetworkCreatedEventCodec = struct('NETWORK_CREATED', {
  ...base('NETWORK_CREATED'),
  sessionId: str,
  networkId: str,
  info: NetworkInfoCodec,
})

/**
 * A network run started.
 *
 * @category protocol
 */
export type NetworkCreatedEvent = t.TypeOf<typeof NetworkCreatedEventCodec>

/**
 * An error no call answers: a `RUN_COMMAND` that failed, a history write
 * that failed. `nodeId` when it is about a node.
 *
 * @category protocol
 */
export const ErrorEventCodec = struct(
  'ERROR',
  { ...base('ERROR'), error: WireErrorShapeCodec },
  { sessionId: str, nodeId: str },
)

/**
 * An error no call answers.
 *
 * @category protocol
 */
export type ErrorEvent = t.TypeOf<typeof ErrorEventCodec>

/**
 * The engine is shutting down: the last event of every subscription.
 *
 * @category protocol
 */
export const ServerShutdownEventCodec = struct('SERVER_SHUTDOWN', base('SERVER_SHUTDOWN'))

/**
 * The engine is shutting down.
 *
 * @category protocol
 */
export type ServerShutdownEvent = t.TypeOf<typeof ServerShutdownEventCodec>

/**
 * The subscription's reader was slower than its events: `dropped` events
 * (the oldest) were left out just before this one.
 *
 * @category protocol
 */
export const LaggedEventCodec = struct('LAGGED', { ...base('LAGGED'), dropped: t.number })

/**
 * The subscription's reader was slower than its events.
 *
 * @category protocol
 */
export type LaggedEvent = t.TypeOf<typeof LaggedEventCodec>

/**
 * The codec of every event the engine sends.
 *
 * @category protocol
 */
export const EngineEventCodec = t.union(
  [
    SessionCreatedEventCodec,
    SessionClosedEventCodec,
    NodeEventCodec,
    OutputChunkCodec,
    OutputParsedCodec,
    GraphStartedEventCodec,
    StepStartedEventCodec,
    StepCompletedEventCodec,
    StepFailedEventCodec,
    GraphCompletedEventCodec,
    RunNodeRespawnedEventCodec,
    NetworkCreatedEventCodec,
    NetworkEngineEventCodec,
    ChatCreatedEventCodec,
    ChatEngineEventCodec,
    ApprovalRequestedEventCodec,
    ApprovalDecidedEventCodec,
    ErrorEventCodec,
    ServerShutdownEventCodec,
    LaggedEventCodec,
  ],
  'EngineEvent',
)

/**
 * Every event the engine sends, in `{"method":"EVENT","params":{subscription,event}}`.
 *
 * @category protocol
 */
export type EngineEvent = t.TypeOf<typeof EngineEventCodec>

/**
 * The codec of the params of an `EVENT` notification.
 *
 * @category protocol
 */
export const EventParamsCodec = struct('EVENT', {
  subscription: str,
  event: EngineEventCodec,
})

/**
 * The params of an `EVENT` notification.
 *
 * @category protocol
 */
export type EventParams = t.TypeOf<typeof EventParamsCodec>
