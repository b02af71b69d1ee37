import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { Block, Message, Role, ToolDefinition, Usage } from '../../conversation/Entry.js'
import { isRecord, struct } from '../../conversation/codec/combinators.js'
import {
  RedactedThinkingBlockCodec,
  TextBlockCodec,
  ThinkingBlockCodec,
  ToolUseBlockCodec,
  type BlockJson,
  type RawBlock,
} from '../../conversation/codec/entry.js'
import { deepFreeze } from '../../dag/freeze.js'
import { alternate, decodeAnswer, orNull, parseEvent } from './decode.js'
import type { SseEvent } from './http.js'
import {
  apiKeyFrom,
  baseUrlOf,
  checkProviderOptions,
  httpProvider,
  isPositiveInteger,
  optionError,
  type CacheRates,
  type ProviderOptions,
} from './httpProvider.js'
import type { ModelDelta, ModelRequest, ModelResponse, Provider } from './Provider.js'
import { ProviderHttpError, ProviderMalformed, ProviderStreamCut } from './ProviderError.js'

const NAME = 'anthropic'

/**
 * How {@link anthropic} reaches the Anthropic Messages API: the common
 * {@link ProviderOptions} (defaults: the key in `ANTHROPIC_API_KEY`,
 * `baseUrl` `https://api.anthropic.com`, `model` `claude-sonnet-4-5`,
 * `maxTokens` 8192; `pricing` counts cache writes at 1.25 times and cache
 * reads at 0.1 times the input price), and extended thinking.
 *
 * @category providers
 */
export interface AnthropicOptions extends ProviderOptions {
  /** Extended thinking with a budget of tokens (less than `max_tokens`). Default: off. */
  readonly thinking?: { readonly budgetTokens: number }
}

/** A message of a Messages API request. @category providers */
export interface AnthropicMessage {
  readonly role: Role
  readonly content: string | readonly BlockJson[]
}

/** The body of a Messages API request, as {@link anthropicRequest} builds it. @category providers */
export interface AnthropicRequestBody {
  readonly model: string
  readonly max_tokens: number
  readonly messages: readonly AnthropicMessage[]
  readonly system?: string
  readonly tools?: readonly ToolDefinition[]
  readonly tool_choice?: {
    readonly type: 'auto' | 'any' | 'none' | 'tool'
    readonly name?: string
    readonly disable_parallel_tool_use?: true
  }
  readonly temperature?: number
  readonly thinking?: { readonly type: 'enabled'; readonly budget_tokens: number }
  readonly stream?: true
}

const DEFAULT_MODEL = 'claude-sonnet-4-5'
const DEFAULT_MAX_TOKENS = 8192

// Anthropic's signatures are base64. Other providers' reasoning that lands in a
// thinking block carries a signature with a `name:` prefix (Gemini's is
// `gemini:`), or none: Anthropic would reject either, so they are left out.
const ANTHROPIC_SIGNATURE = /^[A-Za-z0-9+/_-]+=*$/

const blank = (text: string): boolean => text.trim() === ''

/** A block as Anthropic takes it in a message of `role`, or nothing to leave it out. */
const keep = (b: Block, role: Role): Block | undefined => {
  switch (b.type) {
    case 'text':
      return blank(b.text) ? undefined : b
    case 'compaction':
      return blank(b.content) ? undefined : { type: 'text', text: b.content }
    case 'thinking':
      return role === 'assistant' && ANTHROPIC_SIGNATURE.test(b.signature) ? b : undefined
    case 'redacted_thinking':
      return role === 'assistant' && b.data !== '' ? b : undefined
    case 'tool_result':
      return typeof b.content === 'string'
        ? b
        : { ...b, content: b.content.filter((c) => c.type !== 'text' || !blank(c.text)) }
    default:
      return b
  }
}

/** The messages with the blocks Anthropic takes, none empty, roles alternating. */
const prepare = (messages: readonly Message[]): readonly Message[] =>
  alternate(
    messages.flatMap((m): Message[] => {
      if (typeof m.content === 'string') return blank(m.content) ? [] : [m]
      const blocks = m.content.flatMap((b) => keep(b, m.role) ?? [])
      return blocks.length === 0 ? [] : [{ ...m, content: blocks }]
    }),
  )

const wire = (m: Message): AnthropicMessage => {
  if (typeof m.content === 'string') return { role: m.role, content: m.content }
  const blocks = m.content.map((b): BlockJson => (b.type === 'unknown' ? b.raw : b))
  // Tool results must open the user message that carries them.
  const results = blocks.filter((b) => b.type === 'tool_result')
  const content =
    m.role === 'user' && results.length > 0
      ? [...results, ...blocks.filter((b) => b.type !== 'tool_result')]
      : blocks
  return { role: m.role, content }
}

