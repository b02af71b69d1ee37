import { describe, expect, it } from 'vitest'
import { UsageError } from 'nerve-agents'
import { gemini, geminiRequest, geminiResponse } from '../../../src/interpreters/llm/gemini.js'
import type { ModelRequest, ToolChoice } from '../../../src/interpreters/llm/Provider.js'
import { answer, chunks, expected, geminiCase, parts } from './fixtures/gemini.js'
import { choosing, readSchema, roundTrip } from './fixtures/requests.js'
import { providerSuite, requestLaw, stubEnv } from './providerKit.js'
import { answering, callAt, streaming } from './server.js'

const inline = { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }

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
    const choose = (toolChoice?: ToolChoice) => geminiRequest(choosing(toolChoice)).toolConfig
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
    const withIds = parts.map((p, i) =>
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
    const headers = { 'x-extra': '1' }
    const { sent } = await callAt(
      answering(answer),
      (baseUrl) => gemini({ apiKey: 'g-test', baseUrl, headers }),
      roundTrip,
    )
    expect(sent.method).toBe('POST')
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent')
    expect(sent.headers['x-goog-api-key']).toBe('g-test')
    expect(sent.headers['x-extra']).toBe('1')
  })

  it('streams from streamGenerateContent with alt=sse, for the request model', async () => {
    const { sent } = await callAt(
      streaming(chunks),
      (baseUrl) => gemini({ apiKey: 'g-test', baseUrl, stream: true }),
      { ...roundTrip, model: 'models/gemini-x' },
    )
    expect(sent.path).toBe('/v1beta/models/gemini-x:streamGenerateContent?alt=sse')
  })

  it('reads the key from GEMINI_API_KEY, then GOOGLE_API_KEY, and refuses to start without one', async () => {
    stubEnv('GEMINI_API_KEY', '')
    stubEnv('GOOGLE_API_KEY', 'g-env')
    const { sent } = await callAt(answering(answer), (baseUrl) => gemini({ baseUrl }), roundTrip)
    expect(sent.headers['x-goog-api-key']).toBe('g-env')
    stubEnv('GOOGLE_API_KEY', '')
    expect(() => gemini()).toThrow(UsageError)
    expect(() => gemini()).toThrow(/GEMINI_API_KEY/)
  })

  it('maps a whole answer with tool use ids unique in the conversation', async () => {
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
    const { response } = await callAt(
      answering(answer),
      (baseUrl) => gemini({ apiKey: 'g-test', baseUrl }),
      taken,
    )
    expect(response.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))).toEqual([
      'gemini_call_2',
      'gemini_call_3',
    ])
  })
})
