import { describe, expect, it } from 'vitest'
import { UsageError } from 'nerve'
import {
  anthropic,
  anthropicRequest,
  anthropicResponse,
} from '../../../src/interpreters/llm/anthropic.js'
import type {
  ModelDelta,
  ModelResponse,
  ToolChoice,
} from '../../../src/interpreters/llm/Provider.js'
import { ProviderMalformed } from '../../../src/interpreters/llm/ProviderError.js'
import {
  answering,
  failureOf,
  image,
  providerSuite,
  readTool,
  requestLaw,
  roundTrip,
  serve,
  signal,
  streaming,
  stubEnv,
  type ProtocolCase,
  type Step,
} from './providerKit.js'

/** A non-streamed answer with thinking, text, two tool calls and usage. */
const answer = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-test-1',
  content: [
    { type: 'thinking', thinking: 'Two files.', signature: 'c2ln' },
    { type: 'text', text: 'Reading both.', citations: null },
    { type: 'tool_use', id: 'toolu_a', name: 'read', input: { path: 'a' } },
    { type: 'tool_use', id: 'toolu_b', name: 'read', input: { path: 'b', n: [1, 2] } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: {
    input_tokens: 1000,
    output_tokens: 200,
    cache_creation_input_tokens: 100,
    cache_read_input_tokens: 2000,
  },
}

const expected: ModelResponse = {
  content: [
    { type: 'thinking', thinking: 'Two files.', signature: 'c2ln' },
    { type: 'text', text: 'Reading both.' },
    { type: 'tool_use', id: 'toolu_a', name: 'read', input: { path: 'a' } },
    { type: 'tool_use', id: 'toolu_b', name: 'read', input: { path: 'b', n: [1, 2] } },
  ],
  stopReason: 'tool_use',
  usage: {
    input_tokens: 1000,
    output_tokens: 200,
    cache_creation_input_tokens: 100,
    cache_read_input_tokens: 2000,
  },
  model: 'claude-test-1',
}

/** The same answer as Anthropic streams it: several deltas, the tool input split over events. */
const events = [
  {
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test-1',
        content: [],
        stop_reason: null,
        usage: {
          input_tokens: 1000,
          output_tokens: 1,
          cache_creation_input_tokens: 100,
          cache_read_input_tokens: 2000,
        },
      },
    },
  },
  {
    event: 'content_block_start',
    data: {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    },
  },
  ...['Two ', 'files.'].map((thinking) => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking } },
  })),
  {
    event: 'content_block_delta',
    data: {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'signature_delta', signature: 'c2ln' },
    },
  },
  { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
  { event: 'ping', data: { type: 'ping' } },
  {
    event: 'content_block_start',
    data: { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
  },
  ...['Reading ', 'both.'].map((text) => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text } },
  })),
  { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
  ...[
    ['toolu_a', 2, ['{"pa', 'th": "a"}']],
    ['toolu_b', 3, ['', '{"path": "b", ', '"n": [1,', ' 2]}']],
  ].flatMap(([id, index, pieces]) => [
    {
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id, name: 'read', input: {} },
      },
    },
    ...(pieces as string[]).map((partial_json) => ({
      event: 'content_block_delta',
      data: {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json },
      },
    })),
    { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
  ]),
  {
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 200 },
    },
  },
  { event: 'message_stop', data: { type: 'message_stop' } },
]

const expectedDeltas: ModelDelta[] = [
  { type: 'thinking', text: 'Two ' },
  { type: 'thinking', text: 'files.' },
  { type: 'text', text: 'Reading ' },
  { type: 'text', text: 'both.' },
  { type: 'tool_use', id: 'toolu_a', name: 'read' },
  { type: 'tool_use', id: 'toolu_b', name: 'read' },
]

