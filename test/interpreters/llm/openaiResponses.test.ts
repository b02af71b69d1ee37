import { describe, expect, it } from 'vitest'
import { UsageError } from 'nerve-agents'
import {
  openaiResponses,
  openaiResponsesRequest,
  openaiResponsesResponse,
  type OpenAIResponsesOptions,
} from '../../../src/interpreters/llm/openaiResponses.js'
import type {
  ModelDelta,
  ModelRequest,
  ToolChoice,
} from '../../../src/interpreters/llm/Provider.js'
import {
  ProviderHttpError,
  ProviderMalformed,
} from '../../../src/interpreters/llm/ProviderError.js'
import { atV1, deltas, orphans, settings } from './fixtures/openai.js'
import {
  answer,
  call9,
  event,
  failedEvent,
  message,
  responsesCase,
  streamEvents,
} from './fixtures/openaiResponses.js'
import {
  OPENAI_REASONING,
  ask,
  choosing,
  imageUrl,
  readSchema,
  twoCalls,
} from './fixtures/requests.js'
import { malformedPath, providerSuite, requestLaw, stubEnv, type Step } from './providerKit.js'
import { answering, callAt, failureOf, streaming, type StreamEvent } from './server.js'

const OURS = OPENAI_REASONING
const OURS_TOO = 'gAAAAABoSecondReasoning=='

const conversationRequest: ModelRequest = {
  ...settings,
  messages: [
    ...twoCalls,
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

const streamedCall = async (events: readonly StreamEvent[]) => {
  const deltas: ModelDelta[] = []
  const { response } = await callAt(
    streaming(events),
    atV1(responsesCase, { stream: true }),
    ask,
    (d) => deltas.push(d),
  )
  return { response, deltas }
}

describe('openaiResponsesRequest', () => {
  it('maps a conversation with tools, images, tool calls and reasoning to Responses input items', async () => {
    const { sent: r } = await callAt(
      answering(answer),
      atV1(responsesCase, { model: 'gpt-4.1', headers: { 'openai-organization': 'org-1' } }),
      conversationRequest,
    )
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
            { type: 'input_image', image_url: imageUrl, detail: 'auto' },
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
            { type: 'input_image', image_url: imageUrl, detail: 'auto' },
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
          parameters: readSchema,
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
    const choice = (toolChoice?: ToolChoice) =>
      openaiResponsesRequest(choosing(toolChoice)).tool_choice
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
    const body = openaiResponsesRequest(orphans([], true))
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

  requestLaw({
    map: openaiResponsesRequest,
    steps: (body) =>
      body.input.flatMap((item): Step[] =>
        item.type === 'function_call'
          ? [{ call: item.call_id }]
          : item.type === 'function_call_output'
            ? [{ output: item.call_id }]
            : [],
      ),
    also: {
      name: 'answers every call it sends exactly once',
      check: (body) => {
        const called = body.input.flatMap((i) => (i.type === 'function_call' ? [i.call_id] : []))
        const answered = body.input.flatMap((i) =>
          i.type === 'function_call_output' ? [i.call_id] : [],
        )
        expect([...answered].sort()).toEqual([...called].sort())
        expect(new Set(answered).size).toBe(answered.length)
      },
    },
  })
})

describe('openaiResponsesResponse', () => {
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
    const at = malformedPath(openaiResponsesResponse)
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
  it('builds the output from the events when the completed response lists none', async () => {
    const streamed = await streamedCall(streamEvents([]))
    expect(streamed.response).toEqual(responsesCase.expected)
    expect(streamed.deltas).toEqual(deltas)
  })

  it('ends at response.incomplete with max_tokens', async () => {
    const { response } = await streamedCall([
      event('response.incomplete', {
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

  it('is a 429 on a rate limit error event, a 400 on another code, with the error on the event or under its `error`', async () => {
    const limited = await failureOf(
      streamedCall([
        event('error', { code: 'rate_limit_exceeded', message: 'slow down', param: null }),
      ]),
    )
    expect(limited).toMatchObject({ _tag: 'ProviderHttpError', status: 429, retryable: true })
    const invalid = await failureOf(
      streamedCall([event('error', { code: 'invalid_prompt', message: 'no', param: null })]),
    )
    expect(invalid).toMatchObject({ status: 400, retryable: false })
    const nested = await failureOf(
      streamedCall([
        event('error', { error: { type: 'server_error', code: 'server_error', message: 'x' } }),
      ]),
    )
    expect(nested).toMatchObject({ status: 500, retryable: true })
    const failed = await failureOf(streamedCall([streamEvents()[0]!, failedEvent]))
    expect(failed).toBeInstanceOf(ProviderHttpError)
    expect((failed as ProviderHttpError).body).toContain('boom')
  })

  it('gives the path into the response of response.completed', async () => {
    const e = await failureOf(
      streamedCall([
        event('response.completed', { response: { ...answer, output: [{ ...call9, name: 1 }] } }),
      ]),
    )
    expect(e).toBeInstanceOf(ProviderMalformed)
    expect(e).toMatchObject({ path: '/events/0/response/output/0/name' })
  })
})

describe('openaiResponses', () => {
  providerSuite(responsesCase)

  it('is a ProviderHttpError when a whole response failed', async () => {
    const failed = answering({
      ...answer,
      status: 'failed',
      error: { code: 'server_error', message: 'x' },
    })
    const e = await failureOf(callAt(failed, atV1(responsesCase), ask))
    expect(e).toMatchObject({ _tag: 'ProviderHttpError', status: 500, retryable: true })
  })

  it('reads OPENAI_API_KEY when no key is given, and names it when it is missing', async () => {
    stubEnv('OPENAI_API_KEY', 'sk-env')
    const { sent } = await callAt(answering(answer), (baseUrl) => openaiResponses({ baseUrl }), ask)
    expect(sent.headers.authorization).toBe('Bearer sk-env')
    expect(sent.path).toBe('/responses')
    stubEnv('OPENAI_API_KEY', undefined)
    expect(() => openaiResponses()).toThrow(UsageError)
    expect(() => openaiResponses()).toThrow(/OPENAI_API_KEY/)
  })
})
