import { describe, expect, it } from 'vitest'
import { type Block, gemini } from '../../../src/index.js'
import {
  geminiProtocol,
  type ModelResponse,
  ProxyRequestInvalid,
} from '../../../src/interpreters/index.js'
import {
  checkForwarding,
  recordedRequest,
  scriptedProxy,
  scriptedUsage,
  signal,
  toolTurn,
} from './proxyFixture.js'

const usage = scriptedUsage(0)
const answer = toolTurn(
  { id: 'gemini_call_1', name: 'run_shell_command', input: { command: 'ls' } },
  usage,
)
const STREAM = '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse'

/** A request Gemini CLI 0.61.0 sent (texts cut short): three turns, two with a tool call and its response. */
const recorded = recordedRequest('gemini-cli/0.61.0/request.json') as {
  readonly url: string
  readonly body: unknown
}

describe('the Gemini protocol of the model proxy', () => {
  it.each([true, false])(
    'answers a scripted turn that Nerve’s Gemini client reads back whole (stream: %s)',
    async (stream) => {
      const { model, proxy } = await scriptedProxy(geminiProtocol, [answer])
      const client = gemini({ apiKey: proxy.key('gem'), baseUrl: proxy.baseUrl('gem'), stream })
      const ask = {
        model: 'gemini-2.5-pro',
        system: 'Be brief.',
        messages: [{ type: 'message' as const, role: 'user' as const, content: 'list files' }],
        tools: [{ name: 'run_shell_command', description: 'Runs a command.', input_schema: {} }],
      }
      const got = await client.call(ask, { signal })
      expect(got.content).toEqual(answer.content)
      expect(got.stopReason).toBe('tool_use')
      expect(got.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 })
      expect(model.requests[0]).toMatchObject({
        model: 'gemini-2.5-pro',
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'list files' }] }],
        tools: [{ name: 'run_shell_command', description: 'Runs a command.' }],
      })
      expect(proxy.usage('gem').usage).toMatchObject({ input_tokens: 12, output_tokens: 5 })
    },
  )

  it('decodes a real Gemini CLI request: the model from the path, each tool response paired with its call', () => {
    const call = geminiProtocol.decode(recorded.body, recorded.url)
    expect(call.stream).toBe(true)
    expect(call.request.model).toBe('gemini-3.1-pro-preview')
    expect(call.request.system).toMatch(/^You are an interactive CLI agent/)
    expect(call.request.tools.map((t) => t.name)).toEqual(['write_file', 'run_shell_command'])
    const blocks = call.request.messages.flatMap((m) =>
      typeof m.content === 'string' ? [] : [...m.content],
    )
    const uses = blocks.filter(
      (b): b is Extract<Block, { type: 'tool_use' }> => b.type === 'tool_use',
    )
    const results = blocks.filter(
      (b): b is Extract<Block, { type: 'tool_result' }> => b.type === 'tool_result',
    )
    expect(uses.map((u) => u.name)).toEqual(['run_shell_command', 'write_file'])
    expect(results.map((r) => r.tool_use_id)).toEqual(uses.map((u) => u.id))
    expect(call.request.messages.map((m) => m.role).slice(-3)).toEqual([
      'user',
      'assistant',
      'user',
    ])
  })

  it('refuses a request of the wrong shape with the path of the bad field', () => {
    const thrown = (() => {
      try {
        geminiProtocol.decode({ contents: [{ role: 'user', parts: [{ text: 3 }] }] }, STREAM)
      } catch (e) {
        return e
      }
    })()
    expect(thrown).toBeInstanceOf(ProxyRequestInvalid)
    expect((thrown as ProxyRequestInvalid).path).toBe('/contents/0/parts/0/text')
  })

  it.each([true, false])(
    'reads back what it encodes, signatures and thoughts too (stream: %s)',
    (stream) => {
      const path = stream ? STREAM : '/v1beta/models/gemini-2.5-pro:generateContent'
      const call = geminiProtocol.decode(
        { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
        path,
      )
      const signed: ModelResponse = {
        ...answer,
        content: [
          { type: 'thinking', thinking: 'Look first.', signature: 'gemini:' },
          { type: 'text', text: 'Let me look.' },
          { type: 'thinking', thinking: '', signature: 'gemini:sig1' },
          answer.content[1]!,
        ],
        usage: { ...usage, output_tokens: 9, reasoning_tokens: 4 },
      }
      const reader = geminiProtocol.reader(call)
      for (const chunk of geminiProtocol.encode(signed, call, '7').chunks) reader.push(chunk)
      expect(reader.result()).toMatchObject({
        content: signed.content,
        stopReason: 'tool_use',
        usage: { input_tokens: 12, output_tokens: 9, reasoning_tokens: 4 },
      })
    },
  )

  it('is a model call for generateContent and streamGenerateContent only, and answers errors as the API does', () => {
    expect(geminiProtocol.isModelCall('POST', STREAM)).toBe(true)
    expect(geminiProtocol.isModelCall('POST', '/v1beta/models/m:generateContent')).toBe(true)
    expect(geminiProtocol.isModelCall('POST', '/v1beta/models/m:countTokens')).toBe(false)
    expect(geminiProtocol.isModelCall('GET', STREAM)).toBe(false)
    expect(JSON.parse(geminiProtocol.error(429, 'over budget').chunks.join(''))).toEqual({
      error: { code: 429, message: 'over budget', status: 'RESOURCE_EXHAUSTED' },
    })
  })
  it.each([true, false])(
    'forwards to an API speaking the protocol and counts the exact usage it answered (stream: %s)',
    (stream) =>
      checkForwarding(geminiProtocol, answer, 'gem', (baseUrl, apiKey) =>
        gemini({ apiKey, baseUrl, stream }),
      ),
  )
})