/**
 * The Messages API body for a request: system prompt, tools and tool choice
 * (`parallelToolCalls: false` → `disable_parallel_tool_use`), messages joined
 * so that roles alternate, tool results first in their message. Blocks go as
 * they are, except: compaction → text; blank text left out; thinking blocks
 * whose signature is not Anthropic's (empty, or another provider's
 * `name:`-prefixed one) left out; reasoning in user messages left out;
 * unknown blocks sent as their `raw` object.
 *
 * @category providers
 * @example
 * import { anthropicRequest } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const body = anthropicRequest({
 *   system: 'Be brief.',
 *   messages: [{ type: 'message', role: 'user', content: 'hi' }],
 *   tools: [],
 * })
 * assert.strictEqual(body.system, 'Be brief.')
 * assert.deepStrictEqual(body.messages, [{ role: 'user', content: 'hi' }])
 */
export const anthropicRequest = (
  request: ModelRequest,
  options: AnthropicOptions = {},
): AnthropicRequestBody => {
  const choice = request.toolChoice ?? { type: 'auto' }
  const tools = request.tools.length > 0
  return {
    model: request.model ?? options.model ?? DEFAULT_MODEL,
    max_tokens: request.maxTokens ?? options.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...(request.system === '' ? {} : { system: request.system }),
    messages: prepare(request.messages).map(wire),
    ...(tools
      ? {
          tools: request.tools.map((d) => ({
            name: d.name,
            description: d.description,
            input_schema: d.input_schema,
          })),
          tool_choice: {
            ...(choice.type === 'tool'
              ? { type: 'tool', name: choice.name }
              : { type: choice.type }),
            ...(request.parallelToolCalls === false && choice.type !== 'none'
              ? { disable_parallel_tool_use: true as const }
              : {}),
          },
        }
      : {}),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(options.thinking === undefined
      ? {}
      : { thinking: { type: 'enabled', budget_tokens: options.thinking.budgetTokens } }),
    ...(options.stream === true ? { stream: true } : {}),
  }
}

// ------------------------------------------------------------------ answers

const Count = orNull(t.number)
const Reason = orNull(t.string)

const UsageJson = struct(
  'Usage',
  {},
  {
    input_tokens: Count,
    output_tokens: Count,
    cache_creation_input_tokens: Count,
    cache_read_input_tokens: Count,
  },
)
type UsageJson = t.TypeOf<typeof UsageJson>

const KNOWN = new Map<string, t.Decoder<unknown, Block>>([
  ['text', TextBlockCodec],
  ['thinking', ThinkingBlockCodec],
  ['redacted_thinking', RedactedThinkingBlockCodec],
  ['tool_use', ToolUseBlockCodec],
])

/** Only the fields Nerve's block has (no citations). */
const trim = (b: Block): Block => {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text }
    case 'thinking':
      return { type: 'thinking', thinking: b.thinking, signature: b.signature }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: b.data }
    case 'tool_use':
      return { type: 'tool_use', id: b.id, name: b.name, input: b.input }
    default:
      return b
  }
}

/** An answer's block: text, thinking, redacted thinking, tool use; any other type kept as unknown. */
const AnswerBlock = new t.Type<Block, unknown>(
  'ContentBlock',
  (u): u is Block => isRecord(u),
  (u, c): t.Validation<Block> => {
    if (!isRecord(u) || typeof u.type !== 'string') return t.failure(u, c)
    const codec = KNOWN.get(u.type)
    if (codec === undefined) return t.success({ type: 'unknown', raw: u as RawBlock })
    const r = codec.validate(u, c)
    return E.isLeft(r) ? r : t.success(trim(r.right))
  },
  t.identity,
)

const Answer = struct(
  'Message',
  { content: t.array(AnswerBlock), usage: UsageJson },
  { model: t.string, stop_reason: Reason },
)

const usageOf = (u: UsageJson): Usage => ({
  input_tokens: u.input_tokens ?? 0,
  output_tokens: u.output_tokens ?? 0,
  cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
  cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
})

const responseOf = (
  content: readonly Block[],
  stopReason: string | null | undefined,
  usage: Usage,
  model: string | undefined,
): ModelResponse =>
  deepFreeze({
    content,
    stopReason: stopReason ?? 'end_turn',
    usage,
    ...(model === undefined ? {} : { model }),
  })

