import type { ServerResponse } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { messages, systemPrompt, toolDefinitions, UsageError } from 'nerve'
import { conversation } from 'nerve/testing'
import type { ImageBlock } from '../../../src/conversation/Entry.js'
import {
  openaiChat,
  openaiChatRequest,
  openaiChatResponse,
  type OpenAIChatOptions,
} from '../../../src/interpreters/llm/openaiChat.js'
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
const provider = (options: OpenAIChatOptions = {}) =>
  openaiChat({ apiKey: 'sk-test', baseUrl: `${server.url}/v1`, ...options })
const ask: ModelRequest = {
  system: '',
  messages: [{ type: 'message', role: 'user', content: 'hi' }],
  tools: [],
}
const last = (): Received => server.received.at(-1)!

const png: ImageBlock['source'] = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' }
const pngUrl = 'data:image/png;base64,iVBORw0KGgo='
const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }

const conversationRequest: ModelRequest = {
  model: 'llama3.2',
  system: 'Be brief.',
  tools: [{ name: 'read', description: 'Reads a file', input_schema: schema }],
  toolChoice: { type: 'tool', name: 'read' },
  parallelToolCalls: false,
  maxTokens: 500,
  temperature: 0.2,
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
        { type: 'thinking', thinking: 'I should read it.', signature: 'sig' },
        { type: 'redacted_thinking', data: 'opaque' },
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
    { type: 'message', role: 'assistant', content: 'It says hello.' },
    { type: 'message', role: 'assistant', content: [{ type: 'compaction', content: 'Summary.' }] },
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'unknown', raw: { type: 'server_tool_use', id: 'x' } },
        { type: 'text', text: 'Go on' },
      ],
    },
  ],
}

const answer = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'gpt-4.1-2025-04-14',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Let me look.',
        reasoning_content: 'Need the file.',
        refusal: null,
        tool_calls: [
          {
            id: 'call_9',
            type: 'function',
            function: { name: 'read', arguments: '{"path":"b.txt"}' },
          },
          {
            id: 'call_10',
            type: 'function',
            function: { name: 'read', arguments: '{"path":"c.txt"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: {
    prompt_tokens: 1200,
    completion_tokens: 300,
    total_tokens: 1500,
    prompt_tokens_details: { cached_tokens: 1000 },
    completion_tokens_details: { reasoning_tokens: 200 },
  },
}

const pricing = { inputPerMTok: 2, outputPerMTok: 8 }
const expected: ModelResponse = {
  content: [
    { type: 'thinking', thinking: 'Need the file.', signature: '' },
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
  model: 'gpt-4.1-2025-04-14',
  cost: (1200 * 2 + 300 * 8) / 1e6,
}

type Chunk = { readonly data: unknown }
const chunk = (delta: Record<string, unknown>, finish: string | null = null): Chunk => ({
  data: {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    model: 'gpt-4.1-2025-04-14',
    choices: [{ index: 0, delta, finish_reason: finish }],
  },
})
const call = (index: number, fn: Record<string, unknown>, id?: string) => ({
  tool_calls: [{ index, ...(id !== undefined && { id, type: 'function' }), function: fn }],
})
/** The answer as OpenAI streams it; the second call's arguments interleave with the first's. */
const chunks: readonly Chunk[] = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ reasoning_content: 'Need ' }),
  chunk({ reasoning_content: 'the file.' }),
  chunk({ content: 'Let ' }),
  chunk({ content: 'me look.' }),
  chunk(call(0, { name: 'read', arguments: '' }, 'call_9')),
  chunk(call(0, { arguments: '{"pa' })),
  chunk(call(1, { name: 'read', arguments: '{"path":' }, 'call_10')),
  chunk(call(0, { arguments: 'th":"b.txt"}' })),
  chunk(call(1, { arguments: '"c.txt"}' })),
  chunk({}, 'tool_calls'),
  {
    data: {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      model: 'gpt-4.1-2025-04-14',
      choices: [],
      usage: answer.usage,
    },
  },
  { data: '[DONE]' },
]
const expectedDeltas: ModelDelta[] = [
  { type: 'thinking', text: 'Need ' },
  { type: 'thinking', text: 'the file.' },
  { type: 'text', text: 'Let ' },
  { type: 'text', text: 'me look.' },
  { type: 'tool_use', id: 'call_9', name: 'read' },
  { type: 'tool_use', id: 'call_10', name: 'read' },
]

