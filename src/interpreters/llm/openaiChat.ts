import * as t from 'io-ts'
import type { Block, ToolResultBlock } from '../../conversation/Entry.js'
import { struct } from '../../conversation/codec/combinators.js'
import { deepFreeze } from '../../dag/freeze.js'
import { alternate, decodeAnswer, orNull, parseEvent } from './decode.js'
import type { SseEvent } from './http.js'
import {
  apiKeyFrom,
  baseUrlOf,
  checkProviderOptions,
  httpProvider,
  type ProviderOptions,
  type StreamReader,
} from './httpProvider.js'
import {
  ERROR_PREFIX,
  OPENAI_BASE_URL,
  OPENAI_KEY_VARIABLE,
  dataUrl,
  isOpenAIHost,
  orphanText,
  pairedCalls,
  parseArguments,
  resultText,
  usageOf,
} from './openaiCommon.js'
import type { ModelDelta, ModelRequest, ModelResponse, Provider } from './Provider.js'
import { ProviderHttpError, ProviderMalformed, ProviderStreamCut } from './ProviderError.js'

const NAME = 'openai-chat'
const DEFAULT_MODEL = 'gpt-4.1'

/**
 * Options of {@link openaiChat}: the common {@link ProviderOptions}, the
 * token limit's field and the reasoning effort. Defaults: `baseUrl`
 * `https://api.openai.com/v1`, or a compatible server's, e.g.
 * `http://localhost:11434/v1` (Ollama) or `http://localhost:8000/v1` (vLLM)
 * (the provider POSTs to `{baseUrl}/chat/completions`); `model` `gpt-4.1`;
 * `maxTokens` the model's; `pricing` counts cached tokens at the input price.
 * The key is sent as `Authorization: Bearer`: for OpenAI's own API it
 * defaults to `OPENAI_API_KEY` and is required; for another `baseUrl` there
 * is no default (the OpenAI key is not sent to another server) and none
 * sends no header.
 *
 * @category providers
 */
export interface OpenAIChatOptions extends ProviderOptions {
  /**
   * The field that carries the most output tokens. Default:
   * `max_completion_tokens` for OpenAI (its reasoning models reject
   * `max_tokens`), `max_tokens` for other servers (not all know the new name).
   */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens'
  /** Sent as `reasoning_effort` (e.g. `'low'`). */
  readonly reasoningEffort?: string
}

/**
 * One part of a user message of a Chat Completions request.
 *
 * @category providers
 */
export type ChatPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } }

/**
 * One tool call of an assistant message.
 *
 * @category providers
 */
export interface ChatToolCall {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}

/**
 * One message of a Chat Completions request.
 *
 * @category providers
 */
export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | readonly ChatPart[] }
  | {
      readonly role: 'assistant'
      readonly content: string | null
      readonly tool_calls?: readonly ChatToolCall[]
    }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string }

/**
 * The body of a `POST /chat/completions`.
 *
 * @category providers
 */
export interface OpenAIChatBody {
  readonly model: string
  readonly messages: readonly ChatMessage[]
  readonly tools?: readonly {
    readonly type: 'function'
    readonly function: {
      readonly name: string
      readonly description: string
      readonly parameters: Readonly<Record<string, unknown>>
    }
  }[]
  readonly tool_choice?:
    | 'auto'
    | 'required'
    | 'none'
    | { readonly type: 'function'; readonly function: { readonly name: string } }
  readonly parallel_tool_calls?: false
  readonly max_tokens?: number
  readonly max_completion_tokens?: number
  readonly temperature?: number
  readonly reasoning_effort?: string
  readonly stream?: true
  readonly stream_options?: { readonly include_usage: true }
}

const toolMessage = (b: ToolResultBlock): ChatMessage => ({
  role: 'tool',
  tool_call_id: b.tool_use_id,
  content: `${b.is_error === true ? ERROR_PREFIX : ''}${resultText(b.content)}`,
})

const userMessage = (parts: readonly ChatPart[]): ChatMessage => ({
  role: 'user',
  content: parts.every((p) => p.type === 'text') ? parts.map((p) => p.text).join('\n\n') : parts,
})

