import { zeroUsage, type Content } from '../../conversation/index.js'
import type {
  CallOptions,
  ModelRequest,
  ModelResponse,
  Provider,
} from '../../interpreters/index.js'

const textOf = (content: Content): string =>
  typeof content === 'string'
    ? content
    : content
        .map((b) => (b.type === 'text' ? b.text : ''))
        .filter((t) => t !== '')
        .join('\n')

/**
 * A deterministic model provider, built into every engine as `echo`: it
 * answers `echo: ` and the text of the last user message, with the number
 * of messages it was sent, and costs nothing. For tests, demos and
 * protocol checks without a model.
 *
 * @category engine
 * @example
 * import { echoProvider } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * const r = await echoProvider.call(
 *   { system: '', tools: [], messages: [{ type: 'message', role: 'user', content: 'hi' }] },
 *   { signal: new AbortController().signal },
 * )
 * assert.deepStrictEqual(r.content, [{ type: 'text', text: 'echo: hi' }])
 */
export const echoProvider: Provider = Object.freeze({
  name: 'echo',
  call(request: ModelRequest, options: CallOptions): Promise<ModelResponse> {
    if (options.signal.aborted) return Promise.reject(options.signal.reason as Error)
    const last = [...request.messages].reverse().find((m) => m.role === 'user')
    const text = `echo: ${last === undefined ? '' : textOf(last.content)}`
    options.onDelta?.({ type: 'text', text })
    return Promise.resolve({
      content: [{ type: 'text', text }],
      stopReason: 'end_turn',
      usage: zeroUsage,
      cost: 0,
      model: 'echo',
    })
  },
})
