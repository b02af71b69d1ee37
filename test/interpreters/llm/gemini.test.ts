import type { ServerResponse } from 'node:http'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { messages, UsageError, type ImageBlock } from 'nerve'
import { conversation } from 'nerve/testing'
import {
  gemini,
  geminiRequest,
  geminiResponse,
  type GeminiOptions,
} from '../../../src/interpreters/llm/gemini.js'
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

const providerAt = (s: TestServer, options: GeminiOptions = {}) =>
  gemini({ apiKey: 'g-test', baseUrl: s.url, ...options })

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
const inline = { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }

const readSchema = {
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
}
const readTool = { name: 'read', description: 'Reads a file', input_schema: readSchema }

const request: ModelRequest = {
  system: 'You are terse.',
  messages: [
    { type: 'message', role: 'user', content: 'What is in a.png?' },
    { type: 'message', role: 'user', content: [image] },
    {
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Read it.', signature: 'gemini:c2lnMQ==' },
        { type: 'text', text: 'Let me look.' },
        { type: 'thinking', thinking: '', signature: 'gemini:c2ln' },
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

/** A non-streamed answer with a thought, text, two function calls (no ids) and usage. */
const answer = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { text: 'Two files.', thought: true },
          { text: 'Reading both.' },
          { functionCall: { name: 'read', args: { path: 'a' } }, thoughtSignature: 'c2ln' },
          { functionCall: { name: 'read', args: { path: 'b' } } },
        ],
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: {
    promptTokenCount: 1000,
    candidatesTokenCount: 150,
    thoughtsTokenCount: 50,
    cachedContentTokenCount: 400,
    totalTokenCount: 1200,
  },
  modelVersion: 'gemini-test-1',
  responseId: 'resp-1',
}

const expected = {
  content: [
    { type: 'thinking', thinking: 'Two files.', signature: 'gemini:' },
    { type: 'text', text: 'Reading both.' },
    { type: 'thinking', thinking: '', signature: 'gemini:c2ln' },
    { type: 'tool_use', id: 'gemini_call_1', name: 'read', input: { path: 'a' } },
    { type: 'tool_use', id: 'gemini_call_2', name: 'read', input: { path: 'b' } },
  ],
  stopReason: 'tool_use',
  usage: {
    input_tokens: 1000,
    output_tokens: 200,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    reasoning_tokens: 50,
    cached_tokens: 400,
    total_tokens: 1200,
  },
  model: 'gemini-test-1',
}

const chunk = (parts: readonly unknown[], more: Record<string, unknown> = {}) => ({
  data: {
    candidates: [
      { content: { role: 'model', parts }, index: 0, ...(more.finishReason ? more : {}) },
    ],
    usageMetadata: { promptTokenCount: 1000 },
    modelVersion: 'gemini-test-1',
    ...(more.finishReason ? { usageMetadata: answer.usageMetadata } : {}),
  },
})

/** The same answer as Gemini streams it: text and thoughts in pieces, calls whole. */
const chunks = [
  chunk([{ text: 'Two ', thought: true }]),
  chunk([{ text: 'files.', thought: true }]),
  chunk([{ text: 'Reading ' }]),
  chunk([{ text: 'both.' }]),
  chunk(answer.candidates[0]!.content.parts.slice(2), { finishReason: 'STOP' }),
]

const expectedDeltas: ModelDelta[] = [
  { type: 'thinking', text: 'Two ' },
  { type: 'thinking', text: 'files.' },
  { type: 'text', text: 'Reading ' },
  { type: 'text', text: 'both.' },
  { type: 'tool_use', id: 'gemini_call_1', name: 'read' },
  { type: 'tool_use', id: 'gemini_call_2', name: 'read' },
]

describe('geminiRequest', () => {
  it('maps system, tools, tool choice, images, a call and its result, thoughts with signatures, and joins same-role messages', () => {
    expect(geminiRequest(request)).toEqual({
      systemInstruction: { parts: [{ text: 'You are terse.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'What is in a.png?' }, inline] },
        {
          role: 'model',
          parts: [
            { text: 'Read it.', thought: true, thoughtSignature: 'c2lnMQ==' },
            { text: 'Let me look.' },
            {
              functionCall: { id: 'toolu_1', name: 'read', args: { path: 'a.png' } },
              thoughtSignature: 'c2ln',
            },
          ],
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'toolu_1',
                name: 'read',
                response: { output: 'the picture:' },
              },
            },
            inline,
          ],
        },
      ],
      tools: [
        {
          functionDeclarations: [
            { name: 'read', description: 'Reads a file', parametersJsonSchema: readSchema },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['read'] } },
      generationConfig: { maxOutputTokens: 1024, temperature: 0.5 },
    })
  })

  it('maps each tool choice, and sends no tools, tool config or generation config when there are none', () => {
    const choose = (toolChoice?: ToolChoice) =>
      geminiRequest({
        system: '',
        messages: [],
        tools: [readTool],
        ...(toolChoice && { toolChoice }),
      }).toolConfig
    expect(choose(undefined)).toEqual({ functionCallingConfig: { mode: 'AUTO' } })
    expect(choose({ type: 'any' })).toEqual({ functionCallingConfig: { mode: 'ANY' } })
    expect(choose({ type: 'none' })).toEqual({ functionCallingConfig: { mode: 'NONE' } })
    expect(geminiRequest({ system: '', messages: [], tools: [] })).toEqual({ contents: [] })
  })

  it('sends the thinking config it is given', () => {
    const body = geminiRequest(
      { system: '', messages: [], tools: [] },
      { maxTokens: 99, thinking: { budgetTokens: 512, includeThoughts: true } },
    )
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 99,
      thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
    })
  })

  it("leaves out other providers' reasoning and unknown blocks, turns compaction and orphan results into text, and errors into { error }", () => {
    const body = geminiRequest({
      system: '',
      tools: [],
      messages: [
        { type: 'message', role: 'user', content: [{ type: 'compaction', content: 'Earlier.' }] },
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'from Claude', signature: 'c2ln' },
            { type: 'redacted_thinking', data: 'ZW5j' },
            { type: 'unknown', raw: { type: 'server_tool_use' } },
          ],
        },
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_7', name: 'ls', input: {} }],
        },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_7', content: 'denied', is_error: true },
            { type: 'tool_result', tool_use_id: 'call_lost', content: 'late' },
          ],
        },
      ],
    })
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Earlier.' }] },
      { role: 'model', parts: [{ functionCall: { id: 'call_7', name: 'ls', args: {} } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_7', name: 'ls', response: { error: 'denied' } } },
          { text: 'Result of tool call call_lost: late' },
        ],
      },
    ])
  })

  it("sends an answer's parts back as they came, signatures included", () => {
    const content = geminiResponse(answer).content
    const body = geminiRequest({
      system: '',
      tools: [],
      messages: [{ type: 'message', role: 'assistant', content }],
    })
    const withIds = answer.candidates[0]!.content.parts.map((p, i) =>
      'functionCall' in p
        ? { ...p, functionCall: { id: `gemini_call_${i - 1}`, ...p.functionCall } }
        : p,
    )
    expect(body.contents).toEqual([{ role: 'model', parts: withIds }])
  })

  it('for any conversation, never throws, alternates roles with no empty turn, and sends every function response after its call', () => {
    fc.assert(
      fc.property(conversation(), (c) => {
        const body = geminiRequest({ system: '', messages: messages(c), tools: [] })
        const calls = new Map<string, string>()
        body.contents.forEach((content, i) => {
          expect(content.role).not.toBe(body.contents[i - 1]?.role)
          expect(content.parts.length).toBeGreaterThan(0)
          for (const p of content.parts) {
            if (p.functionCall?.id !== undefined) calls.set(p.functionCall.id, p.functionCall.name)
            const r = p.functionResponse
            if (r !== undefined) expect(calls.get(r.id ?? '')).toBe(r.name)
          }
        })
      }),
    )
  })
})

