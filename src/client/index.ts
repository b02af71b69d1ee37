/**
 * The SDK: `NerveClient` (Unix socket, TCP, HTTP/WebSocket), `RemoteNode`,
 * `RemoteRun`, subscriptions and typed errors. It loads the protocol and
 * the transports only: no engine, no native addon. A client on an engine
 * in this process is `nerve-agents/server`'s `standaloneClient` and
 * `inProcessClient`.
 *
 * @packageDocumentation
 */
export {
  NerveClient,
  type ApprovalAnswer,
  type ApprovalFilter,
  type TokenOptions,
} from './NerveClient.js'
export type { CallOptions, Calls, SubscribeFilter } from './Calls.js'
export {
  RemoteNode,
  type ExecuteOptions,
  type HistoryQuery,
  type StreamItem,
} from './RemoteNode.js'
export { RemoteRun } from './RemoteRun.js'
export { RemoteNetwork } from './RemoteNetwork.js'
export { RemoteChat, RemoteTurn, type ChatMessage } from './RemoteChat.js'
export { Subscription, DEFAULT_MAX_QUEUED } from './Subscription.js'
export { ConnectionError } from './ConnectionError.js'
export { MalformedResult } from './MalformedResult.js'
export { LineReader, DEFAULT_MAX_LINE_BYTES, LINE_ENDS, type LineHandlers } from './LineReader.js'
export { defaultDaemonDir, defaultSocketPath, socketIsLive } from './daemonDir.js'
export {
  postWire,
  streamWire,
  webSocketWire,
  type Wire,
  type WireHandlers,
  type WireOpener,
} from './wire.js'
export { ProtocolError, ErrorCode } from '../protocol/index.js'
