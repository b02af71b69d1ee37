import type { ServerResponse } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { messages, systemPrompt, toolDefinitions, UsageError } from 'nerve'
import { conversation } from 'nerve/testing'
import type { ImageBlock } from '../../../src/conversation/Entry.js'
import {
  openaiResponses,
  openaiResponsesRequest,
  openaiResponsesResponse,
  type OpenAIResponsesOptions,
} from '../../../src/interpreters/llm/openaiResponses.js'
import type {
  ModelDelta,
  ModelRequest,
  ModelResponse,
} from '../../../src/interpreters/llm/Provider.js'
import {
  ProviderHttpError,
  ProviderMalformed,
  ProviderStreamCut,
  ProviderTimeout,
} from '../../../src/interpreters/llm/ProviderError.js'
import { json, sse, startServer, type Received, type TestServer } from './server.js'

type Handler = (req: Received, res: ServerResponse) => void
let server: TestServer
const answering =
  (body: unknown, status = 200, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    json(res, body, status, headers)
  }
const streaming =
  (events: Parameters<typeof sse>[1]): Handler =>
  (_req, res) => {
    sse(res, events)
  }
let handler: Handler = answering({}, 500)
beforeAll(async () => {
  server = await startServer((req, res) => {
    handler(req, res)
  })
})
afterAll(() => server.close())

const signal = () => new AbortController().signal
const provider = (options: OpenAIResponsesOptions = {}) =>
  openaiResponses({ apiKey: 'sk-test', baseUrl: `${server.url}/v1`, ...options })
const ask: ModelRequest = {
  system: '',
  messages: [{ type: 'message', role: 'user', content: 'hi' }],
  tools: [],
}
const last = (): Received => server.received.at(-1)!

const png: ImageBlock['source'] = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' }
const pngUrl = 'data:image/png;base64,iVBORw0KGgo='
const OURS = 'gAAAAABoFirstReasoning=='
const OURS_TOO = 'gAAAAABoSecondReasoning=='
const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }

const conversationRequest: ModelRequest = {
  system: 'Be brief.',
  tools: [{ name: 'read', description: 'Reads a file', input_schema: schema }],
  toolChoice: { type: 'tool', name: 'read' },
  parallelToolCalls: false,
  maxTokens: 500,
  messages: [
    { type: 'message', role: 'user', content: 'Look at this' },
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'image', source: png },
        { type: 'text', text: 'and read a.txt' },
      ],
    },
    {
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I should read it.', signature: OURS },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgyAnthropicData' },
        { type: 'thinking', thinking: 'Theirs.', signature: 'ErUBCkYIBBgC' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'a.txt' } },
        { type: 'tool_use', id: 'call_2', name: 'read', input: { path: 'b.txt' } },
      ],
    },
    {
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'call_1',
          content: [
            { type: 'text', text: 'hello' },
            { type: 'image', source: png },
          ],
        },
        { type: 'tool_result', tool_use_id: 'call_2', content: 'not found', is_error: true },
        { type: 'text', text: 'Thanks' },
      ],
    },
    {
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'redacted_thinking', data: OURS_TOO },
        { type: 'text', text: 'It says hello.' },
      ],
    },
    { type: 'message', role: 'user', content: [{ type: 'compaction', content: 'Summary.' }] },
    {
      type: 'message',
      role: 'user',
      content: [{ type: 'unknown', raw: { type: 'server_tool_use', id: 'x' } }],
    },
  ],
}

const answer = {
  id: 'resp_1',
  object: 'response',
  status: 'completed',
  model: 'gpt-5-2025-08-07',
  output: [
    {
      id: 'rs_1',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Need the file.' }],
      encrypted_content: 'gAAAAABoNew==',
    },
    {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Let me look.', annotations: [] }],
    },
    {
      id: 'fc_1',
      type: 'function_call',
      call_id: 'call_9',
      name: 'read',
      arguments: '{"path":"b.txt"}',
      status: 'completed',
    },
    {
      id: 'fc_2',
      type: 'function_call',
      call_id: 'call_10',
      name: 'read',
      arguments: '{"path":"c.txt"}',
      status: 'completed',
    },
  ],
  usage: {
    input_tokens: 1200,
    input_tokens_details: { cached_tokens: 1000 },
    output_tokens: 300,
    output_tokens_details: { reasoning_tokens: 200 },
    total_tokens: 1500,
  },
}

