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
  isOpenAIReasoning,
  orphanText,
  pairedCalls,
  parseArguments,
  usageOf,
} from './openaiCommon.js'
import type { ModelDelta, ModelRequest, ModelResponse, Provider } from './Provider.js'
import { ProviderHttpError, ProviderStreamCut } from './ProviderError.js'

const NAME = 'openai-responses'
const DEFAULT_MODEL = 'gpt-5'

/**
 * Options of {@link openaiResponses}: the common {@link ProviderOptions}
 * (defaults: the key in `OPENAI_API_KEY`, `baseUrl`
 * `https://api.openai.com/v1` (the provider POSTs to `{baseUrl}/responses`),
 * `model` `gpt-5`, `maxTokens` (sent as `max_output_tokens`) the model's;
 * `pricing` counts cached tokens at the input price), and reasoning.
 *
 * @category providers
 */
export interface OpenAIResponsesOptions extends ProviderOptions {
  /** Sent as `reasoning` (e.g. `{ effort: 'low', summary: 'auto' }`). */
  readonly reasoning?: { readonly effort?: string; readonly summary?: string }
  /**
   * Whether to ask for `reasoning.encrypted_content`, so that reasoning can
   * be carried to the next turn without storing it at OpenAI. Default: when
   * `reasoning` is given, the model is a reasoning model by name (`o1`…,
   * `gpt-5`…, not `…chat…`), or the conversation carries OpenAI reasoning.
   * Models without reasoning reject it.
   */
  readonly encryptedReasoning?: boolean
}

/**
 * One part of a message of a Responses request.
 *
 * @category providers
 */
export type ResponsesPart =
  | { readonly type: 'input_text'; readonly text: string }
  | { readonly type: 'input_image'; readonly image_url: string; readonly detail: 'auto' }
  | { readonly type: 'output_text'; readonly text: string }

/**
 * One item of a Responses request's `input`.
 *
 * @category providers
 */
export type ResponsesInputItem =
  | {
      readonly type: 'message'
      readonly role: 'user' | 'assistant'
      readonly content: readonly ResponsesPart[]
    }
  | {
      readonly type: 'function_call'
      readonly call_id: string
      readonly name: string
      readonly arguments: string
    }
  | {
      readonly type: 'function_call_output'
      readonly call_id: string
      readonly output: string | readonly ResponsesPart[]
    }
  | {
      readonly type: 'reasoning'
      readonly summary: readonly { readonly type: 'summary_text'; readonly text: string }[]
      readonly encrypted_content: string
    }

/**
 * The body of a `POST /responses`.
 *
 * @category providers
 */
export interface OpenAIResponsesBody {
  readonly model: string
  readonly instructions?: string
  readonly input: readonly ResponsesInputItem[]
  readonly tools?: readonly {
    readonly type: 'function'
    readonly name: string
    readonly description: string
    readonly parameters: Readonly<Record<string, unknown>>
    readonly strict: false
  }[]
  readonly tool_choice?:
    'auto' | 'required' | 'none' | { readonly type: 'function'; readonly name: string }
  readonly parallel_tool_calls?: false
  readonly max_output_tokens?: number
  readonly temperature?: number
  readonly reasoning?: { readonly effort?: string; readonly summary?: string }
  readonly store: false
  readonly include?: readonly ['reasoning.encrypted_content']
  readonly stream?: true
}

const isReasoningModel = (model: string): boolean =>
  /(^|\/)(o\d|gpt-5)/.test(model) && !/chat/.test(model)

const functionOutput = (b: ToolResultBlock): ResponsesInputItem => {
  const error = b.is_error === true
  if (typeof b.content === 'string' || b.content.every((c) => c.type === 'text')) {
    const text =
      typeof b.content === 'string' ? b.content : b.content.map((c) => c.text).join('\n\n')
    return {
      type: 'function_call_output',
      call_id: b.tool_use_id,
      output: error ? `${ERROR_PREFIX}${text}` : text,
    }
  }
  const parts: ResponsesPart[] = b.content.map((c) =>
    c.type === 'text'
      ? { type: 'input_text', text: c.text }
      : { type: 'input_image', image_url: dataUrl(c), detail: 'auto' },
  )
  return {
    type: 'function_call_output',
    call_id: b.tool_use_id,
    output: error ? [{ type: 'input_text', text: ERROR_PREFIX.trim() }, ...parts] : parts,
  }
}

