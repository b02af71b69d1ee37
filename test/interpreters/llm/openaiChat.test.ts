import { describe, expect, it } from 'vitest'
import { UsageError } from 'nerve-agents'
import {
  openaiChat,
  openaiChatRequest,
  openaiChatResponse,
} from '../../../src/interpreters/llm/openaiChat.js'
import type { ModelRequest, ToolChoice } from '../../../src/interpreters/llm/Provider.js'
import { atV1, orphans, settings } from './fixtures/openai.js'
import { answer, chatCase, functionCall } from './fixtures/openaiChat.js'
import { ask, choosing, imageUrl, readSchema, twoCalls } from './fixtures/requests.js'
import { malformedPath, providerSuite, requestLaw, stubEnv, type Step } from './providerKit.js'
import { answering, callAt, failureOf, streaming } from './server.js'

const conversationRequest: ModelRequest = {
  ...settings,
  model: 'llama3.2',
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

describe('openaiChatRequest', () => {
  it('maps a conversation with tools, images and tool calls to Chat Completions messages', async () => {
    const { sent: r } = await callAt(
      answering(answer),
      atV1(chatCase, { headers: { 'x-extra': '1' } }),
      conversationRequest,
    )
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
            functionCall('call_1', 'read', '{"path":"a.txt"}'),
            functionCall('call_2', 'read', '{"path":"b.txt"}'),
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
    const choice = (toolChoice?: ToolChoice) => openaiChatRequest(choosing(toolChoice)).tool_choice
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
    const body = openaiChatRequest(orphans([{ type: 'text', text: 'Let me see.' }]))
    expect(body.messages).toEqual([
      { role: 'assistant', content: 'Let me see.' },
      { role: 'user', content: 'never mind\n\n[result of tool call gone]\nlate' },
    ])
  })

  requestLaw({
    map: openaiChatRequest,
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
    const at = malformedPath(openaiChatResponse)
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
    const limited = streaming([
      { data: { error: { message: 'slow', type: 'rate_limit_exceeded' } } },
    ])
    const e = await failureOf(callAt(limited, atV1(chatCase, { stream: true }), ask))
    expect(e).toMatchObject({ _tag: 'ProviderHttpError', status: 429, retryable: true })
  })

  it('is a ProviderHttpError when a 200 answer is an error', async () => {
    const notFound = answering({ error: { message: 'model not found', code: 404 } })
    const e = await failureOf(callAt(notFound, atV1(chatCase), ask))
    expect(e).toMatchObject({ _tag: 'ProviderHttpError', status: 404, retryable: false })
  })

  it('needs a key for OpenAI, read from OPENAI_API_KEY, and sends none to another server unless given', async () => {
    stubEnv('OPENAI_API_KEY', 'sk-env')
    expect(openaiChat().name).toBe('openai-chat')
    const { sent } = await callAt(answering(answer), (baseUrl) => openaiChat({ baseUrl }), ask)
    expect(sent.headers.authorization).toBeUndefined()
    expect(sent.path).toBe('/chat/completions')
    stubEnv('OPENAI_API_KEY', undefined)
    expect(() => openaiChat()).toThrow(UsageError)
    expect(() => openaiChat({ baseUrl: 'https://api.openai.com/v1/' })).toThrow(/OPENAI_API_KEY/)
  })
})
