export type {
  CallOptions,
  ModelDelta,
  ModelRequest,
  ModelResponse,
  Provider,
  ToolChoice,
} from './Provider.js'
export {
  ProviderError,
  ProviderHttpError,
  ProviderMalformed,
  ProviderNetworkError,
  ProviderStreamCut,
  ProviderTimeout,
} from './ProviderError.js'
export type { RetryNotice, ModelRetryOptions } from './retry.js'
export { AgentFailed, runAgent } from './agent.js'
export type { AgentOptions, AgentResult } from './agent.js'
export { llmInterpreter } from './llmInterpreter.js'
export { isLlmChunk, isThinkingChunk } from './chunks.js'
export type { LlmChunk, ThinkingChunk, ToolCallChunk, ToolResultChunk } from './chunks.js'
export { subAgent } from './subAgent.js'
export type { SubAgentOptions } from './subAgent.js'
export type { LlmInterpreter, LlmInterpreterOptions, LlmState } from './llmInterpreter.js'
export { providerFromEnv } from './env.js'
export type { Pricing, ProviderOptions } from './httpProvider.js'
export { anthropic, anthropicRequest, anthropicResponse } from './anthropic.js'
export type { AnthropicMessage, AnthropicOptions, AnthropicRequestBody } from './anthropic.js'
export { gemini, geminiRequest, geminiResponse } from './gemini.js'
export type { GeminiContent, GeminiOptions, GeminiPart, GeminiRequestBody } from './gemini.js'
export {
  openaiResponses,
  openaiResponsesRequest,
  openaiResponsesResponse,
} from './openaiResponses.js'
export type {
  OpenAIResponsesBody,
  OpenAIResponsesOptions,
  ResponsesInputItem,
  ResponsesPart,
} from './openaiResponses.js'
export { openaiChat, openaiChatRequest, openaiChatResponse } from './openaiChat.js'
export type {
  ChatMessage,
  ChatPart,
  ChatToolCall,
  OpenAIChatBody,
  OpenAIChatOptions,
} from './openaiChat.js'