const reasoningItem = (summary: string, encrypted: string): ResponsesInputItem => ({
  type: 'reasoning',
  summary: summary === '' ? [] : [{ type: 'summary_text', text: summary }],
  encrypted_content: encrypted,
})

/**
 * The `input` items of a conversation, and whether they carry reasoning.
 * Tool results of a user message come first, as function outputs right
 * after their calls; the rest of the message follows.
 */
const inputOf = (
  request: ModelRequest,
): { readonly input: readonly ResponsesInputItem[]; readonly reasoning: boolean } => {
  const messages = alternate(request.messages)
  const paired = pairedCalls(messages)
  const input: ResponsesInputItem[] = []
  let reasoning = false
  for (const m of messages) {
    const blocks: readonly Block[] =
      typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
    if (m.role === 'user') {
      const parts: ResponsesPart[] = []
      for (const b of blocks) {
        if (b.type === 'text') parts.push({ type: 'input_text', text: b.text })
        else if (b.type === 'compaction') parts.push({ type: 'input_text', text: b.content })
        else if (b.type === 'image')
          parts.push({ type: 'input_image', image_url: dataUrl(b), detail: 'auto' })
        else if (b.type === 'tool_result') {
          if (paired.has(b.tool_use_id)) input.push(functionOutput(b))
          else parts.push({ type: 'input_text', text: orphanText(b) })
        }
      }
      if (parts.length > 0) input.push({ type: 'message', role: 'user', content: parts })
      continue
    }
    let texts: ResponsesPart[] = []
    const flush = () => {
      if (texts.length > 0) input.push({ type: 'message', role: 'assistant', content: texts })
      texts = []
    }
    for (const b of blocks) {
      if (b.type === 'text') texts.push({ type: 'output_text', text: b.text })
      else if (b.type === 'compaction') texts.push({ type: 'output_text', text: b.content })
      else if (b.type === 'tool_use' && paired.has(b.id)) {
        flush()
        input.push({
          type: 'function_call',
          call_id: b.id,
          name: b.name,
          arguments: JSON.stringify(b.input),
        })
      } else if (b.type === 'thinking' && isOpenAIReasoning(b.signature)) {
        flush()
        input.push(reasoningItem(b.thinking, b.signature))
        reasoning = true
      } else if (b.type === 'redacted_thinking' && isOpenAIReasoning(b.data)) {
        flush()
        input.push(reasoningItem('', b.data))
        reasoning = true
      }
    }
    flush()
  }
  return { input, reasoning }
}

/**
 * The body of a Responses request for a conversation. Nerve keeps the
 * conversation, so nothing is stored at OpenAI (`store: false`); reasoning
 * travels as encrypted content instead. Blocks map as follows: text and
 * compaction → `input_text` (user) or `output_text` (assistant); image →
 * `input_image` with a data URL (user messages only: the protocol has no
 * assistant image); tool_use → `function_call` (same id, the input as a JSON
 * string); tool_result → `function_call_output` (text, or text and images;
 * an error starts with `Error: `), placed before the rest of its message so
 * it follows its call; an assistant's thinking (its text as the summary) and
 * redacted_thinking → a `reasoning` item with the encrypted content, only
 * when OpenAI issued it (other providers' signatures are left out: OpenAI
 * would reject them). A call whose result is not in the next message is left
 * out, and such a result is sent as text. Unknown blocks are left out.
 *
 * @category providers
 * @example
 * import { openaiResponsesRequest } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const body = openaiResponsesRequest({
 *   system: 'Be brief.',
 *   messages: [{ type: 'message', role: 'user', content: 'hi' }],
 *   tools: [],
 * })
 * assert.strictEqual(body.instructions, 'Be brief.')
 * assert.deepStrictEqual(body.input, [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }])
 */