const expected: ModelResponse = {
  content: [
    { type: 'thinking', thinking: 'Need the file.', signature: 'gAAAAABoNew==' },
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_use', id: 'call_9', name: 'read', input: { path: 'b.txt' } },
    { type: 'tool_use', id: 'call_10', name: 'read', input: { path: 'c.txt' } },
  ],
  stopReason: 'tool_use',
  usage: {
    input_tokens: 200,
    output_tokens: 300,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 1000,
    cached_tokens: 1000,
    reasoning_tokens: 200,
    total_tokens: 1500,
  },
  model: 'gpt-5-2025-08-07',
  cost: (1200 * 1.25 + 300 * 10) / 1e6,
}
const pricing = { inputPerMTok: 1.25, outputPerMTok: 10 }

type Event = { readonly event: string; readonly data: Record<string, unknown> }
const ev = (type: string, data: Record<string, unknown> = {}): Event => ({
  event: type,
  data: { type, ...data },
})
const [reasoning, message, call9, call10] = answer.output as unknown as [
  Record<string, unknown>,
  Record<string, unknown>,
  Record<string, unknown>,
  Record<string, unknown>,
]
/** The answer as OpenAI streams it, with the completed response at the end. */
const streamEvents = (completedOutput: readonly unknown[] = answer.output): Event[] => [
  ev('response.created', { response: { ...answer, status: 'in_progress', output: [] } }),
  ev('response.output_item.added', {
    output_index: 0,
    item: { id: 'rs_1', type: 'reasoning', summary: [] },
  }),
  ev('response.reasoning_summary_text.delta', {
    output_index: 0,
    summary_index: 0,
    delta: 'Need ',
  }),
  ev('response.reasoning_summary_text.delta', {
    output_index: 0,
    summary_index: 0,
    delta: 'the file.',
  }),
  ev('response.output_item.done', { output_index: 0, item: reasoning }),
  ev('response.output_item.added', {
    output_index: 1,
    item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] },
  }),
  ev('response.content_part.added', { output_index: 1, content_index: 0, part: {} }),
  ev('response.output_text.delta', { output_index: 1, content_index: 0, delta: 'Let ' }),
  ev('response.output_text.delta', { output_index: 1, content_index: 0, delta: 'me look.' }),
  ev('response.output_text.done', { output_index: 1, content_index: 0, text: 'Let me look.' }),
  ev('response.output_item.added', {
    output_index: 2,
    item: { ...call9, arguments: '', status: 'in_progress' },
  }),
  ev('response.function_call_arguments.delta', { output_index: 2, delta: '{"pa' }),
  ev('response.function_call_arguments.delta', { output_index: 2, delta: 'th":"b.txt"}' }),
  ev('response.output_item.added', {
    output_index: 3,
    item: { ...call10, arguments: '', status: 'in_progress' },
  }),
  ev('response.function_call_arguments.delta', { output_index: 3, delta: '{"path":' }),
  ev('response.function_call_arguments.delta', { output_index: 3, delta: '"c.txt"}' }),
  ev('response.completed', { response: { ...answer, output: completedOutput } }),
]
const expectedDeltas: ModelDelta[] = [
  { type: 'thinking', text: 'Need ' },
  { type: 'thinking', text: 'the file.' },
  { type: 'text', text: 'Let ' },
  { type: 'text', text: 'me look.' },
  { type: 'tool_use', id: 'call_9', name: 'read' },
  { type: 'tool_use', id: 'call_10', name: 'read' },
]

const streamedCall = async (events: readonly Event[]) => {
  handler = streaming(events)
  const deltas: ModelDelta[] = []
  const response = await provider({ stream: true, pricing }).call(ask, {
    signal: signal(),
    onDelta: (d) => deltas.push(d),
  })
  return { response, deltas }
}

