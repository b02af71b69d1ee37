export { createEngine } from './Engine.js'
export type { Engine } from './Engine.js'
export type { ConnectionSink, EngineConnection } from './Connection.js'
export type { EngineHistory, EngineLimits, EngineOptions, SessionRestored } from './options.js'
export { echoProvider } from './echoProvider.js'
export {
  DefaultSession,
  EngineError,
  GraphFileInvalid,
  InvalidOptions,
  LimitReached,
  NoStore,
  NotATerminal,
  RequestCancelled,
  RequestTimeout,
  SessionExists,
  ShuttingDown,
  toWireError,
  UnknownKind,
  UnknownProvider,
  UnknownRun,
  UnknownSession,
  UnknownSubscription,
} from './errors.js'
export {
  InvalidPatch,
  NetworkExists,
  NetworkFileInvalid,
  UnknownNetwork,
  UnknownNetworkNode,
} from './networks.js'
export { UnknownApproval } from './approvals.js'
export { inProcessClient, inProcessWire, standaloneClient } from './inProcessClient.js'
