import { describe, expect, it } from 'vitest'
import { UsageError } from 'nerve'
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
import { ProviderMalformed } from '../../../src/interpreters/llm/ProviderError.js'
import type { TestServer } from './server.js'
import {
  answering,
  ask,
  failureOf,
  imageUrl,
  providerSuite,
  readSchema,
  readTool,
  requestLaw,
  serve,
  signal,
  streaming,
  stubEnv,
  twoCalls,
  type ProtocolCase,
  type Step,
  type StreamEvent,
} from './providerKit.js'

const provider = (s: TestServer, options: OpenAIChatOptions = {}) =>
  openaiChat({ apiKey: 'sk-test', baseUrl: `${s.url}/v1`, ...options })
const conversationRequest: ModelRequest = {
  model: 'llama3.2',
  system: 'Be brief.',
  tools: [readTool],
  toolChoice: { type: 'tool', name: 'read' },
  parallelToolCalls: false,
  maxTokens: 500,
  temperature: 0.2,
  messages: [
    ...twoCalls,
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
const cost = (1200 * 2 + 300 * 8) / 1e6
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
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null): StreamEvent => ({
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
const chunks: readonly StreamEvent[] = [
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

const chatCase: ProtocolCase = {
  name: 'openai-chat',
  provider: (options) => openaiChat({ apiKey: 'sk-test', ...options }),
  body: openaiChatRequest,
  answer,
  expected,
  pricing,
  cost,
  stream: chunks,
  deltas: expectedDeltas,
  eventPath: (i) => `/events/${i}`,
  errorBody: { error: { message: 'no' } },
  wrongField: {
    body: { ...answer, usage: { ...answer.usage, prompt_tokens: '1' } },
    path: '/usage/prompt_tokens',
  },
  wrongEvent: {
    events: [chunks[0]!, chunk({ content: 7 })],
    path: '/events/1/choices/0/delta/content',
  },
  errorEvent: {
    events: [chunks[0]!, { data: { error: { message: 'overloaded', code: 503 } } }],
    status: 503,
  },
}

describe('openaiChatRequest', () => {
  it('maps a conversation with tools, images and tool calls to Chat Completions messages', async () => {
    const s = await serve(answering(answer))
    await provider(s, { headers: { 'x-extra': '1' } }).call(conversationRequest, {
      signal: signal(),
    })
    const r = s.received[0]!
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
            { type: 'image_url', image_url: { url: imageUrl } },
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
            { type: 'image_url', image_url: { url: imageUrl } },
            { type: 'text', text: 'Thanks' },
          ],
        },
        { role: 'assistant', content: 'It says hello.\n\nSummary.' },
        { role: 'user', content: 'Go on' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'read', description: 'Reads a file', parameters: readSchema },
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

  requestLaw({
    map: (r) => openaiChatRequest(r),
    steps: (body) =>
      body.messages.flatMap((m): Step[] =>
        m.role === 'tool'
          ? [{ output: m.tool_call_id }]
          : m.role === 'assistant'
            ? (m.tool_calls ?? []).map((c) => ({ call: c.id }))
            : [],
      ),
    also: {
      name: 'puts every tool message right after the call it answers',
      check: (body) => {
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
      },
    },
  })
})

describe('openaiChatResponse', () => {
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

describe('openaiChat', () => {
  providerSuite(chatCase)

  it('is a 429 on a rate limit error chunk', async () => {
    const s = await serve(
      streaming([{ data: { error: { message: 'slow', type: 'rate_limit_exceeded' } } }]),
    )
    const e = await failureOf(provider(s, { stream: true }).call(ask, { signal: signal() }))
    expect(e).toMatchObject({ _tag: 'ProviderHttpError', status: 429, retryable: true })
  })

  it('is a ProviderHttpError when a 200 answer is an error', async () => {
    const s = await serve(answering({ error: { message: 'model not found', code: 404 } }))
    const e = await failureOf(provider(s).call(ask, { signal: signal() }))
    expect(e).toMatchObject({ _tag: 'ProviderHttpError', status: 404, retryable: false })
  })

  it('needs a key for OpenAI, read from OPENAI_API_KEY, and sends none to another server unless given', async () => {
    stubEnv('OPENAI_API_KEY', 'sk-env')
    expect(openaiChat().name).toBe('openai-chat')
    const s = await serve(answering(answer))
    await openaiChat({ baseUrl: s.url }).call(ask, { signal: signal() })
    expect(s.received[0]?.headers.authorization).toBeUndefined()
    expect(s.received[0]?.path).toBe('/chat/completions')
    stubEnv('OPENAI_API_KEY', undefined)
    expect(() => openaiChat()).toThrow(UsageError)
    expect(() => openaiChat({ baseUrl: 'https://api.openai.com/v1/' })).toThrow(/OPENAI_API_KEY/)
  })
})