const streamedCall = async (events: readonly Chunk[]) => {
  handler = streaming(events)
  const deltas: ModelDelta[] = []
  const response = await provider({ stream: true, pricing }).call(ask, {
    signal: signal(),
    onDelta: (d) => deltas.push(d),
  })
  return { response, deltas }
}

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (e: unknown) => e,
  )

describe('openaiChatRequest', () => {
  it('maps a conversation with tools, images and tool calls to Chat Completions messages', async () => {
    handler = answering(answer)
    await provider({ headers: { 'x-extra': '1' } }).call(conversationRequest, { signal: signal() })
    const r = last()
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/v1/chat/completions')
    expect(r.headers.authorization).toBe('Bearer sk-test')
    expect(r.headers['x-extra']).toBe('1')
    expect(r.body).toEqual({
      model: 'llama3.2',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look at this' },
            { type: 'image_url', image_url: { url: pngUrl } },
            { type: 'text', text: 'and read a.txt' },
          ],
        },
        {
          role: 'assistant',
          content: 'Reading.',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'read', arguments: '{"path":"a.txt"}' },
            },
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'read', arguments: '{"path":"b.txt"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
        { role: 'tool', tool_call_id: 'call_2', content: 'Error: not found' },
        {
          role: 'user',
          content: [
            { type: 'text', text: '[images of the result of tool call call_1]' },
            { type: 'image_url', image_url: { url: pngUrl } },
            { type: 'text', text: 'Thanks' },
          ],
        },
        { role: 'assistant', content: 'It says hello.\n\nSummary.' },
        { role: 'user', content: 'Go on' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'read', description: 'Reads a file', parameters: schema },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'read' } },
      parallel_tool_calls: false,
      max_tokens: 500,
      temperature: 0.2,
    })
  })

  it('maps each tool choice and leaves tool settings out when there are no tools', () => {
    const tools = conversationRequest.tools
    const choice = (toolChoice: ModelRequest['toolChoice']) =>
      openaiChatRequest({ ...ask, tools, ...(toolChoice && { toolChoice }) }).tool_choice
    expect(choice(undefined)).toBe('auto')
    expect(choice({ type: 'any' })).toBe('required')
    expect(choice({ type: 'none' })).toBe('none')
    const bare = openaiChatRequest({
      ...ask,
      toolChoice: { type: 'any' },
      parallelToolCalls: false,
    })
    expect(bare).toEqual({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] })
  })

  it('names the token limit max_completion_tokens for OpenAI and max_tokens for other servers', () => {
    const limited = { ...ask, maxTokens: 10 }
    expect(openaiChatRequest(limited)).toMatchObject({ max_completion_tokens: 10 })
    expect(openaiChatRequest(limited, { baseUrl: 'http://localhost:8000/v1' })).toMatchObject({
      max_tokens: 10,
    })
    expect(
      openaiChatRequest(ask, {
        maxTokens: 7,
        maxTokensField: 'max_completion_tokens',
        baseUrl: 'http://x',
      }),
    ).toMatchObject({ max_completion_tokens: 7 })
    expect(openaiChatRequest(ask, { reasoningEffort: 'low' })).toMatchObject({
      reasoning_effort: 'low',
    })
    expect(openaiChatRequest(ask, { stream: true })).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    })
  })

  it('leaves out a call without its result and sends a result without its call as text', () => {
    const body = openaiChatRequest({
      ...ask,
      messages: [
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me see.' },
            { type: 'tool_use', id: 'lost', name: 'read', input: {} },
          ],
        },
        { type: 'message', role: 'user', content: 'never mind' },
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'gone', content: 'late' }],
        },
      ],
    })
    expect(body.messages).toEqual([
      { role: 'assistant', content: 'Let me see.' },
      { role: 'user', content: 'never mind\n\n[result of tool call gone]\nlate' },
    ])
  })

  it('puts every tool message right after the call it answers, for any conversation', () => {
    fc.assert(
      fc.property(conversation(), (c) => {
        const body = openaiChatRequest({
          system: systemPrompt(c),
          messages: messages(c),
          tools: toolDefinitions(c),
        })
        let open = new Set<string>() // calls of the last assistant message not yet answered
        body.messages.forEach((m) => {
          if (m.role === 'tool') {
            expect(open.has(m.tool_call_id)).toBe(true)
            open.delete(m.tool_call_id)
            return
          }
          expect([...open]).toEqual([])
          open = new Set(m.role === 'assistant' ? (m.tool_calls ?? []).map((x) => x.id) : [])
        })
        expect([...open]).toEqual([])
        expect(JSON.parse(JSON.stringify(body))).toEqual(body)
      }),
    )
  })
})