describe('geminiResponse', () => {
  it('maps thoughts, text, calls, stop reason and usage', () => {
    expect(geminiResponse(answer)).toEqual(expected)
  })

  it("keeps Gemini's call ids and makes new ones that are not taken", () => {
    const parts = [
      { functionCall: { id: 'gemini_call_2', name: 'a' } },
      { functionCall: { name: 'b' } },
      { functionCall: { name: 'c' } },
    ]
    const r = geminiResponse({ candidates: [{ content: { parts } }] }, ['gemini_call_1'])
    expect(r.content.map((b) => (b.type === 'tool_use' ? b.id : ''))).toEqual([
      'gemini_call_2',
      'gemini_call_3',
      'gemini_call_4',
    ])
  })

  it('normalises finish reasons', () => {
    const stop = (finishReason: string) =>
      geminiResponse({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason }] })
        .stopReason
    expect(stop('STOP')).toBe('end_turn')
    expect(stop('MAX_TOKENS')).toBe('max_tokens')
    expect(stop('SAFETY')).toBe('refusal')
    expect(stop('MALFORMED_FUNCTION_CALL')).toBe('MALFORMED_FUNCTION_CALL')
    expect(geminiResponse({ promptFeedback: { blockReason: 'SAFETY' } }).stopReason).toBe('refusal')
  })
})