/** The messages of a conversation, in the Chat Completions shape. */
const messagesOf = (request: ModelRequest): ChatMessage[] => {
  const messages = alternate(request.messages)
  const paired = pairedCalls(messages)
  const out: ChatMessage[] =
    request.system === '' ? [] : [{ role: 'system', content: request.system }]
  for (const m of messages) {
    const blocks: readonly Block[] =
      typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
    if (m.role === 'user') {
      // Tool messages must come right after the assistant message that called.
      const images: ChatPart[] = []
      const parts: ChatPart[] = []
      for (const b of blocks) {
        if (b.type === 'text') parts.push({ type: 'text', text: b.text })
        else if (b.type === 'compaction') parts.push({ type: 'text', text: b.content })
        else if (b.type === 'image')
          parts.push({ type: 'image_url', image_url: { url: dataUrl(b) } })
        else if (b.type === 'tool_result') {
          if (!paired.has(b.tool_use_id)) {
            parts.push({ type: 'text', text: orphanText(b) })
            continue
          }
          out.push(toolMessage(b))
          // Tool messages carry text only: a result's images follow in the user message.
          if (typeof b.content !== 'string' && b.content.some((c) => c.type === 'image')) {
            images.push({
              type: 'text',
              text: `[images of the result of tool call ${b.tool_use_id}]`,
            })
            for (const c of b.content)
              if (c.type === 'image')
                images.push({ type: 'image_url', image_url: { url: dataUrl(c) } })
          }
        }
      }
      if (images.length + parts.length > 0) out.push(userMessage([...images, ...parts]))
      continue
    }
    const texts: string[] = []
    const calls: ChatToolCall[] = []
    for (const b of blocks) {
      if (b.type === 'text') texts.push(b.text)
      else if (b.type === 'compaction') texts.push(b.content)
      else if (b.type === 'tool_use' && paired.has(b.id))
        calls.push({
          type: 'function',
          id: b.id,
          function: { name: b.name, arguments: JSON.stringify(b.input) },
        })
    }
    if (texts.length === 0 && calls.length === 0) continue
    const content = texts.length === 0 ? null : texts.join('\n\n')
    out.push(
      calls.length === 0
        ? { role: 'assistant', content: content ?? '' }
        : { role: 'assistant', content, tool_calls: calls },
    )
  }
  return out
}

/**
 * The body of a Chat Completions request for a conversation: the system
 * prompt as a `system` message; text and compaction → text (one string when
 * a message has no image); image → an `image_url` part with a data URL;
 * tool_use → `tool_calls` (same id, the input as a JSON string); tool_result
 * → a `tool` message right after the call (its text; an error starts with
 * `Error: `; its images follow in a user message, as tool messages carry
 * text only). Thinking and redacted_thinking are left out: the protocol has
 * no reasoning input, and compatible servers that return
 * `reasoning_content` do not all accept it back. A call whose result is not
 * in the next message is left out, and such a result is sent as text.
 * Unknown blocks are left out.
 *
 * @category providers
 * @example
 * import { openaiChatRequest } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const body = openaiChatRequest({
 *   system: 'Be brief.',
 *   messages: [{ type: 'message', role: 'user', content: 'hi' }],
 *   tools: [],
 * }, { model: 'llama3.2', baseUrl: 'http://localhost:11434/v1' })
 * assert.deepStrictEqual(body.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }])
 */
export const openaiChatRequest = (
  request: ModelRequest,
  options: OpenAIChatOptions = {},
): OpenAIChatBody => {
  const hasTools = request.tools.length > 0
  const choice = request.toolChoice ?? { type: 'auto' }
  const maxTokens = request.maxTokens ?? options.maxTokens
  const field =
    options.maxTokensField ??
    (isOpenAIHost(options.baseUrl ?? OPENAI_BASE_URL) ? 'max_completion_tokens' : 'max_tokens')
  return deepFreeze({
    model: request.model ?? options.model ?? DEFAULT_MODEL,
    messages: messagesOf(request),
    ...(hasTools && {
      tools: request.tools.map((d) => ({
        type: 'function' as const,
        function: { name: d.name, description: d.description, parameters: d.input_schema },
      })),
      tool_choice:
        choice.type === 'tool'
          ? { type: 'function' as const, function: { name: choice.name } }
          : choice.type === 'any'
            ? ('required' as const)
            : choice.type,
      ...(request.parallelToolCalls === false && { parallel_tool_calls: false as const }),
    }),
    ...(maxTokens !== undefined && { [field]: maxTokens }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(options.reasoningEffort !== undefined && { reasoning_effort: options.reasoningEffort }),
    ...(options.stream === true && {
      stream: true as const,
      stream_options: { include_usage: true as const },
    }),
  })
}

const Usage = struct(
  'ChatUsage',
  { prompt_tokens: t.number, completion_tokens: t.number },
  {
    total_tokens: orNull(t.number),
    prompt_tokens_details: orNull(struct('PromptDetails', {}, { cached_tokens: orNull(t.number) })),
    completion_tokens_details: orNull(
      struct('CompletionDetails', {}, { reasoning_tokens: orNull(t.number) }),
    ),
  },
)
const Message = struct(
  'ChatAnswer',
  {},
  {
    content: orNull(t.string),
    reasoning_content: orNull(t.string),
    reasoning: t.unknown,
    refusal: orNull(t.string),
    tool_calls: orNull(
      t.array(
        struct('ToolCall', {
          id: t.string,
          function: struct('Function', { name: t.string, arguments: t.string }),
        }),
      ),
    ),
  },
)
const Choice = struct('Choice', { message: Message }, { finish_reason: orNull(t.string) })
const Body = struct(
  'ChatCompletion',
  { choices: t.array(t.unknown) },
  { model: t.string, usage: orNull(Usage) },
)
const ErrorBody = struct('ErrorBody', { error: t.UnknownRecord })

/**
 * An error a server reports inside a 200 answer or a stream, as the HTTP
 * error it stands for: its numeric `code` when it is an HTTP status,
 * `rate_limit_exceeded` → 429, anything else → 500.
 */
const failed = (error: Readonly<Record<string, unknown>>): ProviderHttpError => {
  const code = error.code ?? error.type
  const status =
    typeof code === 'number' && code >= 400 && code < 600
      ? code
      : code === 'rate_limit_exceeded'
        ? 429
        : 500
  return new ProviderHttpError(NAME, status, JSON.stringify(error))
}

const STOP_REASONS: Readonly<Record<string, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
}

