/**
 * The Anthropic Messages API as the model proxy speaks it (what Claude Code
 * calls at `ANTHROPIC_BASE_URL`: `POST /v1/messages?beta=true`, streamed).
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { Block, Message, ToolDefinition } from '../../../conversation/Entry.js'
import { isRecord, struct } from '../../../conversation/codec/combinators.js'
import { BlockCodec } from '../../../conversation/codec/entry.js'
import { anthropicResponse, anthropicStream } from '../../llm/anthropic.js'
import { jsonReader, streamAnswerReader } from './wire.js'
import type { ModelResponse, ToolChoice } from '../../llm/Provider.js'
import {
  ProxyRequestInvalid,
  type AnswerReader,
  type DecodedCall,
  type EncodedResponse,
  type ProxyProtocol,
} from './ProxyProtocol.js'

const NAME = 'anthropic-messages'

const TextPart = struct('TextBlock', { type: t.literal('text'), text: t.string })
const Content = t.union([t.string, t.array(BlockCodec)], 'Content')
const MessageJson = struct('Message', {
  role: t.keyof({ user: null, assistant: null, system: null }, 'Role'),
  content: Content,
})
const ToolJson = struct(
  'Tool',
  { name: t.string },
  { description: t.string, input_schema: t.UnknownRecord },
)
const ChoiceJson = struct(
  'ToolChoice',
  { type: t.string },
  { name: t.string, disable_parallel_tool_use: t.boolean },
)
const Body = struct(
  'MessagesRequest',
  { messages: t.array(MessageJson) },
  {
    model: t.string,
    system: t.union([t.string, t.array(TextPart)], 'System'),
    tools: t.array(ToolJson),
    tool_choice: ChoiceJson,
    max_tokens: t.number,
    temperature: t.number,
    stream: t.boolean,
  },
)

const pointer = (context: t.Context): string =>
  context
    .slice(1)
    .map((c) => `/${c.key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('')

const decodeBody = (body: unknown): t.TypeOf<typeof Body> => {
  const result = Body.decode(body)
  if (E.isRight(result)) return result.right
  // The deepest error: the field that is wrong, not the union around it.
  const first = [...result.left].sort((a, b) => b.context.length - a.context.length)[0]
  const path = first === undefined ? '' : pointer(first.context)
  const expected = first?.context.at(-1)?.type.name ?? Body.name
  throw new ProxyRequestInvalid(NAME, path, `expected ${expected}`)
}

const textOf = (content: string | readonly Block[]): string =>
  typeof content === 'string'
    ? content
    : content
        .filter((b): b is Extract<Block, { type: 'text' }> => b.type === 'text')
        .map((b) => b.text)
        .join('\n\n')

const choiceOf = (c: t.TypeOf<typeof ChoiceJson> | undefined): ToolChoice | undefined => {
  if (c === undefined) return undefined
  if (c.type === 'tool' && c.name !== undefined) return { type: 'tool', name: c.name }
  return c.type === 'any' || c.type === 'none' ? { type: c.type } : { type: 'auto' }
}

const decode = (body: unknown): DecodedCall => {
  const b = decodeBody(body)
  const systems: string[] = []
  if (typeof b.system === 'string') systems.push(b.system)
  else if (b.system !== undefined) systems.push(...b.system.map((p) => p.text))
  const messages: Message[] = []
  for (const m of b.messages) {
    // Claude Code sends parts of its system prompt as messages of role system.
    if (m.role === 'system') systems.push(textOf(m.content))
    else messages.push({ type: 'message', role: m.role, content: m.content })
  }
  const tools: ToolDefinition[] = (b.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    input_schema: tool.input_schema ?? {},
  }))
  const choice = choiceOf(b.tool_choice)
  return {
    stream: b.stream === true,
    request: {
      ...(b.model === undefined ? {} : { model: b.model }),
      system: systems.filter((s) => s !== '').join('\n\n'),
      messages,
      tools,
      ...(choice === undefined ? {} : { toolChoice: choice }),
      ...(b.tool_choice?.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {}),
      ...(b.max_tokens === undefined ? {} : { maxTokens: b.max_tokens }),
      ...(b.temperature === undefined ? {} : { temperature: b.temperature }),
    },
  }
}

const usageJson = (r: ModelResponse) => ({
  input_tokens: r.usage.input_tokens,
  output_tokens: r.usage.output_tokens,
  cache_creation_input_tokens: r.usage.cache_creation_input_tokens,
  cache_read_input_tokens: r.usage.cache_read_input_tokens,
})

const blockJson = (b: Block): Record<string, unknown> =>
  b.type === 'unknown' ? { ...b.raw } : { ...b }

const sse = (type: string, data: Record<string, unknown>): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

/** The events of one content block: its start (empty), its deltas, its stop. */
const blockEvents = (b: Block, index: number): string[] => {
  switch (b.type) {
    case 'text':
      return [
        sse('content_block_start', { index, content_block: { type: 'text', text: '' } }),
        sse('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } }),
        sse('content_block_stop', { index }),
      ]
    case 'thinking':
      return [
        sse('content_block_start', {
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
        sse('content_block_delta', {
          index,
          delta: { type: 'thinking_delta', thinking: b.thinking },
        }),
        sse('content_block_delta', {
          index,
          delta: { type: 'signature_delta', signature: b.signature },
        }),
        sse('content_block_stop', { index }),
      ]
    case 'tool_use':
      return [
        sse('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
        }),
        sse('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
        }),
        sse('content_block_stop', { index }),
      ]
    default:
      return [
        sse('content_block_start', { index, content_block: blockJson(b) }),
        sse('content_block_stop', { index }),
      ]
  }
}

const answerBlocks = (r: ModelResponse): readonly Block[] =>
  r.content.filter((b) => b.type !== 'compaction' && b.type !== 'tool_result' && b.type !== 'image')

const encode = (r: ModelResponse, call: DecodedCall, id: string): EncodedResponse => {
  const model = r.model ?? call.request.model ?? 'claude'
  const blocks = answerBlocks(r)
  if (!call.stream) {
    const body = {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: blocks.map(blockJson),
      stop_reason: r.stopReason,
      stop_sequence: null,
      usage: usageJson(r),
    }
    return { status: 200, contentType: 'application/json', chunks: [JSON.stringify(body)] }
  }
  const usage = usageJson(r)
  return {
    status: 200,
    contentType: 'text/event-stream',
    chunks: [
      sse('message_start', {
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 0 },
        },
      }),
      ...blocks.flatMap(blockEvents),
      sse('message_delta', {
        delta: { stop_reason: r.stopReason, stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      }),
      sse('message_stop', {}),
    ],
  }
}