const anthropicCase: ProtocolCase = {
  name: 'anthropic',
  provider: (options) => anthropic({ apiKey: 'sk-test', ...options }),
  body: anthropicRequest,
  answer,
  expected,
  // Cache writes at 1.25 times the input price, cache reads at 0.1 times.
  pricing: { inputPerMTok: 3, outputPerMTok: 15 },
  cost: ((1000 + 125 + 200) * 3 + 200 * 15) / 1e6,
  stream: events,
  deltas: expectedDeltas,
  eventPath: (i) => `/${i}`,
  errorBody: { type: 'error', error: { type: 'some_error', message: 'no' } },
  wrongField: {
    body: { ...answer, content: [answer.content[0], { type: 'text', text: 5 }] },
    path: '/content/1/text',
  },
  wrongEvent: {
    events: [
      ...events.slice(0, 8),
      { data: { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 5 } } },
    ],
    path: '/8/delta/text',
  },
  errorEvent: {
    events: [
      ...events.slice(0, 3),
      { data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
    ],
    status: 529,
  },
}

describe('anthropicRequest', () => {
  it('maps system, tools, tool choice, images, a tool call and its result, thinking, and joins same-role messages', () => {
    expect(anthropicRequest(roundTrip)).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'You are terse.',
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'What is in a.png?' }, image],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Read it.', signature: 'c2lnMQ==' },
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.png' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [{ type: 'text', text: 'the picture:' }, image],
              is_error: false,
            },
          ],
        },
      ],
      tools: [readTool],
      tool_choice: { type: 'tool', name: 'read', disable_parallel_tool_use: true },
      temperature: 0.5,
    })
  })

  it('keeps a string message a string, and sends no tools or tool choice when there are no tools', () => {
    const body = anthropicRequest(
      { system: '', messages: [{ type: 'message', role: 'user', content: 'hi' }], tools: [] },
      { model: 'claude-x', maxTokens: 50, stream: true, thinking: { budgetTokens: 20 } },
    )
    expect(body).toEqual({
      model: 'claude-x',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
      thinking: { type: 'enabled', budget_tokens: 20 },
      stream: true,
    })
  })

  it('maps each tool choice, leaving parallel calls on unless asked', () => {
    const choose = (toolChoice?: ToolChoice) =>
      anthropicRequest({
        system: '',
        messages: [],
        tools: [readTool],
        ...(toolChoice && { toolChoice }),
      }).tool_choice
    expect(choose(undefined)).toEqual({ type: 'auto' })
    expect(choose({ type: 'any' })).toEqual({ type: 'any' })
    expect(choose({ type: 'none' })).toEqual({ type: 'none' })
    expect(choose({ type: 'tool', name: 'read' })).toEqual({ type: 'tool', name: 'read' })
  })

  it('turns compaction into text, passes unknown blocks raw, and leaves out what Anthropic would reject', () => {
    const raw = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }
    const body = anthropicRequest({
      system: '',
      tools: [],
      messages: [
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'compaction', content: 'Earlier: we met.' },
            { type: 'thinking', thinking: 'user-side', signature: 'c2ln' },
            { type: 'text', text: '  ' },
          ],
        },
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'from Gemini', signature: 'gemini:abc' },
            { type: 'thinking', thinking: 'unsigned', signature: '' },
            { type: 'redacted_thinking', data: 'ZW5j' },
            { type: 'unknown', raw },
            { type: 'tool_use', id: 'toolu_9', name: 'read', input: {} },
          ],
        },
        { type: 'message', role: 'user', content: '   ' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'text', text: 'also this' },
            { type: 'tool_result', tool_use_id: 'toolu_9', content: 'done' },
          ],
        },
      ],
    })
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Earlier: we met.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'ZW5j' },
          raw,
          { type: 'tool_use', id: 'toolu_9', name: 'read', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_9', content: 'done' },
          { type: 'text', text: 'also this' },
        ],
      },
    ])
  })

  requestLaw({
    map: (r) => anthropicRequest(r),
    steps: (body) =>
      body.messages.flatMap((m) =>
        typeof m.content === 'string'
          ? []
          : m.content.flatMap((b): Step[] =>
              b.type === 'tool_use'
                ? [{ call: (b as { id: string }).id }]
                : b.type === 'tool_result'
                  ? [{ output: (b as { tool_use_id: string }).tool_use_id }]
                  : [],
            ),
      ),
    also: {
      name: 'alternates roles with no empty message',
      check: (body) => {
        body.messages.forEach((m, i) => {
          expect(m.role).not.toBe(body.messages[i - 1]?.role)
          expect(m.content.length).toBeGreaterThan(0)
        })
      },
    },
  })
})