/**
 * A Chat Completions answer (its first choice) as a {@link ModelResponse}:
 * `reasoning_content` (or a string `reasoning`, as some compatible servers
 * name it) → a thinking block without signature; content and refusal →
 * text; `tool_calls` → tool_use blocks (ids kept, arguments parsed). The
 * finish reason maps `stop` → `end_turn` (`tool_use` when it calls tools),
 * `length` → `max_tokens`, `tool_calls` → `tool_use`, `content_filter` →
 * `refusal`; others pass through. Usage counts cached prompt tokens as cache
 * reads. An `error` body is a ProviderHttpError; a body of the wrong shape
 * a ProviderMalformed with the JSON pointer of the bad field.
 *
 * @category providers
 */
export const openaiChatResponse = (json: unknown): ModelResponse => {
  if (ErrorBody.is(json)) throw failed(json.error)
  const body = decodeAnswer(NAME, Body, json)
  if (body.choices.length === 0) throw new ProviderMalformed(NAME, '/choices', 'no choice')
  const choice = decodeAnswer(NAME, Choice, body.choices[0], '/choices/0')
  const m = choice.message
  const content: Block[] = []
  const thinking = m.reasoning_content ?? (typeof m.reasoning === 'string' ? m.reasoning : '')
  if (thinking !== '') content.push({ type: 'thinking', thinking, signature: '' })
  if (m.content !== undefined && m.content !== null && m.content !== '')
    content.push({ type: 'text', text: m.content })
  const refused = m.refusal !== undefined && m.refusal !== null && m.refusal !== ''
  if (refused) content.push({ type: 'text', text: m.refusal })
  ;(m.tool_calls ?? []).forEach((c, i) => {
    const path = `/choices/0/message/tool_calls/${i}/function/arguments`
    const input = parseArguments(NAME, c.function.arguments, path)
    content.push({ type: 'tool_use', id: c.id, name: c.function.name, input })
  })
  const calls = content.some((b) => b.type === 'tool_use')
  const finish = choice.finish_reason ?? undefined
  const mapped = finish === undefined ? 'end_turn' : (STOP_REASONS[finish] ?? finish)
  const stopReason =
    mapped === 'end_turn' && calls
      ? 'tool_use'
      : mapped === 'end_turn' && refused
        ? 'refusal'
        : mapped
  const u = body.usage
  return deepFreeze({
    content,
    stopReason,
    usage: usageOf({
      input: u?.prompt_tokens ?? 0,
      output: u?.completion_tokens ?? 0,
      cached: u?.prompt_tokens_details?.cached_tokens ?? undefined,
      reasoning: u?.completion_tokens_details?.reasoning_tokens ?? undefined,
      total: u?.total_tokens ?? undefined,
    }),
    ...(body.model !== undefined && { model: body.model }),
  })
}

const FunctionDelta = struct(
  'FunctionDelta',
  {},
  { name: orNull(t.string), arguments: orNull(t.string) },
)
const ToolCallDelta = struct(
  'ToolCallDelta',
  {},
  { index: t.number, id: orNull(t.string), function: orNull(FunctionDelta) },
)
const Delta = struct(
  'Delta',
  {},
  {
    content: orNull(t.string),
    reasoning_content: orNull(t.string),
    reasoning: t.unknown,
    refusal: orNull(t.string),
    tool_calls: orNull(t.array(ToolCallDelta)),
  },
)
const ChunkChoice = struct(
  'ChunkChoice',
  {},
  { finish_reason: orNull(t.string), delta: orNull(Delta) },
)
const Chunk = struct(
  'ChatChunk',
  {},
  {
    model: t.string,
    usage: orNull(Usage),
    error: t.UnknownRecord,
    choices: orNull(t.array(ChunkChoice)),
  },
)

