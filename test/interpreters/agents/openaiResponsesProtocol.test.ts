import { describe, expect, it } from 'vitest'
import { type Block, openaiResponses } from '../../../src/index.js'
import {
  type ModelResponse,
  openaiResponsesProtocol,
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

const usage = scriptedUsage(3)
const answer = toolTurn({ id: 'call_1', name: 'exec_command', input: { cmd: 'ls' } }, usage)

/** A request Codex CLI 0.171.0 sent (texts cut short): two turns, the second with a tool call and its output. */
const codexRequest = recordedRequest('codex/0.171.0/request.json')

describe('the OpenAI Responses protocol of the model proxy', () => {
  it.each([true, false])(
    'answers a scripted turn that Nerve’s Responses client reads back whole (stream: %s)',
    async (stream) => {
      const { model, proxy } = await scriptedProxy(openaiResponsesProtocol, [answer])
      const client = openaiResponses({
        apiKey: proxy.key('codex'),
        baseUrl: `${proxy.baseUrl('codex')}/v1`,
        stream,
      })
      const ask = {
        system: 'Be brief.',
        messages: [{ type: 'message' as const, role: 'user' as const, content: 'list files' }],
        tools: [{ name: 'exec_command', description: 'Runs a command.', input_schema: {} }],
      }
      const got = await client.call(ask, { signal })
      expect(got.content).toEqual(answer.content)
      expect(got.stopReason).toBe('tool_use')
      expect(got.usage).toMatchObject(usage)
      expect(model.requests[0]).toMatchObject({
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'list files' }] }],
        tools: ask.tools,
      })
      expect(proxy.usage('codex').usage).toMatchObject(usage)
    },
  )

  it('decodes a real Codex request: developer messages as the system prompt, the tool round as blocks', () => {
    const call = openaiResponsesProtocol.decode(codexRequest, '/v1/responses')
    expect(call.stream).toBe(true)
    expect(call.request.model).toBe('gpt-5')
    expect(call.request.system).toMatch(/^You are a coding agent running in the Codex CLI/)
    expect(call.request.tools.map((t) => t.name)).toEqual(['exec_command'])
    const roles = call.request.messages.map((m) => m.role)
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user'])
    const last = call.request.messages.slice(-2)
    const [use] = last[0]!.content as readonly Block[]
    const [result] = last[1]!.content as readonly Block[]
    expect(use).toMatchObject({ type: 'tool_use', name: 'exec_command', input: { cmd: 'ls' } })
    expect(result?.type === 'tool_result' && use?.type === 'tool_use').toBe(true)
    if (result?.type === 'tool_result' && use?.type === 'tool_use')
      expect(result.tool_use_id).toBe(use.id)
    expect(call.request.parallelToolCalls).toBeUndefined()
  })

  it('refuses a request of the wrong shape with the path of the bad field', () => {
    const bad = {
      model: 'm',
      input: [{ type: 'function_call', call_id: 'c', name: 'x', arguments: '{' }],
    }
    const thrown = (() => {
      try {
        openaiResponsesProtocol.decode(bad, '/v1/responses')
      } catch (e) {
        return e
      }
    })()
    expect(thrown).toBeInstanceOf(ProxyRequestInvalid)
    expect((thrown as ProxyRequestInvalid).path).toBe('/input/0/arguments')
    expect(() => openaiResponsesProtocol.decode({ input: 3 }, '/v1/responses')).toThrow(
      ProxyRequestInvalid,
    )
  })

  it.each([true, false])('reads back what it encodes (stream: %s)', (stream) => {
    const call = openaiResponsesProtocol.decode(
      { model: 'gpt-5', stream, input: 'hi' },
      '/v1/responses',
    )
    const thinking: ModelResponse = {
      ...answer,
      content: [{ type: 'thinking', thinking: 'Look first.', signature: 'enc' }, ...answer.content],
    }
    const reader = openaiResponsesProtocol.reader(call)
    for (const chunk of openaiResponsesProtocol.encode(thinking, call, '7').chunks)
      reader.push(chunk)
    expect(reader.result()).toMatchObject({
      content: thinking.content,
      stopReason: 'tool_use',
      usage,
    })
  })

  it('is the model call POST /v1/responses only, and answers errors as the API does', () => {
    expect(openaiResponsesProtocol.isModelCall('POST', '/v1/responses')).toBe(true)
    expect(openaiResponsesProtocol.isModelCall('GET', '/v1/responses')).toBe(false)
    expect(openaiResponsesProtocol.isModelCall('POST', '/v1/messages')).toBe(false)
    const refused = openaiResponsesProtocol.error(400, 'over budget')
    expect(refused.status).toBe(400)
    expect(JSON.parse(refused.chunks.join(''))).toEqual({
      error: { message: 'over budget', type: 'invalid_request_error', code: null, param: null },
    })
  })
  it.each([true, false])(
    'forwards to an API speaking the protocol and counts the exact usage it answered (stream: %s)',
    (stream) =>
      checkForwarding(openaiResponsesProtocol, answer, 'codex', (baseUrl, apiKey) =>
        openaiResponses({ apiKey, baseUrl: `${baseUrl}/v1`, stream }),
      ),
  )
})