describe('openaiResponsesRequest', () => {
  it('maps a conversation with tools, images, tool calls and reasoning to Responses input items', async () => {
    handler = answering(answer)
    await provider({ model: 'gpt-4.1', headers: { 'openai-organization': 'org-1' } }).call(
      conversationRequest,
      { signal: signal() },
    )
    const r = last()
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/v1/responses')
    expect(r.headers.authorization).toBe('Bearer sk-test')
    expect(r.headers['openai-organization']).toBe('org-1')
    expect(r.headers['content-type']).toBe('application/json')
    expect(r.body).toEqual({
      model: 'gpt-4.1',
      instructions: 'Be brief.',
      input: [
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look at this' },
            { type: 'input_image', image_url: pngUrl, detail: 'auto' },
            { type: 'input_text', text: 'and read a.txt' },
          ],
        },
        {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'I should read it.' }],
          encrypted_content: OURS,
        },
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Reading.' }],
        },
        { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"a.txt"}' },
        { type: 'function_call', call_id: 'call_2', name: 'read', arguments: '{"path":"b.txt"}' },
        {
          type: 'function_call_output',
          call_id: 'call_1',
          output: [
            { type: 'input_text', text: 'hello' },
            { type: 'input_image', image_url: pngUrl, detail: 'auto' },
          ],
        },
        { type: 'function_call_output', call_id: 'call_2', output: 'Error: not found' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
        { type: 'reasoning', summary: [], encrypted_content: OURS_TOO },
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'It says hello.' }],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Summary.' }] },
      ],
      tools: [
        {
          type: 'function',
          name: 'read',
          description: 'Reads a file',
          parameters: schema,
          strict: false,
        },
      ],
      tool_choice: { type: 'function', name: 'read' },
      parallel_tool_calls: false,
      max_output_tokens: 500,
      store: false,
      include: ['reasoning.encrypted_content'],
    })
  })

  it('maps each tool choice and leaves tool settings out when there are no tools', () => {
    const tools = conversationRequest.tools
    const choice = (toolChoice: ModelRequest['toolChoice']) =>
      openaiResponsesRequest({ ...ask, tools, ...(toolChoice && { toolChoice }) }).tool_choice
    expect(choice(undefined)).toBe('auto')
    expect(choice({ type: 'auto' })).toBe('auto')
    expect(choice({ type: 'any' })).toBe('required')
    expect(choice({ type: 'none' })).toBe('none')
    const bare = openaiResponsesRequest({ ...ask, toolChoice: { type: 'any' } })
    expect(bare).not.toHaveProperty('tools')
    expect(bare).not.toHaveProperty('tool_choice')
    expect(bare).not.toHaveProperty('instructions')
  })

  it('asks for encrypted reasoning for reasoning models, given reasoning or carried reasoning only', () => {
    const include = (request: ModelRequest, options: OpenAIResponsesOptions) =>
      openaiResponsesRequest(request, options).include
    expect(include(ask, {})).toEqual(['reasoning.encrypted_content'])
    expect(include(ask, { model: 'o4-mini' })).toEqual(['reasoning.encrypted_content'])
    expect(include(ask, { model: 'gpt-4.1' })).toBeUndefined()
    expect(include(ask, { model: 'gpt-5-chat-latest' })).toBeUndefined()
    expect(include(ask, { model: 'gpt-4.1', reasoning: { effort: 'low' } })).toEqual([
      'reasoning.encrypted_content',
    ])
    expect(include(ask, { encryptedReasoning: false })).toBeUndefined()
    const carried: ModelRequest = {
      ...ask,
      messages: [
        ...ask.messages,
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'redacted_thinking', data: OURS }],
        },
      ],
    }
    expect(include(carried, { model: 'gpt-4.1' })).toEqual(['reasoning.encrypted_content'])
    expect(openaiResponsesRequest(ask, { reasoning: { effort: 'low' } }).reasoning).toEqual({
      effort: 'low',
    })
  })

  it('leaves out a call without its result and sends a result without its call as text', () => {
    const body = openaiResponsesRequest({
      ...ask,
      messages: [
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'lost', name: 'read', input: {} }],
        },
        { type: 'message', role: 'user', content: 'never mind' },
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'gone', content: 'late', is_error: true }],
        },
      ],
    })
    expect(body.input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'never mind' },
          { type: 'input_text', text: '[result of tool call gone, an error]\nlate' },
        ],
      },
    ])
  })

  it('keeps every function output after its call, for any conversation', () => {
    fc.assert(
      fc.property(conversation(), (c) => {
        const body = openaiResponsesRequest({
          system: systemPrompt(c),
          messages: messages(c),
          tools: toolDefinitions(c),
        })
        const called = new Map<string, number>()
        const answered = new Set<string>()
        body.input.forEach((item, i) => {
          if (item.type === 'function_call') called.set(item.call_id, i)
          if (item.type === 'function_call_output') {
            expect(called.get(item.call_id)).toBeLessThan(i)
            expect(answered.has(item.call_id)).toBe(false)
            answered.add(item.call_id)
          }
        })
        expect([...answered].sort()).toEqual([...called.keys()].sort())
        expect(JSON.parse(JSON.stringify(body))).toEqual(body)
      }),
    )
  })
})