export const openaiResponsesRequest = (
  request: ModelRequest,
  options: OpenAIResponsesOptions = {},
): OpenAIResponsesBody => {
  const model = request.model ?? options.model ?? DEFAULT_MODEL
  const { input, reasoning } = inputOf(request)
  const hasTools = request.tools.length > 0
  const choice = request.toolChoice ?? { type: 'auto' }
  const maxTokens = request.maxTokens ?? options.maxTokens
  const encrypted =
    options.encryptedReasoning ??
    (options.reasoning !== undefined || isReasoningModel(model) || reasoning)
  return deepFreeze({
    model,
    ...(request.system !== '' && { instructions: request.system }),
    input,
    ...(hasTools && {
      tools: request.tools.map((d) => ({
        type: 'function' as const,
        name: d.name,
        description: d.description,
        parameters: d.input_schema,
        strict: false as const,
      })),
      tool_choice:
        choice.type === 'tool'
          ? { type: 'function' as const, name: choice.name }
          : choice.type === 'any'
            ? ('required' as const)
            : choice.type,
      ...(request.parallelToolCalls === false && { parallel_tool_calls: false as const }),
    }),
    ...(maxTokens !== undefined && { max_output_tokens: maxTokens }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(options.reasoning !== undefined && { reasoning: options.reasoning }),
    store: false as const,
    ...(encrypted && { include: ['reasoning.encrypted_content'] as const }),
    ...(options.stream === true && { stream: true as const }),
  })
}

const Item = struct('OutputItem', { type: t.string })
const Failure = struct('ResponseError', {}, { code: orNull(t.string), message: orNull(t.string) })
const Body = struct(
  'Response',
  { output: t.array(Item) },
  {
    status: t.string,
    model: t.string,
    usage: orNull(
      struct(
        'ResponseUsage',
        { input_tokens: t.number, output_tokens: t.number },
        {
          total_tokens: t.number,
          input_tokens_details: orNull(struct('InputDetails', {}, { cached_tokens: t.number })),
          output_tokens_details: orNull(
            struct('OutputDetails', {}, { reasoning_tokens: t.number }),
          ),
        },
      ),
    ),
    incomplete_details: orNull(struct('IncompleteDetails', {}, { reason: t.string })),
    error: orNull(Failure),
  },
)
const MessageItem = struct('MessageItem', { content: t.array(Item) })
const OutputText = struct('OutputText', { text: t.string })
const Refusal = struct('Refusal', { refusal: t.string })
const FunctionCall = struct('FunctionCall', {
  call_id: t.string,
  name: t.string,
  arguments: t.string,
})
const ReasoningItem = struct(
  'ReasoningItem',
  {},
  {
    summary: orNull(t.array(struct('SummaryText', { text: t.string }))),
    content: orNull(t.array(struct('ReasoningText', { text: t.string }))),
    encrypted_content: orNull(t.string),
  },
)

/**
 * The error of a failed response (or an `error` event) as an HTTP error: the
 * status the same failure has before the stream starts (`rate_limit_exceeded`
 * → 429, `server_error` or no code → 500, any other code → 400), so the loop
 * retries what it would retry there.
 */
const failed = (error: t.TypeOf<typeof Failure> | null | undefined): ProviderHttpError => {
  const code = error?.code ?? undefined
  const status =
    code === 'rate_limit_exceeded' ? 429 : code === undefined || code === 'server_error' ? 500 : 400
  return new ProviderHttpError(NAME, status, JSON.stringify(error ?? {}))
}

/** Decodes a response object found at `at` (`''`: the body). */
const decodeResponse = (json: unknown, at: string): ModelResponse => {
  const body = decodeAnswer(NAME, Body, json, at)
  if (body.status === 'failed') throw failed(body.error)
  const content: Block[] = []
  let refused = false
  for (const [i, item] of body.output.entries()) {
    const where = `${at}/output/${i}`
    if (item.type === 'message') {
      for (const [j, part] of decodeAnswer(NAME, MessageItem, item, where).content.entries()) {
        if (part.type === 'output_text') {
          const { text } = decodeAnswer(NAME, OutputText, part, `${where}/content/${j}`)
          if (text !== '') content.push({ type: 'text', text })
        } else if (part.type === 'refusal') {
          const { refusal } = decodeAnswer(NAME, Refusal, part, `${where}/content/${j}`)
          content.push({ type: 'text', text: refusal })
          refused = true
        }
      }
    } else if (item.type === 'function_call') {
      const call = decodeAnswer(NAME, FunctionCall, item, where)
      const input = parseArguments(NAME, call.arguments, `${where}/arguments`)
      content.push({ type: 'tool_use', id: call.call_id, name: call.name, input })
    } else if (item.type === 'reasoning') {
      const r = decodeAnswer(NAME, ReasoningItem, item, where)
      const summary = (r.summary ?? []).map((s) => s.text).join('\n\n')
      const thinking = summary !== '' ? summary : (r.content ?? []).map((s) => s.text).join('\n\n')
      const encrypted = r.encrypted_content ?? ''
      if (thinking !== '') content.push({ type: 'thinking', thinking, signature: encrypted })
      else if (encrypted !== '') content.push({ type: 'redacted_thinking', data: encrypted })
    }
  }
  const reason = body.incomplete_details?.reason
  const stopReason =
    body.status === 'incomplete'
      ? reason === 'content_filter'
        ? 'refusal'
        : reason === undefined || reason === 'max_output_tokens'
          ? 'max_tokens'
          : reason
      : content.some((b) => b.type === 'tool_use')
        ? 'tool_use'
        : refused
          ? 'refusal'
          : 'end_turn'
  const u = body.usage
  return {
    content,
    stopReason,
    usage: usageOf({
      input: u?.input_tokens ?? 0,
      output: u?.output_tokens ?? 0,
      cached: u?.input_tokens_details?.cached_tokens,
      reasoning: u?.output_tokens_details?.reasoning_tokens,
      total: u?.total_tokens,
    }),
    ...(body.model !== undefined && { model: body.model }),
  }
}

/**
 * A Responses answer (a response object) as a {@link ModelResponse}:
 * output_text and refusal parts → text; function_call → tool_use (the
 * `call_id` as id, the arguments parsed); a reasoning item → a thinking
 * block (its summary, the encrypted content as signature) or, without a
 * summary, a redacted_thinking block (the encrypted content as data). The
 * stop reason is `tool_use` when it calls tools, `max_tokens` or `refusal`
 * when incomplete for those reasons, `refusal` when it refused, else
 * `end_turn`. Usage counts cached input tokens as cache reads. A failed
 * response is a ProviderHttpError; a body of the wrong shape a
 * ProviderMalformed with the JSON pointer of the bad field.
 *
 * @category providers
 */
export const openaiResponsesResponse = (json: unknown): ModelResponse =>
  deepFreeze(decodeResponse(json, ''))

const Event = struct('ResponsesEvent', { type: t.string })
const ItemEvent = struct('OutputItemEvent', { output_index: t.number, item: Item })
const Delta = struct(
  'DeltaEvent',
  { delta: t.string },
  { output_index: t.number, content_index: t.number },
)
const EndEvent = struct('EndEvent', { response: t.UnknownRecord })
const FailedEvent = struct('FailedEvent', {
  response: struct('FailedResponse', {}, { error: orNull(Failure) }),
})
const ErrorEvent = struct('ErrorEvent', {}, { error: orNull(Failure) })
const FunctionCallStart = struct('FunctionCallStart', { call_id: t.string, name: t.string })

/** An output item as the stream builds it: the item as added, then its deltas. */
interface Building {
  item: Readonly<Record<string, unknown>>
  readonly texts: string[]
  args: string
  done: boolean
}

const assembled = (items: ReadonlyMap<number, Building>): unknown[] =>
  [...items.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, b]) => {
      if (b.done) return b.item
      if (b.item.type === 'message')
        return { ...b.item, content: b.texts.map((text) => ({ type: 'output_text', text })) }
      if (b.item.type === 'function_call') return { ...b.item, arguments: b.args }
      return b.item
    })

