/**
 * The OpenAI Responses API as the model proxy speaks it (what Codex CLI
 * calls at its provider's `base_url` with `wire_api = "responses"`:
 * `POST /v1/responses`, streamed).
 */
import * as t from 'io-ts'
import type {
  Block,
  ImageBlock,
  Message,
  TextBlock,
  ToolDefinition,
} from '../../../conversation/Entry.js'
import { struct } from '../../../conversation/codec/combinators.js'
import { orNull } from '../../llm/decode.js'
import { openaiResponsesResponse, openaiResponsesStream } from '../../llm/openaiResponses.js'
import type { ModelResponse, ToolChoice } from '../../llm/Provider.js'
import type { AnswerReader, DecodedCall, EncodedResponse, ProxyProtocol } from './ProxyProtocol.js'
import { decodeRequest, jsonReader, jsonResponse, parseObject, streamAnswerReader } from './wire.js'

const NAME = 'openai-responses'

const Part = struct('ContentPart', { type: t.string }, { text: t.string, image_url: t.string })
const Content = t.union([t.string, t.array(Part)], 'Content')
const Item = struct(
  'InputItem',
  {},
  {
    type: t.string,
    role: t.string,
    content: Content,
    call_id: t.string,
    name: t.string,
    arguments: t.string,
    output: Content,
    summary: orNull(t.array(struct('SummaryText', { text: t.string }))),
    encrypted_content: orNull(t.string),
  },
)
const Tool = struct(
  'Tool',
  { type: t.string },
  { name: t.string, description: orNull(t.string), parameters: orNull(t.UnknownRecord) },
)
const Body = struct(
  'ResponsesRequest',
  { input: t.union([t.string, t.array(Item)], 'Input') },
  {
    model: t.string,
    instructions: orNull(t.string),
    tools: t.array(Tool),
    tool_choice: t.union([t.string, struct('NamedChoice', { type: t.string }, { name: t.string })]),
    parallel_tool_calls: orNull(t.boolean),
    max_output_tokens: orNull(t.number),
    temperature: orNull(t.number),
    stream: orNull(t.boolean),
  },
)
type ItemJson = t.TypeOf<typeof Item>
type PartJson = t.TypeOf<typeof Part>

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s

const partBlock = (p: PartJson): TextBlock | ImageBlock | undefined => {
  if (p.text !== undefined) return { type: 'text', text: p.text }
  if (p.image_url === undefined) return undefined
  const m = DATA_URL.exec(p.image_url)
  if (m === null) return { type: 'text', text: `[image: ${p.image_url}]` }
  return { type: 'image', source: { type: 'base64', media_type: m[1]!, data: m[2]! } }
}

const partsOf = (content: string | readonly PartJson[]): (TextBlock | ImageBlock)[] =>
  typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : content.flatMap((p) => partBlock(p) ?? [])

const textOf = (content: string | readonly PartJson[] | undefined): string =>
  content === undefined
    ? ''
    : partsOf(content)
        .flatMap((b) => (b.type === 'text' ? [b.text] : []))
        .join('\n\n')

/** Builds messages: consecutive blocks of one role make one message. */
class Turns {
  readonly messages: Message[] = []
  private role: 'user' | 'assistant' | undefined
  private blocks: Block[] = []

  push(role: 'user' | 'assistant', ...blocks: Block[]): void {
    if (blocks.length === 0) return
    if (role !== this.role) this.flush()
    this.role = role
    this.blocks.push(...blocks)
  }

  flush(): Message[] {
    if (this.role !== undefined && this.blocks.length > 0)
      this.messages.push({ type: 'message', role: this.role, content: this.blocks })
    this.blocks = []
    this.role = undefined
    return this.messages
  }
}

/** One input item into the turns (or, for a developer or system message, the system prompt). */
const take = (item: ItemJson, at: string, turns: Turns, system: string[]): void => {
  const type = item.type ?? 'message'
  switch (type) {
    case 'message': {
      const role = item.role ?? 'user'
      if (role === 'system' || role === 'developer') system.push(textOf(item.content))
      else turns.push(role === 'assistant' ? 'assistant' : 'user', ...partsOf(item.content ?? ''))
      return
    }
    case 'function_call':
      turns.push('assistant', {
        type: 'tool_use',
        id: item.call_id ?? '',
        name: item.name ?? '',
        input: parseObject(NAME, item.arguments ?? '', `${at}/arguments`),
      })
      return
    case 'function_call_output': {
      const output = item.output ?? ''
      turns.push('user', {
        type: 'tool_result',
        tool_use_id: item.call_id ?? '',
        content: typeof output === 'string' ? output : partsOf(output),
      })
      return
    }
    case 'reasoning': {
      const thinking = (item.summary ?? []).map((s) => s.text).join('\n\n')
      const encrypted = item.encrypted_content ?? ''
      if (thinking !== '')
        turns.push('assistant', { type: 'thinking', thinking, signature: encrypted })
      else if (encrypted !== '')
        turns.push('assistant', { type: 'redacted_thinking', data: encrypted })
      return
    }
    case 'additional_tools':
      // Tools declared in the input (newer models' code mode): their custom tools are not function tools.
      return
    default:
      // Other items (a custom tool's call, a web search) travel as they came.
      turns.push('assistant', { type: 'unknown', raw: { ...item, type } })
  }
}

