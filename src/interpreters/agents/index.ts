export { claudeBinary, claudeEnv, prepareClaudeHome } from './claudeCode.js'
export type { ClaudeHomeOptions } from './claudeCode.js'
export { anthropicMessages } from './proxy/anthropicMessages.js'
export { openaiResponsesProtocol } from './proxy/openaiResponsesProtocol.js'
export { geminiProtocol } from './proxy/geminiProtocol.js'
export {
  CODEX_KEY_VARIABLE,
  codexBinary,
  codexConfig,
  codexEnv,
  codexOverrides,
  prepareCodexHome,
} from './codexCli.js'
export type { CodexHomeOptions } from './codexCli.js'
export { geminiBinary, geminiEnv, prepareGeminiHome } from './geminiCli.js'
export type { GeminiHomeOptions } from './geminiCli.js'
export {
  AgentSessionMissing,
  codexSessionId,
  forkCodexHome,
  forkGeminiHome,
  geminiSessionId,
} from './agentSessions.js'
export { approvalKeys, openAgentPty } from './agentPty.js'
export type { AgentProgram, AgentPtyOptions, AgentPtyTerminal } from './agentPty.js'
export { startModelProxy, TapeExhausted } from './proxy/modelProxy.js'
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