/**
 * Reads a streamed answer: reports deltas, builds the output items from the
 * events, and decodes the response of `response.completed` (or
 * `response.incomplete`), with the built items when it lists none.
 */
const streamReader = (onDelta?: (d: ModelDelta) => void): StreamReader => {
  const items = new Map<number, Building>()
  let end: { readonly json: Readonly<Record<string, unknown>>; readonly at: string } | undefined
  let n = 0
  const onEvent = (e: SseEvent): void => {
    const at = `/events/${n++}`
    const data = parseEvent(NAME, e.data, at)
    const { type } = decodeAnswer(NAME, Event, data, at)
    switch (type) {
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const ev = decodeAnswer(NAME, ItemEvent, data, at)
        const was = items.get(ev.output_index)
        items.set(ev.output_index, {
          item: ev.item,
          texts: was?.texts ?? [],
          args: was?.args ?? '',
          done: type === 'response.output_item.done',
        })
        if (type === 'response.output_item.added' && ev.item.type === 'function_call') {
          const call = decodeAnswer(NAME, FunctionCallStart, ev.item, `${at}/item`)
          onDelta?.({ type: 'tool_use', id: call.call_id, name: call.name })
        }
        return
      }
      case 'response.output_text.delta': {
        const ev = decodeAnswer(NAME, Delta, data, at)
        const b = ev.output_index === undefined ? undefined : items.get(ev.output_index)
        if (b !== undefined) {
          const i = ev.content_index ?? 0
          b.texts[i] = (b.texts[i] ?? '') + ev.delta
        }
        onDelta?.({ type: 'text', text: ev.delta })
        return
      }
      case 'response.function_call_arguments.delta': {
        const ev = decodeAnswer(NAME, Delta, data, at)
        const b = ev.output_index === undefined ? undefined : items.get(ev.output_index)
        if (b !== undefined) b.args += ev.delta
        return
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        onDelta?.({ type: 'thinking', text: decodeAnswer(NAME, Delta, data, at).delta })
        return
      }
      case 'response.completed':
      case 'response.incomplete':
        end = { json: decodeAnswer(NAME, EndEvent, data, at).response, at: `${at}/response` }
        return
      case 'response.failed':
        throw failed(decodeAnswer(NAME, FailedEvent, data, at).response.error)
      case 'error': {
        // The fields are on the event, or (some servers) under its `error`.
        const nested = decodeAnswer(NAME, ErrorEvent, data, at).error
        throw failed(nested ?? decodeAnswer(NAME, Failure, data, at))
      }
      default:
        return
    }
  }
  const result = (): ModelResponse => {
    if (end === undefined) throw new ProviderStreamCut(NAME, 'no response.completed event')
    const listed = Array.isArray(end.json.output) && end.json.output.length > 0
    return decodeResponse(listed ? end.json : { ...end.json, output: assembled(items) }, end.at)
  }
  return { onEvent, result }
}

