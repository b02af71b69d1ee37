import { describe, expect, it } from 'vitest'
import { UsageError } from 'nerve'
import { gemini, geminiRequest, geminiResponse } from '../../../src/interpreters/llm/gemini.js'
import type {
  ModelDelta,
  ModelRequest,
  ModelResponse,
  ToolChoice,
} from '../../../src/interpreters/llm/Provider.js'
import {
  answering,
  providerSuite,
  readSchema,
  readTool,
  requestLaw,
  roundTrip,
  serve,
  signal,
  streaming,
  stubEnv,
  type ProtocolCase,
} from './providerKit.js'

const inline = { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }

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

const expected: ModelResponse = {
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

const geminiCase: ProtocolCase = {
  name: 'gemini',
  provider: (options) => gemini({ apiKey: 'g-test', ...options }),
  body: geminiRequest,
  answer,
  expected,
  pricing: { inputPerMTok: 1, outputPerMTok: 4 },
  cost: (1000 * 1 + 200 * 4) / 1e6,
  stream: chunks,
  deltas: expectedDeltas,
  eventPath: (i) => `/${i}`,
  errorBody: { error: { code: 500, message: 'no', status: 'SOME_STATUS' } },
  wrongField: {
    body: { candidates: [{ content: { parts: [{ text: 'a' }, { text: 5 }] } }] },
    path: '/candidates/0/content/parts/1/text',
  },
  wrongEvent: {
    events: [...chunks.slice(0, 2), { data: { candidates: [{ finishReason: 5 }] } }],
    path: '/2/candidates/0/finishReason',
  },
  errorEvent: {
    events: [
      ...chunks.slice(0, 2),
      { data: { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } } },
    ],
    status: 503,
  },
}

describe('geminiRequest', () => {
  it('maps system, tools, tool choice, images, a call and its result, thoughts with signatures, and joins same-role messages', () => {
    expect(geminiRequest(roundTrip)).toEqual({
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

  requestLaw({
    map: (r) => geminiRequest(r),
    steps: (body) =>
      body.contents.flatMap((c) =>
        c.parts.flatMap((p) => [
          ...(p.functionCall === undefined ? [] : [{ call: p.functionCall.id ?? '' }]),
          ...(p.functionResponse === undefined ? [] : [{ output: p.functionResponse.id ?? '' }]),
        ]),
      ),
    also: {
      name: 'alternates roles with no empty turn, each response naming its function',
      check: (body) => {
        const names = new Map<string, string>()
        body.contents.forEach((content, i) => {
          expect(content.role).not.toBe(body.contents[i - 1]?.role)
          expect(content.parts.length).toBeGreaterThan(0)
          for (const p of content.parts) {
            if (p.functionCall?.id !== undefined) names.set(p.functionCall.id, p.functionCall.name)
            const r = p.functionResponse
            if (r !== undefined) expect(names.get(r.id ?? '')).toBe(r.name)
          }
        })
      },
    },
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
  providerSuite(geminiCase)

  it('posts to generateContent of the model with the key header and extra headers', async () => {
    const s = await serve(answering(answer))
    await gemini({ apiKey: 'g-test', baseUrl: s.url, headers: { 'x-extra': '1' } }).call(
      roundTrip,
      {
        signal: signal(),
      },
    )
    const [r] = s.received
    expect(r?.method).toBe('POST')
    expect(r?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent')
    expect(r?.headers['x-goog-api-key']).toBe('g-test')
    expect(r?.headers['x-extra']).toBe('1')
  })

  it('streams from streamGenerateContent with alt=sse, for the request model', async () => {
    const s = await serve(streaming(chunks))
    await gemini({ apiKey: 'g-test', baseUrl: s.url, stream: true }).call(
      { ...roundTrip, model: 'models/gemini-x' },
      { signal: signal() },
    )
    expect(s.received[0]?.path).toBe('/v1beta/models/gemini-x:streamGenerateContent?alt=sse')
  })

  it('reads the key from GEMINI_API_KEY, then GOOGLE_API_KEY, and refuses to start without one', async () => {
    stubEnv('GEMINI_API_KEY', '')
    stubEnv('GOOGLE_API_KEY', 'g-env')
    const s = await serve(answering(answer))
    await gemini({ baseUrl: s.url }).call(roundTrip, { signal: signal() })
    expect(s.received[0]?.headers['x-goog-api-key']).toBe('g-env')
    stubEnv('GOOGLE_API_KEY', '')
    expect(() => gemini()).toThrow(UsageError)
    expect(() => gemini()).toThrow(/GEMINI_API_KEY/)
  })

  it('maps a whole answer with tool use ids unique in the conversation', async () => {
    const s = await serve(answering(answer))
    const taken: ModelRequest = {
      ...roundTrip,
      messages: [
        ...roundTrip.messages,
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
    const r = await gemini({ apiKey: 'g-test', baseUrl: s.url }).call(taken, { signal: signal() })
    expect(r.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))).toEqual([
      'gemini_call_2',
      'gemini_call_3',
    ])
  })
})
