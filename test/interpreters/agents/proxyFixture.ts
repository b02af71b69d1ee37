import { readFileSync } from 'node:fs'
import { afterEach, expect } from 'vitest'
import { type Provider } from '../../../src/index.js'
import {
  type ModelProxy,
  type ModelResponse,
  type ProxyProtocol,
  startModelProxy,
} from '../../../src/interpreters/index.js'
import { scriptedProvider } from '../../../src/testing/index.js'

const proxies: ModelProxy[] = []
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()))
})

/** A signal that never aborts. */
export const signal: AbortSignal = new AbortController().signal

/** The usage a scripted answer reports, with `cacheRead` tokens read from the cache. */
export const scriptedUsage = (cacheRead: number) => ({
  input_tokens: 12,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: cacheRead,
})

/** A scripted answer: a line of text, then the tool call `use`. */
export const toolTurn = (
  use: { readonly id: string; readonly name: string; readonly input: Record<string, unknown> },
  usage: ModelResponse['usage'],
): ModelResponse => ({
  content: [
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_use', ...use },
  ],
  stopReason: 'tool_use',
  usage,
})

/** A request recorded from a real CLI, read from `test/fixtures/<path>`. */
export const recordedRequest = (path: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8'))

/** A proxy speaking `protocol` that answers `answers` in turn; closed after the test. */
export const scriptedProxy = async (protocol: ProxyProtocol, answers: readonly ModelResponse[]) => {
  const model = scriptedProvider(answers)
  const proxy = await startModelProxy({
    protocols: [protocol],
    upstream: { _tag: 'provider', provider: model },
  })
  proxies.push(proxy)
  return { model, proxy }
}

/**
 * Checks that a proxy speaking `protocol` forwards to an API speaking it (a
 * second proxy, answering `answer`, the front's own key for it added) and
 * counts the usage it answered: asks through the client `clientAt` makes
 * for the proxy's base URL and key for `name`.
 */
export const checkForwarding = async (
  protocol: ProxyProtocol,
  answer: ModelResponse,
  name: string,
  clientAt: (baseUrl: string, key: string) => Provider,
): Promise<void> => {
  const { proxy: api } = await scriptedProxy(protocol, [answer])
  const front = await startModelProxy({
    protocols: [protocol],
    upstream: { _tag: 'forward', baseUrl: api.url, headers: { 'x-api-key': api.key(name) } },
  })
  proxies.push(front)
  const got = await clientAt(front.baseUrl(name), front.key(name)).call(
    {
      model: 'm',
      system: '',
      messages: [{ type: 'message', role: 'user', content: 'hi' }],
      tools: [],
    },
    { signal },
  )
  expect(got.content).toEqual(answer.content)
  const counted = front.usage(name)
  expect(counted.calls).toBe(1)
  expect(counted.usage).toMatchObject({ output_tokens: 5 })
  expect(front.calls(name)[0]?.response.content).toEqual(answer.content)
}
