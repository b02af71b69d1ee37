export { claudeBinary, claudeEnv, prepareClaudeHome } from './claudeCode.js'
export type { ClaudeHomeOptions } from './claudeCode.js'
export { anthropicMessages } from './proxy/anthropicMessages.js'
export { startModelProxy } from './proxy/modelProxy.js'
export type {
  ModelProxy,
  ModelProxyOptions,
  ProxyBudget,
  ProxyUpstream,
} from './proxy/modelProxy.js'
export { ProxyCallCodec } from './proxy/ProxyCall.js'
export type { AgentUsage, ProxyCall } from './proxy/ProxyCall.js'
export { ProxyRequestInvalid } from './proxy/ProxyProtocol.js'
export type {
  AnswerReader,
  DecodedCall,
  EncodedResponse,
  ProxyProtocol,
} from './proxy/ProxyProtocol.js'
