/**
 * The protocol every face speaks: the io-ts codecs of each command's params
 * and result and of the events, the JSON-RPC 2.0 framing, the error codes.
 * Pure: it imports no engine, no native addon, no Node.js builtin.
 *
 * @packageDocumentation
 */
export {
  categoryCodes,
  categoryOfCode,
  codeName,
  ErrorCode,
  ProtocolError,
  protocolError,
} from './errors.js'
export type { ErrorData, WireError } from './errors.js'
export { errorLine, notificationLine, readMessage, requestLine, resultLine } from './jsonrpc.js'
export type { Incoming, RequestId, Response } from './jsonrpc.js'
export {
  CANCEL_REQUEST,
  CancelParamsCodec,
  EVENT,
  isMethod,
  methods,
  NameCodec,
  paramsCodecs,
} from './methods.js'
export type { Method, Params } from './methods.js'
export {
  EngineEventCodec,
  ErrorEventCodec,
  EventParamsCodec,
  eventTypes,
  EventTypeCodec,
  GraphCompletedEventCodec,
  GraphStartedEventCodec,
  LaggedEventCodec,
  NetworkCreatedEventCodec,
  NetworkEngineEventCodec,
  networkEventNames,
  NodeEventCodec,
  OutputChunkCodec,
  OutputParsedCodec,
  RunNodeRespawnedEventCodec,
  runEventTypes,
  ServerShutdownEventCodec,
  SessionClosedEventCodec,
  SessionCreatedEventCodec,
  StepCompletedEventCodec,
  StepFailedEventCodec,
  StepStartedEventCodec,
} from './events.js'
export type {
  EngineEvent,
  ErrorEvent,
  EventParams,
  EventType,
  GraphCompletedEvent,
  GraphStartedEvent,
  LaggedEvent,
  NetworkCreatedEvent,
  NetworkEngineEvent,
  NodeEvent,
  OutputChunk,
  OutputParsed,
  RunNodeRespawnedEvent,
  ServerShutdownEvent,
  SessionClosedEvent,
  SessionCreatedEvent,
  StepCompletedEvent,
  StepFailedEvent,
  StepStartedEvent,
} from './events.js'
export { NodeStateCodec, PatchCodec, WireErrorShapeCodec } from './parts.js'
export type { WireErrorShape } from './parts.js'
export {
  ApprovalDecidedEventCodec,
  ApprovalDecisionCodec,
  ApprovalRequestCodec,
  ApprovalRequestedEventCodec,
  ListApprovalsCodec,
} from './approvals.js'
export type {
  ApprovalDecidedEvent,
  ApprovalDecisionJson,
  ApprovalRequestedEvent,
  ApprovalRequestJson,
} from './approvals.js'
export {
  EnvelopeCodec,
  ForkResultCodec,
  HistoryEntryCodec,
  InboxInfoCodec,
  KindInfoCodec,
  NetworkInfoCodec,
  NetworkPatchesCodec,
  NetworkValueCodec,
  NodeInfoCodec,
  resultCodecs,
  RunInfoCodec,
  RunStateNameCodec,
  RunSummaryCodec,
  SessionSummaryCodec,
  TraceJsonCodec,
} from './results.js'
export type {
  ForkResult,
  HistoryEntry,
  KindInfo,
  NetworkInfo,
  NetworkPatches,
  Results,
  RunInfo,
  RunStateName,
  RunSummary,
  SessionSummary,
  TraceJson,
  TraceStep,
} from './results.js'
export { describeError, errorPath, MAX_DEPTH, ParamsType } from './codec.js'
export {
  ChatBranchCodec,
  ChatCreatedEventCodec,
  ChatEngineEventCodec,
  chatEventNames,
  ChatInfoCodec,
  ChatTurnCodec,
} from './chat.js'
export type {
  ChatCreatedEvent,
  ChatEngineEvent,
  ChatEventName,
  ChatInfo,
  ChatTurnInfo,
} from './chat.js'
export {
  RecordingSummaryCodec,
  SavedNodeCodec,
  SavedSessionCodec,
  storeParamsCodecs,
  storeResultCodecs,
} from './store.js'
export type { RecordingSummary, SavedNode, SavedSession } from './store.js'
export { jsonSchemaOf, type JsonSchema } from '../codec/index.js'
export { RefinedType } from './parts.js'