const choiceOf = (c: t.TypeOf<typeof Body>['tool_choice']): ToolChoice | undefined => {
  if (c === undefined) return undefined
  if (typeof c !== 'string')
    return c.name === undefined ? { type: 'auto' } : { type: 'tool', name: c.name }
  return c === 'required' ? { type: 'any' } : c === 'none' ? { type: 'none' } : { type: 'auto' }
}

const decode = (body: unknown): DecodedCall => {
  const b = decodeRequest(NAME, Body, body)
  const system: string[] = b.instructions == null ? [] : [b.instructions]
  const turns = new Turns()
  if (typeof b.input === 'string') turns.push('user', { type: 'text', text: b.input })
  else
    b.input.forEach((item, i) => {
      take(item, `/input/${i}`, turns, system)
    })
  const tools: ToolDefinition[] = (b.tools ?? []).flatMap((tool) =>
    tool.type === 'function' && tool.name !== undefined
      ? [
          {
            name: tool.name,
            description: tool.description ?? '',
            input_schema: tool.parameters ?? {},
          },
        ]
      : [],
  )
  const choice = choiceOf(b.tool_choice)
  return {
    stream: b.stream === true,
    request: {
      ...(b.model === undefined ? {} : { model: b.model }),
      system: system.filter((s) => s !== '').join('\n\n'),
      messages: turns.flush(),
      tools,
      ...(choice === undefined ? {} : { toolChoice: choice }),
      ...(b.parallel_tool_calls === false ? { parallelToolCalls: false } : {}),
      ...(b.max_output_tokens == null ? {} : { maxTokens: b.max_output_tokens }),
      ...(b.temperature == null ? {} : { temperature: b.temperature }),
    },
  }
}

type OutputItem = Readonly<Record<string, unknown>> & { readonly type: string; readonly id: string }

/** The answer's output items: runs of text make one message, then calls and reasoning. */
const outputOf = (r: ModelResponse, id: string): OutputItem[] => {
  const items: OutputItem[] = []
  let texts: string[] = []
  const flush = () => {
    if (texts.length === 0) return
    const content = texts.map((text) => ({ type: 'output_text', text, annotations: [] }))
    items.push({
      type: 'message',
      id: `msg_${id}_${items.length}`,
      role: 'assistant',
      status: 'completed',
      content,
    })
    texts = []
  }
  for (const b of r.content) {
    if (b.type === 'text') texts.push(b.text)
    else if (b.type === 'tool_use') {
      flush()
      const args = JSON.stringify(b.input)
      items.push({
        type: 'function_call',
        id: `fc_${id}_${items.length}`,
        status: 'completed',
        call_id: b.id,
        name: b.name,
        arguments: args,
      })
    } else if (b.type === 'thinking' || b.type === 'redacted_thinking') {
      flush()
      const summary = b.type === 'thinking' ? [{ type: 'summary_text', text: b.thinking }] : []
      const encrypted = b.type === 'thinking' ? b.signature : b.data
      items.push({
        type: 'reasoning',
        id: `rs_${id}_${items.length}`,
        summary,
        ...(encrypted === '' ? {} : { encrypted_content: encrypted }),
      })
    }
  }
  flush()
  return items
}

const usageJson = (r: ModelResponse) => {
  const u = r.usage
  const input = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cache_read_input_tokens },
    output_tokens: u.output_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
    total_tokens: u.total_tokens ?? input + u.output_tokens,
  }
}

const responseJson = (r: ModelResponse, call: DecodedCall, id: string) => {
  const incomplete = r.stopReason === 'max_tokens' || r.stopReason === 'refusal'
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: 0,
    status: incomplete ? 'incomplete' : 'completed',
    ...(incomplete && {
      incomplete_details: {
        reason: r.stopReason === 'refusal' ? 'content_filter' : 'max_output_tokens',
      },
    }),
    model: r.model ?? call.request.model ?? 'model',
    output: outputOf(r, id),
    usage: usageJson(r),
  }
}