/**
 * The {@link ModelResponse} of a Messages API answer (JSON as received):
 * content blocks as they are (citations dropped; server tool blocks and other
 * new types kept as unknown blocks), `stop_reason` as it is, usage with
 * missing cache counts as 0. A body of the wrong shape throws a
 * `ProviderMalformed` whose path points at the bad field.
 *
 * @category providers
 * @example
 * import { anthropicResponse } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const r = anthropicResponse({
 *   content: [{ type: 'text', text: 'Hello' }],
 *   stop_reason: 'end_turn',
 *   usage: { input_tokens: 5, output_tokens: 1 },
 * })
 * assert.deepStrictEqual(r.content, [{ type: 'text', text: 'Hello' }])
 * assert.strictEqual(r.usage.cache_read_input_tokens, 0)
 */
export const anthropicResponse = (json: unknown): ModelResponse => {
  const a = decodeAnswer(NAME, Answer, json)
  return responseOf(a.content, a.stop_reason, usageOf(a.usage), a.model)
}

// ------------------------------------------------------------------ streams

const Index = struct('Event', { index: t.number })
const MessageStart = struct('Event', {
  message: struct('Message', { usage: UsageJson }, { model: t.string }),
})
const BlockStart = struct('Event', { index: t.number, content_block: AnswerBlock })
const BlockDelta = struct('Event', {
  index: t.number,
  delta: struct('Delta', { type: t.string }),
})
const TextDelta = struct('Event', { delta: struct('Delta', { text: t.string }) })
const JsonDelta = struct('Event', { delta: struct('Delta', { partial_json: t.string }) })
const ThinkingDelta = struct('Event', { delta: struct('Delta', { thinking: t.string }) })
const SignatureDelta = struct('Event', { delta: struct('Delta', { signature: t.string }) })
const MessageDelta = struct(
  'Event',
  { delta: struct('Delta', {}, { stop_reason: Reason }) },
  { usage: UsageJson },
)
const ErrorEvent = struct('Event', {
  error: struct('Error', { type: t.string }, { message: t.string }),
})
const Typed = struct('Event', { type: t.string })

// The HTTP status each error type of the API stands for.
const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
}

/**
 * A block of a streamed answer while it comes in. The input of a tool use (or
 * of a server tool use, kept as an unknown block) is gathered as JSON text.
 */
interface Building {
  block: Block
  json: string | undefined
}

const hasInput = (b: Block): boolean =>
  b.type === 'tool_use' || (b.type === 'unknown' && isRecord(b.raw.input))

/**
 * Gathers the events of a streamed answer into the same response a
 * non-streamed call gives, reporting deltas on the way. Paths of malformed
 * events are `/<event index>/<pointer in its data>`.
 */