describe('openaiChatResponse', () => {
  it('maps a non-streamed answer with reasoning, text, tool calls and usage', async () => {
    handler = answering(answer)
    const response = await provider({ pricing }).call(ask, { signal: signal() })
    expect(response).toEqual(expected)
    expect(Object.isFrozen(response.content)).toBe(true)
  })

  it('normalises the finish reason', () => {
    const stop = (finish: string | null, message: Record<string, unknown> = { content: 'x' }) =>
      openaiChatResponse({ choices: [{ message, finish_reason: finish }] }).stopReason
    const calls = answer.choices[0]!.message.tool_calls
    expect(stop('stop')).toBe('end_turn')
    expect(stop('length')).toBe('max_tokens')
    expect(stop('content_filter')).toBe('refusal')
    expect(stop('tool_calls', { tool_calls: calls })).toBe('tool_use')
    expect(stop('stop', { tool_calls: calls })).toBe('tool_use')
    expect(stop(null, { tool_calls: calls })).toBe('tool_use')
    expect(stop('stop', { content: null, refusal: 'I cannot.' })).toBe('refusal')
    expect(stop('eos')).toBe('eos')
  })

  it('reads reasoning named `reasoning` and usage without details', () => {
    const r = openaiChatResponse({
      choices: [{ message: { content: 'ok', reasoning: 'hmm' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    })
    expect(r.content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: '' },
      { type: 'text', text: 'ok' },
    ])
    expect(r.usage).toEqual({
      input_tokens: 5,
      output_tokens: 2,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      total_tokens: 7,
    })
  })

  it('gives the JSON pointer of a field of the wrong type', () => {
    const at = (body: unknown): string => {
      try {
        openaiChatResponse(body)
      } catch (e) {
        expect(e).toBeInstanceOf(ProviderMalformed)
        return (e as ProviderMalformed).path
      }
      throw new Error('no error')
    }
    const message = answer.choices[0]!.message
    const withMessage = (m: Record<string, unknown>) => ({
      ...answer,
      choices: [{ ...answer.choices[0], message: { ...message, ...m } }],
    })
    expect(at({ ...answer, usage: { ...answer.usage, prompt_tokens: '1' } })).toBe(
      '/usage/prompt_tokens',
    )
    expect(at(withMessage({ content: 5 }))).toBe('/choices/0/message/content')
    expect(at(withMessage({ tool_calls: [{ ...message.tool_calls[0], id: 9 }] }))).toBe(
      '/choices/0/message/tool_calls/0/id',
    )
    expect(
      at(
        withMessage({
          tool_calls: [
            message.tool_calls[0],
            { ...message.tool_calls[1], function: { name: 'read', arguments: '[1]' } },
          ],
        }),
      ),
    ).toBe('/choices/0/message/tool_calls/1/function/arguments')
    expect(at({ ...answer, choices: [] })).toBe('/choices')
    expect(at({ object: 'chat.completion' })).toBe('/choices')
  })
})

describe('openaiChat streaming', () => {
  it('gives the same response as without streaming, and the deltas in order', async () => {
    const { response, deltas } = await streamedCall(chunks)
    expect(response).toEqual(expected)
    expect(deltas).toEqual(expectedDeltas)
    expect(last().body).toMatchObject({ stream: true, stream_options: { include_usage: true } })
  })

  it('reads chunks split across small writes', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const text = chunks
        .map((c) => `data: ${typeof c.data === 'string' ? c.data : JSON.stringify(c.data)}\n\n`)
        .join('')
      for (let i = 0; i < text.length; i += 5) res.write(text.slice(i, i + 5))
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

  it('is a ProviderStreamCut without data: [DONE]', async () => {
    const events = chunks.slice(0, -1)
    await expect(streamedCall(events)).rejects.toBeInstanceOf(ProviderStreamCut)
    handler = (_req, res) => {
      sse(res, events, true)
    }
    const cut = await failure(provider({ stream: true }).call(ask, { signal: signal() }))
    expect(cut).toBeInstanceOf(ProviderStreamCut)
    expect(cut).toMatchObject({ retryable: true })
  })

  it('turns an error chunk into a ProviderHttpError', async () => {
    const e = await failure(
      streamedCall([chunks[0]!, { data: { error: { message: 'overloaded', code: 503 } } }]),
    )
    expect(e).toMatchObject({ _tag: 'ProviderHttpError', status: 503, retryable: true })
    const limited = await failure(
      streamedCall([{ data: { error: { message: 'slow', type: 'rate_limit_exceeded' } } }]),
    )
    expect(limited).toMatchObject({ status: 429 })
  })

  it('gives the event and field of a malformed chunk', async () => {
    const bad = async (events: readonly Chunk[]) => {
      const e = await failure(streamedCall(events))
      expect(e).toBeInstanceOf(ProviderMalformed)
      return (e as ProviderMalformed).path
    }
    expect(await bad([chunks[0]!, { data: '{oops' }])).toBe('/events/1')
    expect(await bad([chunks[0]!, chunk({ content: 7 })])).toBe('/events/1/choices/0/delta/content')
  })
})

describe('openaiChat faults', () => {
  it.each([
    [500, true],
    [503, true],
    [529, true],
    [400, false],
    [401, false],
  ])('turns HTTP %i into a ProviderHttpError (retryable: %s)', async (status, retryable) => {
    handler = answering({ error: { message: 'no' } }, status)
    const e = await failure(provider().call(ask, { signal: signal() }))
    expect(e).toBeInstanceOf(ProviderHttpError)
    expect(e).toMatchObject({ status, retryable, provider: 'openai-chat' })
  })

  it('reads Retry-After of a 429', async () => {
    handler = answering({ error: { message: 'slow' } }, 429, { 'retry-after': '2' })
    const e = await failure(provider().call(ask, { signal: signal() }))
    expect(e).toMatchObject({ status: 429, retryable: true, retryAfterMs: 2000 })
  })

  it('is a ProviderMalformed at the root when the body is not JSON', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end('Bad Gateway')
    }
    const e = await failure(provider().call(ask, { signal: signal() }))
    expect(e).toBeInstanceOf(ProviderMalformed)
    expect((e as ProviderMalformed).path).toBe('')
  })

  it('is a ProviderHttpError when a 200 answer is an error', async () => {
    handler = answering({ error: { message: 'model not found', code: 404 } })
    const e = await failure(provider().call(ask, { signal: signal() }))
    expect(e).toMatchObject({ _tag: 'ProviderHttpError', status: 404, retryable: false })
  })

  it('is a ProviderTimeout when the server stalls, before the headers or mid-stream', async () => {
    handler = () => undefined
    await expect(
      provider({ timeoutMs: 100 }).call(ask, { signal: signal() }),
    ).rejects.toBeInstanceOf(ProviderTimeout)
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`data: ${JSON.stringify(chunks[1]!.data)}\n\n`)
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
      res.write(`data: ${JSON.stringify(chunks[3]!.data)}\n\n`)
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

describe('openaiChat options', () => {
  it('needs a key for OpenAI, read from OPENAI_API_KEY, and sends none to another server unless given', async () => {
    const saved = process.env.OPENAI_API_KEY
    try {
      process.env.OPENAI_API_KEY = 'sk-env'
      expect(openaiChat().name).toBe('openai-chat')
      handler = answering(answer)
      await openaiChat({ baseUrl: server.url }).call(ask, { signal: signal() })
      expect(last().headers.authorization).toBeUndefined()
      expect(last().path).toBe('/chat/completions')
      delete process.env.OPENAI_API_KEY
      expect(() => openaiChat()).toThrow(UsageError)
      expect(() => openaiChat({ baseUrl: 'https://api.openai.com/v1/' })).toThrow(/OPENAI_API_KEY/)
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = saved
    }
  })

  it('names a bad option', () => {
    expect(() => openaiChat({ baseUrl: 'http://x', timeoutMs: 0 })).toThrow(/options\.timeoutMs/)
    expect(() =>
      openaiChat({ baseUrl: 'http://x', pricing: { inputPerMTok: -1, outputPerMTok: 1 } }),
    ).toThrow(/options\.pricing\.inputPerMTok/)
  })
})
