import type { ToolResultContent } from '../../conversation/Entry.js'

/**
 * The step chunks an LLM node emits while it runs a turn, beside the
 * answer's text (plain strings): its visible reasoning, each tool call when
 * the model asks for it and each tool's result when it finishes. A face tells them apart
 * by `type`; one that knows none of them can show the strings alone.
 *
 * @internal
 */

/**
 * A piece of the model's visible reasoning, streamed while it answers.
 *
 * @category llm
 */
export interface ThinkingChunk {
  readonly type: 'thinking'
  readonly text: string
}

/**
 * The model asked for a tool: emitted before the tool runs.
 *
 * @category llm
 */
export interface ToolCallChunk {
  readonly type: 'tool_call'
  /** The tool use id, which its {@link ToolResultChunk} repeats. */
  readonly id: string
  readonly name: string
  readonly input: unknown
}

/**
 * A tool call finished (or was cancelled, or not run): its result as the
 * model sees it.
 *
 * @category llm
 */
export interface ToolResultChunk {
  readonly type: 'tool_result'
  readonly id: string
  readonly name: string
  readonly content: ToolResultContent
  readonly isError: boolean
}

/**
 * Every typed chunk of an LLM node (its text comes as plain strings).
 *
 * @category llm
 */
export type LlmChunk = ThinkingChunk | ToolCallChunk | ToolResultChunk

const typeOf = (u: unknown): unknown =>
  typeof u === 'object' && u !== null ? (u as { type?: unknown }).type : undefined

/**
 * Whether a step chunk is a {@link ThinkingChunk}.
 *
 * @category llm
 * @example
 * import { isThinkingChunk } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * assert.strictEqual(isThinkingChunk({ type: 'thinking', text: 'hm' }), true)
 * assert.strictEqual(isThinkingChunk('an answer'), false)
 */
export const isThinkingChunk = (u: unknown): u is ThinkingChunk =>
  typeOf(u) === 'thinking' && typeof (u as { text?: unknown }).text === 'string'

/**
 * Whether a step chunk is one of an LLM node's typed chunks ({@link LlmChunk}).
 *
 * @category llm
 * @example
 * import { isLlmChunk } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * assert.strictEqual(isLlmChunk({ type: 'tool_call', id: 't1', name: 'read', input: {} }), true)
 * assert.strictEqual(isLlmChunk({ type: 'other' }), false)
 */
export const isLlmChunk = (u: unknown): u is LlmChunk => {
  switch (typeOf(u)) {
    case 'thinking':
      return isThinkingChunk(u)
    case 'tool_call':
    case 'tool_result':
      return typeof (u as { id?: unknown }).id === 'string'
    default:
      return false
  }
}