interface CallBuilding {
  id: string
  name: string
  args: string
  announced: boolean
}

/**
 * Reads a streamed answer: reports deltas, adds up the chunks (tool calls by
 * their `index`) into one answer and maps it as {@link openaiChatResponse}
 * does, so a bad field's path is into that answer. No `data: [DONE]` is a
 * ProviderStreamCut.
 */
const streamReader = (onDelta?: (d: ModelDelta) => void): StreamReader => {
  let done = false
  let text = ''
  let reasoning = ''
  let refusal = ''
  let finish: string | null = null
  let usage: unknown = null
  let model: string | undefined
  const calls = new Map<number, CallBuilding>()
  let n = 0
  const onEvent = (e: SseEvent): void => {
    const at = `/events/${n++}`
    if (e.data.trim() === '[DONE]') {
      done = true
      return
    }
    const chunk = decodeAnswer(NAME, Chunk, parseEvent(NAME, e.data, at), at)
    if (chunk.error !== undefined) throw failed(chunk.error)
    model ??= chunk.model
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage
    const choice = chunk.choices?.[0]
    if (choice === undefined) return
    if (choice.finish_reason !== undefined && choice.finish_reason !== null)
      finish = choice.finish_reason
    const d = choice.delta
    if (d === undefined || d === null) return
    const thought = d.reasoning_content ?? (typeof d.reasoning === 'string' ? d.reasoning : null)
    if (thought !== null && thought !== '') {
      reasoning += thought
      onDelta?.({ type: 'thinking', text: thought })
    }
    if (d.content !== undefined && d.content !== null && d.content !== '') {
      text += d.content
      onDelta?.({ type: 'text', text: d.content })
    }
    if (d.refusal !== undefined && d.refusal !== null) refusal += d.refusal
    ;(d.tool_calls ?? []).forEach((tc, k) => {
      const index = tc.index ?? k
      const c = calls.get(index) ?? { id: '', name: '', args: '', announced: false }
      calls.set(index, c)
      if (c.id === '' && tc.id !== undefined && tc.id !== null) c.id = tc.id
      const f = tc.function
      if (c.name === '' && f?.name !== undefined && f.name !== null) c.name = f.name
      if (f?.arguments !== undefined && f.arguments !== null) c.args += f.arguments
      if (!c.announced && c.id !== '' && c.name !== '') {
        c.announced = true
        onDelta?.({ type: 'tool_use', id: c.id, name: c.name })
      }
    })
  }
  const result = (): ModelResponse => {
    if (!done) throw new ProviderStreamCut(NAME, 'no data: [DONE]')
    const toolCalls = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.args },
      }))
    return openaiChatResponse({
      ...(model !== undefined && { model }),
      choices: [
        {
          message: {
            content: text,
            reasoning_content: reasoning,
            refusal: refusal === '' ? null : refusal,
            ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
          },
          finish_reason: finish,
        },
      ],
      usage,
    })
  }
  return { onEvent, result }
}

/**
 * A {@link Provider} for the Chat Completions API of OpenAI and of the
 * servers that speak it (Ollama, vLLM, llama.cpp, LM Studio, …):
 * `POST {baseUrl}/chat/completions`. See {@link openaiChatRequest} and
 * {@link openaiChatResponse} for the mapping. Streaming asks for usage in
 * the last chunk (`stream_options.include_usage`), adds up `choices[0].delta`
 * (content, reasoning, tool calls by index) and ends at `data: [DONE]`; a
 * stream without it is a ProviderStreamCut. Throws a UsageError when
 * OpenAI's own API is used without a key.
 *
 * @category providers
 */
export const openaiChat = (options: OpenAIChatOptions = {}): Provider => {
  checkProviderOptions('openaiChat', options)
  const base = baseUrlOf(options, OPENAI_BASE_URL)
  const openai = isOpenAIHost(base)
  const variables = openai ? [OPENAI_KEY_VARIABLE] : []
  const apiKey = apiKeyFrom('openaiChat', options.apiKey, variables, openai)
  const url = `${base}/chat/completions`
  return httpProvider(
    {
      name: NAME,
      url: () => url,
      headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
      body: (request) => openaiChatRequest(request, options),
      answer: openaiChatResponse,
      stream: (_request, onDelta) => streamReader(onDelta),
    },
    options,
  )
}
