import { describe, expect, it } from 'vitest'
import { UsageError } from 'nerve-agents'
import {
  anthropic,
  anthropicRequest,
  anthropicResponse,
} from '../../../src/interpreters/llm/anthropic.js'
import type { ToolChoice } from '../../../src/interpreters/llm/Provider.js'
import { ProviderMalformed } from '../../../src/interpreters/llm/ProviderError.js'
import {
  answer,
  anthropicCase,
  blockDelta,
  blockStart,
  blockStop,
  event,
  expected,
  stream,
} from './fixtures/anthropic.js'
import { choosing, image, readCall, readResult, readTool, roundTrip } from './fixtures/requests.js'
import { providerSuite, requestLaw, stubEnv, type Step } from './providerKit.js'
import { answering, callAt, failureOf, streaming } from './server.js'

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
            readCall,
          ],
        },
        { role: 'user', content: [readResult] },
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
    const choose = (toolChoice?: ToolChoice) => anthropicRequest(choosing(toolChoice)).tool_choice
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

  const streamingAt = (baseUrl: string) => anthropic({ apiKey: 'sk-test', baseUrl, stream: true })

  it('posts to /v1/messages with the key, the version and extra headers', async () => {
    const headers = { 'anthropic-beta': 'test-1' }
    const { sent } = await callAt(
      answering(answer),
      (baseUrl) => anthropic({ apiKey: 'sk-test', baseUrl, headers }),
      roundTrip,
    )
    expect(sent.method).toBe('POST')
    expect(sent.path).toBe('/v1/messages')
    expect(sent.headers['x-api-key']).toBe('sk-test')
    expect(sent.headers['anthropic-version']).toBe('2023-06-01')
    expect(sent.headers['anthropic-beta']).toBe('test-1')
  })

  it('reads the key from ANTHROPIC_API_KEY, and refuses to start without one', async () => {
    stubEnv('ANTHROPIC_API_KEY', 'sk-env')
    const { sent } = await callAt(answering(answer), (baseUrl) => anthropic({ baseUrl }), roundTrip)
    expect(sent.headers['x-api-key']).toBe('sk-env')
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
    const { response } = await callAt(
      streaming([
        stream[0]!,
        blockStart(0, start),
        blockDelta(0, { type: 'input_json_delta', partial_json: '{"query": "cats"}' }),
        blockStop(0),
        event('message_stop'),
      ]),
      streamingAt,
      roundTrip,
    )
    expect(response.content).toEqual([
      { type: 'unknown', raw: { ...start, input: { query: 'cats' } } },
    ])
  })

  it('tool input that is not JSON is malformed at its event', async () => {
    const events = [
      stream[0]!,
      blockStart(0, { type: 'tool_use', id: 'toolu_x', name: 'read', input: {} }),
      blockDelta(0, { type: 'input_json_delta', partial_json: '{"path": ' }),
      blockStop(0),
    ]
    const e = await failureOf(callAt(streaming(events), streamingAt, roundTrip))
    expect(e).toBeInstanceOf(ProviderMalformed)
    expect(e).toMatchObject({ path: '/3' })
  })
})
