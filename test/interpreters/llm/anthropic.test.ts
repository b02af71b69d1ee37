import type { ServerResponse } from 'node:http'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { messages, UsageError, type ImageBlock } from 'nerve'
import { conversation } from 'nerve/testing'
import {
  anthropic,
  anthropicRequest,
  anthropicResponse,
  type AnthropicOptions,
} from '../../../src/interpreters/llm/anthropic.js'
import type {
  ModelDelta,
  ModelRequest,
  ToolChoice,
} from '../../../src/interpreters/llm/Provider.js'
import {
  ProviderHttpError,
  ProviderMalformed,
  ProviderStreamCut,
  ProviderTimeout,
} from '../../../src/interpreters/llm/ProviderError.js'
import { json, sse, startServer, type Received, type TestServer } from './server.js'

const servers: TestServer[] = []
afterEach(async () => {
  vi.unstubAllEnvs()
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

const serve = async (
  handle: (req: Received, res: ServerResponse) => void | Promise<void>,
): Promise<TestServer> => {
  const s = await startServer(handle)
  servers.push(s)
  return s
}

const providerAt = (s: TestServer, options: AnthropicOptions = {}) =>
  anthropic({ apiKey: 'sk-test', baseUrl: s.url, ...options })

const signal = () => new AbortController().signal

const failureOf = async (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => expect.fail('the call succeeded'),
    (e: unknown) => e,
  )

const image: ImageBlock = {
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
}

const readTool = {
  name: 'read',
  description: 'Reads a file',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
}

const request: ModelRequest = {
  system: 'You are terse.',
  messages: [
    { type: 'message', role: 'user', content: 'What is in a.png?' },
    { type: 'message', role: 'user', content: [image] },
    {
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Read it.', signature: 'c2lnMQ==' },
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.png' } },
      ],
    },
    {
      type: 'message',
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
  toolChoice: { type: 'tool', name: 'read' },
  parallelToolCalls: false,
  maxTokens: 1024,
  temperature: 0.5,
}

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

const expected = {
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

describe('anthropicRequest', () => {
  it('maps system, tools, tool choice, images, a tool call and its result, thinking, and joins same-role messages', () => {
    expect(anthropicRequest(request)).toEqual({
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

  it('for any conversation, never throws, alternates roles with no empty message, and sends every tool result after its tool use', () => {
    fc.assert(
      fc.property(conversation(), (c) => {
        const body = anthropicRequest({ system: '', messages: messages(c), tools: [] })
        const used = new Set<string>()
        body.messages.forEach((m, i) => {
          expect(m.role).not.toBe(body.messages[i - 1]?.role)
          expect(m.content.length).toBeGreaterThan(0)
          if (typeof m.content === 'string') return
          for (const b of m.content) {
            if (b.type === 'tool_use') used.add((b as { id: string }).id)
            if (b.type === 'tool_result') {
              expect(used).toContain((b as { tool_use_id: string }).tool_use_id)
            }
          }
        })
      }),
    )
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
  it('posts to /v1/messages with the key, the version and extra headers', async () => {
    const s = await serve((_req, res) => {
      json(res, answer)
    })
    await providerAt(s, { headers: { 'anthropic-beta': 'test-1' } }).call(request, {
      signal: signal(),
    })
    const [r] = s.received
    expect(r?.method).toBe('POST')
    expect(r?.path).toBe('/v1/messages')
    expect(r?.headers['x-api-key']).toBe('sk-test')
    expect(r?.headers['anthropic-version']).toBe('2023-06-01')
    expect(r?.headers['anthropic-beta']).toBe('test-1')
    expect(r?.body).toEqual(anthropicRequest(request))
  })

  it('reads the key from ANTHROPIC_API_KEY, and refuses to start without one', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-env')
    const s = await serve((_req, res) => {
      json(res, answer)
    })
    await anthropic({ baseUrl: s.url }).call(request, { signal: signal() })
    expect(s.received[0]?.headers['x-api-key']).toBe('sk-env')
    vi.stubEnv('ANTHROPIC_API_KEY', '')
    expect(() => anthropic()).toThrow(UsageError)
    expect(() => anthropic()).toThrow(/ANTHROPIC_API_KEY/)
  })

  it('refuses a timeout that is not a positive number', () => {
    expect(() => anthropic({ apiKey: 'k', timeoutMs: 0 })).toThrow(/timeoutMs/)
  })

  it('maps a non-streamed answer and prices it', async () => {
    const s = await serve((_req, res) => {
      json(res, answer)
    })
    const r = await providerAt(s, { pricing: { inputPerMTok: 3, outputPerMTok: 15 } }).call(
      request,
      { signal: signal() },
    )
    expect(r).toEqual({ ...expected, cost: ((1000 + 125 + 200) * 3 + 200 * 15) / 1e6 })
  })

  it('gives the same response for the streamed answer, and the deltas in order', async () => {
    const s = await serve((_req, res) => {
      sse(res, events)
    })
    const deltas: ModelDelta[] = []
    const r = await providerAt(s, { stream: true }).call(request, {
      signal: signal(),
      onDelta: (d) => deltas.push(d),
    })
    expect(r).toEqual(expected)
    expect(deltas).toEqual(expectedDeltas)
    expect(s.received[0]?.body).toMatchObject({ stream: true })
  })

  it('gathers the streamed input of a server tool use into its unknown block', async () => {
    const start = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }
    const s = await serve((_req, res) => {
      sse(res, [
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
      ])
    })
    const r = await providerAt(s, { stream: true }).call(request, { signal: signal() })
    expect(r.content).toEqual([{ type: 'unknown', raw: { ...start, input: { query: 'cats' } } }])
  })

  it('reads events split across arbitrary chunk boundaries', async () => {
    const text = events.map((e) => `event: ${e.event}\r\ndata: ${JSON.stringify(e.data)}\r\n\r\n`)
    const s = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const all = text.join('')
      for (let i = 0; i < all.length; i += 29) {
        res.write(all.slice(i, i + 29))
        await new Promise((resolve) => setImmediate(resolve))
      }
      res.end()
    })
    const r = await providerAt(s, { stream: true }).call(request, { signal: signal() })
    expect(r).toEqual(expected)
  })

  describe('faults', () => {
    it.each([
      [500, true],
      [529, true],
      [400, false],
      [401, false],
    ])('status %i is a ProviderHttpError, retryable: %s', async (status, retryable) => {
      const body = { type: 'error', error: { type: 'some_error', message: 'no' } }
      const s = await serve((_req, res) => {
        json(res, body, status)
      })
      const e = await failureOf(providerAt(s).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderHttpError)
      expect(e).toMatchObject({ status, retryable, provider: 'anthropic' })
      expect((e as ProviderHttpError).body).toContain('some_error')
    })

    it('429 with Retry-After: 2 is retryable after 2000 ms', async () => {
      const s = await serve((_req, res) => {
        json(res, {}, 429, { 'retry-after': '2' })
      })
      const e = await failureOf(providerAt(s).call(request, { signal: signal() }))
      expect(e).toMatchObject({ _tag: 'ProviderHttpError', retryable: true, retryAfterMs: 2000 })
    })

    it('a body that is not JSON is malformed at the root', async () => {
      const s = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('<html>oops</html>')
      })
      const e = await failureOf(providerAt(s).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderMalformed)
      expect(e).toMatchObject({ path: '', retryable: false })
    })

    it('a field of the wrong type is malformed at its path', async () => {
      const bad = { ...answer, content: [answer.content[0], { type: 'text', text: 5 }] }
      const s = await serve((_req, res) => {
        json(res, bad)
      })
      const e = await failureOf(providerAt(s).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderMalformed)
      expect(e).toMatchObject({ path: '/content/1/text' })
    })

    it('a malformed event is malformed at its index and field', async () => {
      const bad = { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 5 } }
      const s = await serve((_req, res) => {
        sse(res, [...events.slice(0, 8), { data: bad }])
      })
      const e = await failureOf(providerAt(s, { stream: true }).call(request, { signal: signal() }))
      expect(e).toMatchObject({ _tag: 'ProviderMalformed', path: '/8/delta/text' })
    })

    it('tool input that is not JSON is malformed', async () => {
      const broken = [
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
      ]
      const s = await serve((_req, res) => {
        sse(res, broken)
      })
      const e = await failureOf(providerAt(s, { stream: true }).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderMalformed)
      expect(e).toMatchObject({ path: '/3' })
    })

    it('an error event is a ProviderHttpError with the status of its type', async () => {
      const error = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }
      const s = await serve((_req, res) => {
        sse(res, [...events.slice(0, 3), { data: error }])
      })
      const e = await failureOf(providerAt(s, { stream: true }).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderHttpError)
      expect(e).toMatchObject({ status: 529, retryable: true })
    })

    it('a stream that ends before message_stop is cut', async () => {
      const s = await serve((_req, res) => {
        sse(res, events.slice(0, -1))
      })
      const e = await failureOf(providerAt(s, { stream: true }).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderStreamCut)
    })

    it('a connection dropped mid-stream is cut', async () => {
      const s = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        const text = events.slice(0, 5).map((e) => `data: ${JSON.stringify(e.data)}\n\n`)
        res.write(text.join(''), () => res.destroy())
      })
      const e = await failureOf(providerAt(s, { stream: true }).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderStreamCut)
    })

    it('a server that never answers is a timeout', async () => {
      const s = await serve(() => undefined)
      const e = await failureOf(
        providerAt(s, { timeoutMs: 100 }).call(request, { signal: signal() }),
      )
      expect(e).toBeInstanceOf(ProviderTimeout)
    })

    it('a stream that stalls is a timeout', async () => {
      const s = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(`data: ${JSON.stringify(events[0]!.data)}\n\n`)
      })
      const provider = providerAt(s, { stream: true, timeoutMs: 100 })
      const e = await failureOf(provider.call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderTimeout)
    })

    it('aborting before the headers rejects with the reason', async () => {
      const controller = new AbortController()
      const reason = new Error('user stop')
      const s = await serve(() => {
        controller.abort(reason)
      })
      const e = await failureOf(providerAt(s).call(request, { signal: controller.signal }))
      expect(e).toBe(reason)
    })

    it('aborting mid-stream rejects with the reason', async () => {
      const controller = new AbortController()
      const reason = new Error('user stop')
      const s = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        for (const e of events.slice(0, 4)) res.write(`data: ${JSON.stringify(e.data)}\n\n`)
      })
      const work = providerAt(s, { stream: true }).call(request, {
        signal: controller.signal,
        onDelta: () => {
          controller.abort(reason)
        },
      })
      expect(await failureOf(work)).toBe(reason)
    })
  })
})
