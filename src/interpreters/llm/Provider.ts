import type { Block, Message, ToolDefinition, Usage } from '../../conversation/Entry.js'
import type { ToolChoice } from '../../node/LlmNode.js'

export type { ToolChoice } from '../../node/LlmNode.js'

/**
 * One call to a model, independent of the provider: what the agent loop asks
 * and what each provider maps to its own request body.
 *
 * @category providers
 */
export interface ModelRequest {
  /** The provider's model name. Default: the provider's. */
  readonly model?: string
  /** The system prompt; `''` for none. */
  readonly system: string
  /** The conversation's messages, in causal order. */
  readonly messages: readonly Message[]
  readonly tools: readonly ToolDefinition[]
  /** Default: `auto`. */
  readonly toolChoice?: ToolChoice
  /** Whether the model may ask for several tools in one turn. Default: true. */
  readonly parallelToolCalls?: boolean
  /** The most output tokens. Default: the provider's. */
  readonly maxTokens?: number
  readonly temperature?: number
}

/**
 * A model's answer: one assistant message's blocks, why it stopped, and what
 * the call cost.
 *
 * @category providers
 */
export interface ModelResponse {
  readonly content: readonly Block[]
  /**
   * Normalised to Anthropic's names: `end_turn`, `tool_use`, `max_tokens`,
   * `stop_sequence`, `refusal`, … (unknown reasons pass through).
   */
  readonly stopReason: string
  readonly usage: Usage
  /** In the provider's currency unit, when it can tell. */
  readonly cost?: number
  /** The model that answered, as the provider names it. */
  readonly model?: string
}

/**
 * Something a provider reports while a streamed answer comes in.
 *
 * @category providers
 */
export type ModelDelta =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thinking'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string }

/**
 * What a provider call receives besides the request.
 *
 * @category providers
 */
export interface CallOptions {
  /** Aborting rejects the call at once with the signal's reason. */
  readonly signal: AbortSignal
  /**
   * Whether `signal` is aborted, when the caller can tell without making
   * it: the agent loop in a runtime step makes the step's signal only when
   * read, so a provider that needs it only to check, not to wait on,
   * reads this (`call.aborted ?? call.signal.aborted`).
   */
  readonly aborted?: boolean
  /** Called for each delta of a streamed answer (providers that do not stream never call it). */
  readonly onDelta?: (delta: ModelDelta) => void
}

/**
 * A model provider: the interpreter of model calls. It maps a
 * {@link ModelRequest} to its protocol and the answer back, and throws a
 * {@link ProviderError} when the call fails. It does not retry: the agent
 * loop does.
 *
 * @category providers
 */
export interface Provider {
  /** Names the provider in errors and traces (`'anthropic'`, `'scripted'`, …). */
  readonly name: string
  call(request: ModelRequest, options: CallOptions): Promise<ModelResponse>
}
