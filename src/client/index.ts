/**
 * The SDK: `NerveClient` (Unix socket, TCP, HTTP/WebSocket, in-process),
 * `RemoteNode`, `RemoteRun`, subscriptions and typed errors.
 *
 * @packageDocumentation
 */
export { NerveClient, type TokenOptions } from './NerveClient.js'
export type { CallOptions, Calls, SubscribeFilter } from './Calls.js'
export {
  RemoteNode,
  type ExecuteOptions,
  type HistoryQuery,
  type StreamItem,
} from './RemoteNode.js'
export { RemoteRun } from './RemoteRun.js'
export { RemoteNetwork } from './RemoteNetwork.js'
export { Subscription, DEFAULT_MAX_QUEUED } from './Subscription.js'
export { ConnectionError } from './ConnectionError.js'
export { ProtocolError, ErrorCode } from '../server/index.js'