const sse = (type: string, data: Readonly<Record<string, unknown>>, n: number): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n, ...data })}\n\n`

/** The events of one output item: added (empty), its deltas, done. */
const itemEvents = (
  item: OutputItem,
  output_index: number,
): [string, Record<string, unknown>][] => {
  const item_id = item.id
  const at = { item_id, output_index }
  if (item.type === 'message') {
    const parts = item.content as readonly { readonly text: string }[]
    return [
      [
        'response.output_item.added',
        { output_index, item: { ...item, status: 'in_progress', content: [] } },
      ],
      ...parts.flatMap((p, content_index): [string, Record<string, unknown>][] => [
        [
          'response.content_part.added',
          { ...at, content_index, part: { type: 'output_text', text: '', annotations: [] } },
        ],
        ['response.output_text.delta', { ...at, content_index, delta: p.text }],
        ['response.output_text.done', { ...at, content_index, text: p.text }],
        ['response.content_part.done', { ...at, content_index, part: p }],
      ]),
      ['response.output_item.done', { output_index, item }],
    ]
  }
  if (item.type === 'function_call') {
    return [
      [
        'response.output_item.added',
        { output_index, item: { ...item, status: 'in_progress', arguments: '' } },
      ],
      ['response.function_call_arguments.delta', { ...at, delta: item.arguments }],
      ['response.function_call_arguments.done', { ...at, arguments: item.arguments }],
      ['response.output_item.done', { output_index, item }],
    ]
  }
  return [
    ['response.output_item.added', { output_index, item }],
    ['response.output_item.done', { output_index, item }],
  ]
}

const encode = (r: ModelResponse, call: DecodedCall, id: string): EncodedResponse => {
  const done = responseJson(r, call, id)
  if (!call.stream) return jsonResponse(200, done)
  const started = { ...done, status: 'in_progress', output: [], usage: null }
  delete (started as { incomplete_details?: unknown }).incomplete_details
  const events: [string, Record<string, unknown>][] = [
    ['response.created', { response: started }],
    ['response.in_progress', { response: started }],
    ...done.output.flatMap((item, i) => itemEvents(item, i)),
    [
      done.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
      { response: done },
    ],
  ]
  return {
    status: 200,
    contentType: 'text/event-stream',
    chunks: events.map(([type, data], n) => sse(type, data, n)),
  }
}

const reader = (call: DecodedCall): AnswerReader =>
  call.stream
    ? streamAnswerReader(openaiResponsesStream())
    : jsonReader((json) => openaiResponsesResponse(json))

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  404: 'not_found_error',
  429: 'rate_limit_exceeded',
}

const error = (status: number, message: string): EncodedResponse =>
  jsonResponse(status, {
    error: { message, type: ERROR_TYPES[status] ?? 'server_error', code: null, param: null },
  })

/**
 * The OpenAI Responses API protocol of the model proxy. Model calls are
 * `POST /v1/responses` (or `/responses`). A request decodes into a
 * `ModelRequest`: `instructions` and the messages of role `developer` or
 * `system` (Codex sends its prompt as developer messages) joined into the
 * system prompt; user and assistant messages (text, images as data URLs),
 * `function_call` → tool_use (arguments parsed), `function_call_output` →
 * tool_result, `reasoning` → thinking (summary, encrypted content as
 * signature) or redacted_thinking, other items kept as unknown blocks;
 * function tools (other kinds, such as namespaces or web search, are left
 * out), tool choice, `parallel_tool_calls`, `max_output_tokens`,
 * `temperature`. An answer encodes as the API's events
 * (`response.created`, per output item: `output_item.added`, the text or
 * arguments deltas, `output_item.done`; then `response.completed` with the
 * usage, or `response.incomplete`) or as one response object. Cached input
 * tokens count in `input_tokens` and in its details, as OpenAI reports
 * them. Errors are `{ error: { message, type } }`.
 *
 * @category proxy
 * @example
 * import { openaiResponsesProtocol } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const call = openaiResponsesProtocol.decode(
 *   { model: 'gpt-5', stream: true, input: [{ type: 'message', role: 'developer', content: 'Be brief.' }, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }] },
 *   '/v1/responses',
 * )
 * assert.strictEqual(call.request.system, 'Be brief.')
 * const out = openaiResponsesProtocol.encode(
 *   { content: [{ type: 'text', text: 'Hello' }], stopReason: 'end_turn',
 *     usage: { input_tokens: 3, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
 *   call,
 *   '1',
 * )
 * assert.ok(out.chunks.at(-1)?.startsWith('event: response.completed'))
 */
export const openaiResponsesProtocol: ProxyProtocol = Object.freeze({
  name: NAME,
  isModelCall: (method: string, path: string) =>
    method === 'POST' && /^(?:\/v1)?\/responses(?:\?|$)/.test(path),
  decode,
  encode,
  reader,
  error,
})