describe('anthropicResponse', () => {
  it('maps text, thinking, tool calls, stop reason and usage', () => {
    expect(anthropicResponse(answer)).toEqual(expected)
  })

  it('keeps blocks of types it does not know as unknown blocks', () => {
    const raw = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }
    const r = anthropicResponse({ ...answer, content: [raw] })
    expect(r.content).toEqual([{ type: 'unknown', raw }])
  })

  it('answers with a frozen response', () => {
    expect(Object.isFrozen(anthropicResponse(answer).content[2])).toBe(true)
  })
})

describe('anthropic', () => {
  providerSuite(anthropicCase)

  it('posts to /v1/messages with the key, the version and extra headers', async () => {
    const s = await serve(answering(answer))
    await anthropic({
      apiKey: 'sk-test',
      baseUrl: s.url,
      headers: { 'anthropic-beta': 'test-1' },
    }).call(roundTrip, { signal: signal() })
    const [r] = s.received
    expect(r?.method).toBe('POST')
    expect(r?.path).toBe('/v1/messages')
    expect(r?.headers['x-api-key']).toBe('sk-test')
    expect(r?.headers['anthropic-version']).toBe('2023-06-01')
    expect(r?.headers['anthropic-beta']).toBe('test-1')
  })

  it('reads the key from ANTHROPIC_API_KEY, and refuses to start without one', async () => {
    stubEnv('ANTHROPIC_API_KEY', 'sk-env')
    const s = await serve(answering(answer))
    await anthropic({ baseUrl: s.url }).call(roundTrip, { signal: signal() })
    expect(s.received[0]?.headers['x-api-key']).toBe('sk-env')
    stubEnv('ANTHROPIC_API_KEY', '')
    expect(() => anthropic()).toThrow(UsageError)
    expect(() => anthropic()).toThrow(/ANTHROPIC_API_KEY/)
  })

  it('refuses a thinking budget that is not a positive integer', () => {
    expect(() => anthropic({ apiKey: 'k', thinking: { budgetTokens: 0 } })).toThrow(
      /options\.thinking\.budgetTokens/,
    )
  })

  it('gathers the streamed input of a server tool use into its unknown block', async () => {
    const start = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }
    const s = await serve(
      streaming([
        events[0]!,
        { data: { type: 'content_block_start', index: 0, content_block: start } },
        {
          data: {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: '{"query": "cats"}' },
          },
        },
        { data: { type: 'content_block_stop', index: 0 } },
        { data: { type: 'message_stop' } },
      ]),
    )
    const r = await anthropic({ apiKey: 'sk-test', baseUrl: s.url, stream: true }).call(roundTrip, {
      signal: signal(),
    })
    expect(r.content).toEqual([{ type: 'unknown', raw: { ...start, input: { query: 'cats' } } }])
  })

  it('tool input that is not JSON is malformed at its event', async () => {
    const s = await serve(
      streaming([
        events[0]!,
        {
          data: {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'tool_use', id: 'toolu_x', name: 'read', input: {} },
          },
        },
        {
          data: {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: '{"path": ' },
          },
        },
        { data: { type: 'content_block_stop', index: 0 } },
      ]),
    )
    const provider = anthropic({ apiKey: 'sk-test', baseUrl: s.url, stream: true })
    const e = await failureOf(provider.call(roundTrip, { signal: signal() }))
    expect(e).toBeInstanceOf(ProviderMalformed)
    expect(e).toMatchObject({ path: '/3' })
  })
})