describe('openaiResponsesResponse', () => {
  it('maps a non-streamed answer with reasoning, text, tool calls and usage', async () => {
    handler = answering(answer)
    const response = await provider({ pricing }).call(ask, { signal: signal() })
    expect(response).toEqual(expected)
    expect(Object.isFrozen(response.content)).toBe(true)
  })

  it('normalises the stop reason', () => {
    const stop = (extra: Record<string, unknown>, output: unknown[] = []) =>
      openaiResponsesResponse({ ...answer, output, ...extra }).stopReason
    const text = { type: 'message', content: [{ type: 'output_text', text: 'x' }] }
    expect(stop({}, [text])).toBe('end_turn')
    expect(stop({}, [text, answer.output[2]])).toBe('tool_use')
    expect(
      stop({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }, [text]),
    ).toBe('max_tokens')
    expect(
      stop({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } }, [text]),
    ).toBe('refusal')
    expect(stop({}, [{ type: 'message', content: [{ type: 'refusal', refusal: 'No.' }] }])).toBe(
      'refusal',
    )
  })

  it('maps reasoning without a summary to redacted_thinking and skips other item types', () => {
    const r = openaiResponsesResponse({
      output: [
        { type: 'reasoning', summary: [], encrypted_content: 'gAAAAABoX' },
        { type: 'reasoning', summary: [] },
        { type: 'web_search_call', id: 'ws_1' },
      ],
    })
    expect(r.content).toEqual([{ type: 'redacted_thinking', data: 'gAAAAABoX' }])
    expect(r.usage.input_tokens).toBe(0)
  })

  it('gives the JSON pointer of a field of the wrong type', () => {
    const at = (body: unknown): string => {
      try {
        openaiResponsesResponse(body)
      } catch (e) {
        expect(e).toBeInstanceOf(ProviderMalformed)
        expect((e as ProviderMalformed).retryable).toBe(false)
        return (e as ProviderMalformed).path
      }
      throw new Error('no error')
    }
    expect(at({ ...answer, usage: { ...answer.usage, input_tokens: 'many' } })).toBe(
      '/usage/input_tokens',
    )
    expect(
      at({ ...answer, usage: { ...answer.usage, input_tokens_details: { cached_tokens: '1' } } }),
    ).toBe('/usage/input_tokens_details/cached_tokens')
    expect(at({ ...answer, output: [{ ...call9, call_id: 5 }] })).toBe('/output/0/call_id')
    expect(at({ ...answer, output: [{ ...call9, arguments: '{"pa' }] })).toBe('/output/0/arguments')
    expect(at({ ...answer, output: [{ ...message, content: [{ type: 'output_text' }] }] })).toBe(
      '/output/0/content/0/text',
    )
    expect(at({ id: 'resp_1' })).toBe('/output')
  })
})