/**
 * The reader of a streamed Responses answer, for whoever reads one off the
 * wire (the model proxy, forwarding to OpenAI).
 *
 * @internal
 */
export const openaiResponsesStream = (onDelta?: (d: ModelDelta) => void): StreamReader =>
  streamReader(onDelta)

/**
 * A {@link Provider} for OpenAI's Responses API (`POST {baseUrl}/responses`,
 * `Authorization: Bearer`). See {@link openaiResponsesRequest} and
 * {@link openaiResponsesResponse} for the mapping. Streaming reads
 * `response.output_text.delta`, `response.function_call_arguments.delta`,
 * `response.output_item.added` / `.done` and reasoning summary deltas; the
 * answer is the response of `response.completed` (or `response.incomplete`),
 * and a stream that ends without one is a ProviderStreamCut.
 * `response.failed` and `error` events are ProviderHttpErrors. Throws a
 * UsageError when there is no API key.
 *
 * @category providers
 */
export const openaiResponses = (options: OpenAIResponsesOptions = {}): Provider => {
  checkProviderOptions('openaiResponses', options)
  const apiKey = apiKeyFrom('openaiResponses', options.apiKey, [OPENAI_KEY_VARIABLE])!
  const url = `${baseUrlOf(options, OPENAI_BASE_URL)}/responses`
  return httpProvider(
    {
      name: NAME,
      url: () => url,
      headers: { authorization: `Bearer ${apiKey}` },
      body: (request) => openaiResponsesRequest(request, options),
      answer: (json) => decodeResponse(json, ''),
      stream: (_request, onDelta) => streamReader(onDelta),
    },
    options,
  )
}