const gatherStream = (onDelta: ((d: ModelDelta) => void) | undefined) => {
  const blocks = new Map<number, Building>()
  let usage: UsageJson = {}
  let model: string | undefined
  let stopReason: string | null | undefined
  let stopped = false
  let n = -1
  const report = (d: ModelDelta) => onDelta?.(d)
  const building = (index: number, at: string): Building => {
    const b = blocks.get(index)
    if (b === undefined)
      throw new ProviderMalformed(NAME, `${at}/index`, `no block ${index} started`)
    return b
  }
  const finish = (b: Building, at: string): void => {
    if (b.json === undefined || b.json === '') return
    let input: unknown
    try {
      input = JSON.parse(b.json)
    } catch {
      throw new ProviderMalformed(NAME, at, `tool input is not JSON: ${b.json.slice(0, 100)}`)
    }
    if (!isRecord(input)) throw new ProviderMalformed(NAME, at, 'tool input is not an object')
    const { block } = b
    if (block.type === 'tool_use') b.block = { ...block, input }
    else if (block.type === 'unknown') b.block = { type: 'unknown', raw: { ...block.raw, input } }
    b.json = ''
  }
  const onEvent = (e: SseEvent): void => {
    n++
    const at = `/${n}`
    const data = parseEvent(NAME, e.data, at)
    const { type } = decodeAnswer(NAME, Typed, data, at)
    switch (type) {
      case 'message_start': {
        const m = decodeAnswer(NAME, MessageStart, data, at).message
        usage = m.usage
        model = m.model
        return
      }
      case 'content_block_start': {
        const { index, content_block: block } = decodeAnswer(NAME, BlockStart, data, at)
        blocks.set(index, { block, json: hasInput(block) ? '' : undefined })
        if (block.type === 'tool_use') report({ type: 'tool_use', id: block.id, name: block.name })
        return
      }
      case 'content_block_delta': {
        const { index, delta } = decodeAnswer(NAME, BlockDelta, data, at)
        const b = building(index, at)
        const { block } = b
        if (delta.type === 'text_delta' && block.type === 'text') {
          const { text } = decodeAnswer(NAME, TextDelta, data, at).delta
          b.block = { ...block, text: block.text + text }
          report({ type: 'text', text })
        } else if (delta.type === 'thinking_delta' && block.type === 'thinking') {
          const { thinking } = decodeAnswer(NAME, ThinkingDelta, data, at).delta
          b.block = { ...block, thinking: block.thinking + thinking }
          report({ type: 'thinking', text: thinking })
        } else if (delta.type === 'signature_delta' && block.type === 'thinking') {
          const { signature } = decodeAnswer(NAME, SignatureDelta, data, at).delta
          b.block = { ...block, signature: block.signature + signature }
        } else if (delta.type === 'input_json_delta' && b.json !== undefined) {
          b.json += decodeAnswer(NAME, JsonDelta, data, at).delta.partial_json
        }
        // Other deltas (citations, …) add nothing Nerve keeps.
        return
      }
      case 'content_block_stop': {
        finish(building(decodeAnswer(NAME, Index, data, at).index, at), at)
        return
      }
      case 'message_delta': {
        const d = decodeAnswer(NAME, MessageDelta, data, at)
        if (d.delta.stop_reason !== undefined) stopReason = d.delta.stop_reason
        if (d.usage !== undefined) {
          const merged: Record<string, number | null | undefined> = { ...usage }
          for (const [k, v] of Object.entries(d.usage)) if (typeof v === 'number') merged[k] = v
          usage = merged
        }
        return
      }
      case 'message_stop':
        stopped = true
        return
      case 'error': {
        const { error } = decodeAnswer(NAME, ErrorEvent, data, at)
        throw new ProviderHttpError(NAME, ERROR_STATUS[error.type] ?? 500, e.data)
      }
      default:
        return // ping, and event types added later
    }
  }
  const result = (): ModelResponse => {
    if (!stopped) throw new ProviderStreamCut(NAME, `no message_stop after ${n + 1} events`)
    const ordered = [...blocks.entries()].sort(([a], [b]) => a - b)
    for (const [, b] of ordered) finish(b, `/${n}`)
    return responseOf(
      ordered.map(([, b]) => b.block),
      stopReason,
      usageOf(usage),
      model,
    )
  }
  return { onEvent, result }
}

/**
 * Reads a streamed Messages API answer, event by event, into the response a
 * non-streamed call gives (what the model proxy keeps of a forwarded call).
 *
 * @internal
 */
export const anthropicStream = (onDelta?: (d: ModelDelta) => void) => gatherStream(onDelta)

// ----------------------------------------------------------------- provider

// Cache writes cost 1.25 times the input price, cache reads 0.1 times.
const CACHE_RATES: CacheRates = { write: 1.25, read: 0.1 }

/**
 * A {@link Provider} for the Anthropic Messages API (`POST {baseUrl}/v1/messages`,
 * headers `x-api-key` and `anthropic-version: 2023-06-01`), over plain
 * `fetch`. The request is {@link anthropicRequest}'s body; the answer,
 * streamed or not, is read as {@link anthropicResponse} reads it. It throws
 * a `ProviderError` (an `error` event of a stream is a `ProviderHttpError`
 * with the status its type stands for, `overloaded_error` → 529) and never
 * retries. Without an API key (option or `ANTHROPIC_API_KEY`) it throws a
 * `UsageError` at once.
 *
 * @category providers
 * @example
 * import { anthropic } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const claude = anthropic({ apiKey: 'sk-test', model: 'claude-haiku-4-5', stream: true })
 * assert.strictEqual(claude.name, 'anthropic')
 */
export const anthropic = (options: AnthropicOptions = {}): Provider => {
  checkProviderOptions(NAME, options)
  const budget = options.thinking?.budgetTokens
  if (budget !== undefined && !isPositiveInteger(budget))
    throw optionError(NAME, 'thinking.budgetTokens', 'a positive integer', budget)
  const apiKey = apiKeyFrom(NAME, options.apiKey, ['ANTHROPIC_API_KEY'])!
  const url = `${baseUrlOf(options, 'https://api.anthropic.com')}/v1/messages`
  return httpProvider(
    {
      name: NAME,
      url: () => url,
      headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
      body: (request) => anthropicRequest(request, options),
      answer: anthropicResponse,
      stream: (_request, onDelta) => gatherStream(onDelta),
      cacheRates: CACHE_RATES,
    },
    options,
  )
}