describe('openaiResponses streaming', () => {
  it('gives the same response as without streaming, and the deltas in order', async () => {
    const { response, deltas } = await streamedCall(streamEvents())
    expect(response).toEqual(expected)
    expect(deltas).toEqual(expectedDeltas)
    expect(last().body).toMatchObject({ stream: true, store: false })
  })

  it('builds the output from the events when the completed response lists none', async () => {
    const { response, deltas } = await streamedCall(streamEvents([]))
    expect(response).toEqual(expected)
    expect(deltas).toEqual(expectedDeltas)
  })

  it('reads events split across small writes', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const text = streamEvents()
        .map((e) => `event: ${e.event}\r\ndata: ${JSON.stringify(e.data)}\r\n\r\n`)
        .join('')
      for (let i = 0; i < text.length; i += 7) res.write(text.slice(i, i + 7))
      res.end()
    }
    const deltas: ModelDelta[] = []
    const response = await provider({ stream: true, pricing }).call(ask, {
      signal: signal(),
      onDelta: (d) => deltas.push(d),
    })
    expect(response).toEqual(expected)
    expect(deltas).toEqual(expectedDeltas)
  })

  it('ends at response.incomplete with max_tokens', async () => {
    const { response } = await streamedCall([
      ev('response.incomplete', {
        response: {
          ...answer,
          status: 'incomplete',
          incomplete_details: { reason: 'max_output_tokens' },
          output: [answer.output[1]],
        },
      }),
    ])
    expect(response.stopReason).toBe('max_tokens')
    expect(response.content).toEqual([{ type: 'text', text: 'Let me look.' }])
  })

  it('is a ProviderStreamCut when the stream ends before response.completed', async () => {
    const events = streamEvents().slice(0, -1)
    await expect(streamedCall(events)).rejects.toBeInstanceOf(ProviderStreamCut)
    handler = (_req, res) => {
      sse(res, events, true)
    }
    const deltas: ModelDelta[] = []
    const cut = await provider({ stream: true })
      .call(ask, { signal: signal(), onDelta: (d) => deltas.push(d) })
      .catch((e: unknown) => e)
    expect(cut).toBeInstanceOf(ProviderStreamCut)
    expect(cut).toMatchObject({ retryable: true })
    expect(deltas).toEqual(expectedDeltas)
  })

  it('is a retryable ProviderHttpError on response.failed and a 429 on a rate limit error event', async () => {
    const failedEvent = ev('response.failed', {
      response: { ...answer, status: 'failed', error: { code: 'server_error', message: 'boom' } },
    })
    const failure = await streamedCall([streamEvents()[0]!, failedEvent]).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(ProviderHttpError)
    expect(failure).toMatchObject({ status: 500, retryable: true })
    expect((failure as ProviderHttpError).body).toContain('boom')
    const limited = await streamedCall([
      ev('error', { code: 'rate_limit_exceeded', message: 'slow down', param: null }),
    ]).catch((e: unknown) => e)
    expect(limited).toMatchObject({ _tag: 'ProviderHttpError', status: 429, retryable: true })
    const invalid = await streamedCall([
      ev('error', { code: 'invalid_prompt', message: 'no', param: null }),
    ]).catch((e: unknown) => e)
    expect(invalid).toMatchObject({ status: 400, retryable: false })
    const nested = await streamedCall([
      ev('error', { error: { type: 'server_error', code: 'server_error', message: 'x' } }),
    ]).catch((e: unknown) => e)
    expect(nested).toMatchObject({ status: 500, retryable: true })
  })

  it('gives the event and field of a malformed event', async () => {
    const bad = async (events: readonly { event?: string; data: unknown }[]) => {
      handler = streaming(events)
      const e = await provider({ stream: true })
        .call(ask, { signal: signal() })
        .catch((x: unknown) => x)
      expect(e).toBeInstanceOf(ProviderMalformed)
      return (e as ProviderMalformed).path
    }
    expect(await bad([streamEvents()[0]!, { data: '{not json' }])).toBe('/events/1')
    expect(
      await bad([
        streamEvents()[0]!,
        ev('response.output_text.delta', { output_index: 0, delta: 5 }),
      ]),
    ).toBe('/events/1/delta')
    expect(
      await bad([
        ev('response.completed', { response: { ...answer, output: [{ ...call9, name: 1 }] } }),
      ]),
    ).toBe('/events/0/response/output/0/name')
  })
})