const reader = (call: DecodedCall): AnswerReader =>
  call.stream ? streamAnswerReader(anthropicStream()) : jsonReader(anthropicResponse)

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  502: 'api_error',
}

const error = (status: number, message: string): EncodedResponse => ({
  status,
  contentType: 'application/json',
  chunks: [
    JSON.stringify({
      type: 'error',
      error: { type: ERROR_TYPES[status] ?? 'api_error', message },
    }),
  ],
})

/** About four characters a token: what `count_tokens` answers when no upstream does. */
const estimateTokens = (body: unknown): number =>
  Math.ceil(JSON.stringify(isRecord(body) ? (body.messages ?? body) : body).length / 4)

/**
 * The Anthropic Messages API protocol of the model proxy. Model calls are
 * `POST /v1/messages` (any query, e.g. Claude Code's `?beta=true`). A
 * request decodes into a `ModelRequest`: `system` (a string or text parts)
 * and messages of role `system` (which Claude Code sends) joined into the
 * system prompt; content blocks as Nerve reads them (unknown types kept);
 * tools, tool choice, `max_tokens`, `temperature`. An answer encodes as the
 * API's events (`message_start`, a start, delta and stop per block,
 * `message_delta` with the stop reason and output tokens, `message_stop`)
 * or as one JSON message. Errors are `{ type: 'error', error: { type,
 * message } }`. With no upstream, `POST /v1/messages/count_tokens` is
 * answered with an estimate.
 *
 * @category proxy
 * @example
 * import { anthropicMessages } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const call = anthropicMessages.decode(
 *   { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] },
 *   '/v1/messages',
 * )
 * assert.strictEqual(call.stream, true)
 * const out = anthropicMessages.encode(
 *   { content: [{ type: 'text', text: 'Hello' }], stopReason: 'end_turn',
 *     usage: { input_tokens: 3, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
 *   call,
 *   'msg_1',
 * )
 * assert.ok(out.chunks.join('').includes('"text":"Hello"'))
 */
export const anthropicMessages: ProxyProtocol = Object.freeze({
  name: NAME,
  isModelCall: (method: string, path: string) =>
    method === 'POST' && /^\/v1\/messages(?:\?|$)/.test(path),
  decode,
  encode,
  reader,
  error,
  aside: (method: string, path: string, body: unknown): EncodedResponse | undefined =>
    method === 'POST' && /^\/v1\/messages\/count_tokens(?:\?|$)/.test(path)
      ? {
          status: 200,
          contentType: 'application/json',
          chunks: [JSON.stringify({ input_tokens: estimateTokens(body) })],
        }
      : undefined,
})