describe('gemini', () => {
  it('posts to generateContent of the model with the key header and extra headers', async () => {
    const s = await serve((_req, res) => {
      json(res, answer)
    })
    await providerAt(s, { headers: { 'x-extra': '1' } }).call(request, { signal: signal() })
    const [r] = s.received
    expect(r?.method).toBe('POST')
    expect(r?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent')
    expect(r?.headers['x-goog-api-key']).toBe('g-test')
    expect(r?.headers['x-extra']).toBe('1')
    expect(r?.body).toEqual(geminiRequest(request))
  })

  it('streams from streamGenerateContent with alt=sse, for the request model', async () => {
    const s = await serve((_req, res) => {
      sse(res, chunks)
    })
    await providerAt(s, { stream: true }).call(
      { ...request, model: 'models/gemini-x' },
      { signal: signal() },
    )
    expect(s.received[0]?.path).toBe('/v1beta/models/gemini-x:streamGenerateContent?alt=sse')
  })

  it('reads the key from GEMINI_API_KEY, then GOOGLE_API_KEY, and refuses to start without one', async () => {
    vi.stubEnv('GEMINI_API_KEY', '')
    vi.stubEnv('GOOGLE_API_KEY', 'g-env')
    const s = await serve((_req, res) => {
      json(res, answer)
    })
    await gemini({ baseUrl: s.url }).call(request, { signal: signal() })
    expect(s.received[0]?.headers['x-goog-api-key']).toBe('g-env')
    vi.stubEnv('GOOGLE_API_KEY', '')
    expect(() => gemini()).toThrow(UsageError)
    expect(() => gemini()).toThrow(/GEMINI_API_KEY/)
  })

  it('maps a non-streamed answer with ids unique in the conversation, and prices it', async () => {
    const s = await serve((_req, res) => {
      json(res, answer)
    })
    const taken: ModelRequest = {
      ...request,
      messages: [
        ...request.messages,
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'gemini_call_1', name: 'read', input: {} }],
        },
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'gemini_call_1', content: 'ok' }],
        },
      ],
    }
    const provider = providerAt(s, { pricing: { inputPerMTok: 1, outputPerMTok: 4 } })
    const r = await provider.call(taken, { signal: signal() })
    expect(r.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))).toEqual([
      'gemini_call_2',
      'gemini_call_3',
    ])
    expect(r.cost).toBe((1000 * 1 + 200 * 4) / 1e6)
  })

  it('gives the same response for the streamed answer, and the deltas in order', async () => {
    const s = await serve((_req, res) => {
      sse(res, chunks)
    })
    const deltas: ModelDelta[] = []
    const r = await providerAt(s, { stream: true }).call(request, {
      signal: signal(),
      onDelta: (d) => deltas.push(d),
    })
    expect(r).toEqual(expected)
    expect(deltas).toEqual(expectedDeltas)
  })

  it('reads chunks split across arbitrary boundaries', async () => {
    const s = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const all = chunks.map((c) => `data: ${JSON.stringify(c.data)}\r\n\r\n`).join('')
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
      [503, true],
      [400, false],
      [401, false],
    ])('status %i is a ProviderHttpError, retryable: %s', async (status, retryable) => {
      const body = { error: { code: status, message: 'no', status: 'SOME_STATUS' } }
      const s = await serve((_req, res) => {
        json(res, body, status)
      })
      const e = await failureOf(providerAt(s).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderHttpError)
      expect(e).toMatchObject({ status, retryable, provider: 'gemini' })
      expect((e as ProviderHttpError).body).toContain('SOME_STATUS')
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
      const bad = { candidates: [{ content: { parts: [{ text: 'a' }, { text: 5 }] } }] }
      const s = await serve((_req, res) => {
        json(res, bad)
      })
      const e = await failureOf(providerAt(s).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderMalformed)
      expect(e).toMatchObject({ path: '/candidates/0/content/parts/1/text' })
    })

    it('a malformed chunk is malformed at its index and field', async () => {
      const bad = { data: { candidates: [{ finishReason: 5 }] } }
      const s = await serve((_req, res) => {
        sse(res, [...chunks.slice(0, 2), bad])
      })
      const e = await failureOf(providerAt(s, { stream: true }).call(request, { signal: signal() }))
      expect(e).toMatchObject({ _tag: 'ProviderMalformed', path: '/2/candidates/0/finishReason' })
    })

    it('an error chunk is a ProviderHttpError with its code', async () => {
      const error = { data: { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } } }
      const s = await serve((_req, res) => {
        sse(res, [...chunks.slice(0, 2), error])
      })
      const e = await failureOf(providerAt(s, { stream: true }).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderHttpError)
      expect(e).toMatchObject({ status: 503, retryable: true })
    })

    it('a stream that ends before a finish reason is cut', async () => {
      const s = await serve((_req, res) => {
        sse(res, chunks.slice(0, -1))
      })
      const e = await failureOf(providerAt(s, { stream: true }).call(request, { signal: signal() }))
      expect(e).toBeInstanceOf(ProviderStreamCut)
    })

    it('a connection dropped mid-stream is cut', async () => {
      const s = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        const text = chunks.slice(0, 3).map((c) => `data: ${JSON.stringify(c.data)}\n\n`)
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
        res.write(`data: ${JSON.stringify(chunks[0]!.data)}\n\n`)
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
        for (const c of chunks.slice(0, 2)) res.write(`data: ${JSON.stringify(c.data)}\n\n`)
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