describe('openaiResponses faults', () => {
  it.each([
    [500, true],
    [503, true],
    [529, true],
    [400, false],
    [401, false],
  ])('turns HTTP %i into a ProviderHttpError (retryable: %s)', async (status, retryable) => {
    handler = answering({ error: { message: 'no', type: 'x' } }, status)
    const e = await provider()
      .call(ask, { signal: signal() })
      .catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ProviderHttpError)
    expect(e).toMatchObject({ status, retryable, provider: 'openai-responses' })
  })

  it('reads Retry-After of a 429', async () => {
    handler = answering({ error: { message: 'slow' } }, 429, { 'retry-after': '2' })
    const e = await provider()
      .call(ask, { signal: signal() })
      .catch((x: unknown) => x)
    expect(e).toMatchObject({ status: 429, retryable: true, retryAfterMs: 2000 })
  })

  it('is a ProviderMalformed at the root when the body is not JSON', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end('<html>oops</html>')
    }
    const e = await provider()
      .call(ask, { signal: signal() })
      .catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ProviderMalformed)
    expect((e as ProviderMalformed).path).toBe('')
  })

  it('is a ProviderHttpError when a non-streamed response failed', async () => {
    handler = answering({
      ...answer,
      status: 'failed',
      error: { code: 'server_error', message: 'x' },
    })
    const e = await provider()
      .call(ask, { signal: signal() })
      .catch((x: unknown) => x)
    expect(e).toMatchObject({ _tag: 'ProviderHttpError', status: 500, retryable: true })
  })

  it('is a ProviderTimeout when the server stalls, before the headers or mid-stream', async () => {
    handler = () => undefined
    await expect(
      provider({ timeoutMs: 100 }).call(ask, { signal: signal() }),
    ).rejects.toBeInstanceOf(ProviderTimeout)
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`event: response.created\ndata: ${JSON.stringify(streamEvents()[0]!.data)}\n\n`)
    }
    await expect(
      provider({ timeoutMs: 100, stream: true }).call(ask, { signal: signal() }),
    ).rejects.toBeInstanceOf(ProviderTimeout)
  })

  it('rejects with the abort reason when aborted before the headers', async () => {
    const controller = new AbortController()
    const reason = new Error('stop now')
    handler = () => {
      controller.abort(reason)
    }
    await expect(provider().call(ask, { signal: controller.signal })).rejects.toBe(reason)
  })

  it('rejects with the abort reason when aborted mid-stream', async () => {
    const controller = new AbortController()
    const reason = new Error('stop streaming')
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const first = ev('response.output_text.delta', { output_index: 0, delta: 'Hel' })
      res.write(`data: ${JSON.stringify(first.data)}\n\n`)
    }
    const call = provider({ stream: true }).call(ask, {
      signal: controller.signal,
      onDelta: () => {
        controller.abort(reason)
      },
    })
    await expect(call).rejects.toBe(reason)
  })
})

describe('openaiResponses options', () => {
  it('reads OPENAI_API_KEY when no key is given, and names it when it is missing', async () => {
    const saved = process.env.OPENAI_API_KEY
    try {
      process.env.OPENAI_API_KEY = 'sk-env'
      handler = answering(answer)
      await openaiResponses({ baseUrl: server.url }).call(ask, { signal: signal() })
      expect(last().headers.authorization).toBe('Bearer sk-env')
      expect(last().path).toBe('/responses')
      delete process.env.OPENAI_API_KEY
      expect(() => openaiResponses()).toThrow(UsageError)
      expect(() => openaiResponses()).toThrow(/OPENAI_API_KEY/)
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = saved
    }
  })

  it('names a bad option', () => {
    expect(() => openaiResponses({ apiKey: 'k', timeoutMs: -1 })).toThrow(/options\.timeoutMs/)
    expect(() => openaiResponses({ apiKey: 'k', baseUrl: 'not a url' })).toThrow(/options\.baseUrl/)
    expect(() => openaiResponses({ apiKey: 'k', maxTokens: 1.5 })).toThrow(/options\.maxTokens/)
  })
})
