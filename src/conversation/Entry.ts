import type { Vertex } from '../dag/Vertex.js'

/**
 * Entries and content blocks keep the field names of the wire formats they
 * come from (Anthropic Messages, nano-agent files), so a conversation is JSON
 * as it is and maps to providers without renaming.
 */

/** @category blocks */
export interface TextBlock {
  readonly type: 'text'
  readonly text: string
}

/** Visible model reasoning, with the provider's signature. @category blocks */
export interface ThinkingBlock {
  readonly type: 'thinking'
  readonly thinking: string
  readonly signature: string
}

/** Encrypted reasoning: opaque data the provider wants back verbatim. @category blocks */
export interface RedactedThinkingBlock {
  readonly type: 'redacted_thinking'
  readonly data: string
}

/** @category blocks */
export interface ToolUseBlock {
  readonly type: 'tool_use'
  readonly id: string
  readonly name: string
  readonly input: Readonly<Record<string, unknown>>
}

/** @category blocks */
export interface ImageBlock {
  readonly type: 'image'
  readonly source: {
    readonly type: 'base64'
    readonly media_type: string
    readonly data: string
  }
}

/** Content a tool result may carry. @category blocks */
export type ToolResultContent = string | readonly (TextBlock | ImageBlock)[]

/** @category blocks */
export interface ToolResultBlock {
  readonly type: 'tool_result'
  readonly tool_use_id: string
  readonly content: ToolResultContent
  readonly is_error?: boolean
}

/** A summary that replaced earlier context. @category blocks */
export interface CompactionBlock {
  readonly type: 'compaction'
  readonly content: string
}

/**
 * A block of a type this library does not know, kept verbatim so that saving
 * writes it back unchanged.
 *
 * @category blocks
 */
export interface UnknownBlock {
  readonly type: 'unknown'
  readonly raw: Readonly<Record<string, unknown>> & { readonly type: string }
}

/** @category blocks */
export type Block =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ToolResultBlock
  | ImageBlock
  | CompactionBlock
  | UnknownBlock

/** @category entries */
export type Role = 'user' | 'assistant'

/** @category entries */
export type Content = string | readonly Block[]

/** @category entries */
export interface SystemPrompt {
  readonly type: 'system_prompt'
  readonly content: string
}

/** @category entries */
export interface ToolDefinition {
  readonly name: string
  readonly description: string
  readonly input_schema: Readonly<Record<string, unknown>>
}

/** @category entries */
export interface ToolDefinitions {
  readonly type: 'tool_definitions'
  readonly tools: readonly ToolDefinition[]
}

/** @category entries */
export interface Message {
  readonly type: 'message'
  readonly role: Role
  readonly content: Content
}

/** The recorded run of one tool call. @category entries */
export interface ToolExecution {
  readonly type: 'tool_execution'
  readonly tool_name: string
  readonly tool_use_id: string
  readonly result: ToolResultContent
  readonly is_error: boolean
}

/**
 * Token usage. The first four are Anthropic's names; `reasoning_tokens`,
 * `cached_tokens` and `total_tokens` carry what other providers report.
 *
 * @category entries
 */
export interface Usage {
  readonly input_tokens: number
  readonly output_tokens: number
  readonly cache_creation_input_tokens: number
  readonly cache_read_input_tokens: number
  readonly reasoning_tokens?: number
  readonly cached_tokens?: number
  readonly total_tokens?: number
}

/** @category entries */
export interface StopReason {
  readonly type: 'stop_reason'
  readonly reason: string
  readonly usage: Usage
}

/**
 * A nested conversation, such as a sub-agent's run, recorded as one entry
 * (nano-agent's `sub_graph`).
 *
 * @category entries
 */
export interface SubConversation {
  readonly type: 'sub_conversation'
  readonly tool_name: string
  readonly tool_use_id: string
  readonly system_prompt: string
  readonly heads: readonly Conversation[]
  readonly summary: string
  readonly depth: number
}

/** @category entries */
export type Entry =
  SystemPrompt | ToolDefinitions | Message | ToolExecution | StopReason | SubConversation

/**
 * A conversation is its head vertex; its history is its ancestors.
 *
 * @category model
 */
export type Conversation = Vertex<Entry>

/**
 * Where builders, projections and renderings start from: one head, or
 * several heads at once (parallel branches; an empty array is no conversation yet).
 *
 * @category model
 */
export type Heads = Conversation | readonly Conversation[]

/** The usage with every count at zero. @category entries */
export const zeroUsage: Usage = Object.freeze({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
})
