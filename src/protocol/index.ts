export { codeName, ErrorCode, ProtocolError, protocolError } from './errors.js'
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
  nodeKinds,
  paramsCodecs,
} from './methods.js'
export type { CreateKind, Method, Params } from './methods.js'
export { eventTypes, EventTypeCodec, networkEventNames } from './events.js'
export type {
  EngineEvent,
  ErrorEvent,
  EventParams,
  EventType,
  GraphCompletedEvent,
  GraphStartedEvent,
  LaggedEvent,
  NetworkEngineEvent,
  NodeEvent,
  OutputChunk,
  OutputParsed,
  ServerShutdownEvent,
  StepCompletedEvent,
  StepFailedEvent,
  StepStartedEvent,
  WireErrorShape,
} from './events.js'
export type {
  ForkResult,
  HistoryEntry,
  NetworkInfo,
  NetworkPatches,
  Results,
  RunInfo,
  RunSummary,
  RunStateName,
  SessionSummary,
  TraceJson,
  TraceStep,
} from './results.js'
export { describeError, errorPath, MAX_DEPTH } from './codec.js'
