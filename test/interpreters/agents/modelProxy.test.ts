import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { anthropic } from '../../../src/index.js'
import {
  anthropicMessages,
  type ModelProxy,
  type ModelProxyOptions,
  ProviderHttpError,
  type ProxyCall,
  ProxyCallCodec,
  startModelProxy,
} from '../../../src/interpreters/index.js'
import { scriptedProvider } from '../../../src/testing/index.js'
import { startServer, type TestServer } from '../llm/server.js'

const proxies: ModelProxy[] = []
const servers: TestServer[] = []
afterEach(async () => {
  await Promise.all([
    ...proxies.splice(0).map((p) => p.close()),
    ...servers.splice(0).map((s) => s.close()),
  ])
})

const open = async (options: Omit<ModelProxyOptions, 'protocols'>): Promise<ModelProxy> => {
  const proxy = await startModelProxy({ protocols: [anthropicMessages], ...options })
  proxies.push(proxy)
  return proxy
}

const signal = new AbortController().signal
const ask = (text: string) => ({
  system: 'Be brief.',
  messages: [{ type: 'message' as const, role: 'user' as const, content: text }],
  tools: [],
})
const usage = {
  input_tokens: 12,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 3,
}

/** Nerve's own Anthropic client, pointed at the proxy as agent `agent`. */
const client = (proxy: ModelProxy, agent: string, stream = true) =>
  anthropic({ apiKey: proxy.key(agent), baseUrl: proxy.baseUrl(agent), stream })

/** The headers that make a request agent `agent`'s. */
const as = (proxy: ModelProxy, agent: string) => ({ 'x-api-key': proxy.key(agent) })

describe('the model proxy answering from a provider', () => {
  it('streams a scripted answer in the Messages protocol that an Anthropic client reads back whole', async () => {
    const model = scriptedProvider([
      {
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
        ],
        usage,
      },
    ])
    const proxy = await open({ upstream: { _tag: 'provider', provider: model } })
    const answer = await client(proxy, 'a').call(ask('list files'), { signal })
    expect(answer.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
    ])
    expect(answer.stopReason).toBe('tool_use')
    expect(answer.usage).toMatchObject(usage)
    expect(model.requests[0]!.system).toBe('Be brief.')
    expect(model.requests[0]!.messages).toEqual(ask('list files').messages)
  })

  it('answers in JSON when the client does not stream', async () => {
    const proxy = await open({
      upstream: { _tag: 'provider', provider: scriptedProvider(['Hi.']) },
    })
    const answer = await client(proxy, 'a', false).call(ask('hi'), { signal })
    expect(answer.content).toEqual([{ type: 'text', text: 'Hi.' }])
  })

  it('counts the exact usage and cost of each agent apart', async () => {
    const model = scriptedProvider([
      { content: 'one', usage },
      { content: 'two', usage },
      { content: 'three', usage },
    ])
    const proxy = await open({
      upstream: { _tag: 'provider', provider: model },
      pricing: { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 },
    })
    await client(proxy, 'a').call(ask('1'), { signal })
    await client(proxy, 'a').call(ask('2'), { signal })
    await client(proxy, 'b').call(ask('3'), { signal })
    expect(proxy.usage('a').calls).toBe(2)
    expect(proxy.usage('a').usage.output_tokens).toBe(10)
    expect(proxy.usage('a').usage.cache_read_input_tokens).toBe(6)
    expect(proxy.usage('b').calls).toBe(1)
    // Cache reads at the input price: the proxy's pricing knows no cache rates.
    expect(proxy.usage('b').cost).toBe((12 + 3) * 1 + 5 * 2)
    expect(proxy.calls('a').map((c) => c.index)).toEqual([0, 1])
  })

  it('refuses a call past the agent budget without asking the provider', async () => {
    const model = scriptedProvider([{ content: 'one', usage }, 'never'])
    const proxy = await open({
      upstream: { _tag: 'provider', provider: model },
      budget: { maxTokens: 10 },
    })
    await client(proxy, 'a').call(ask('1'), { signal })
    const refused = await client(proxy, 'a')
      .call(ask('2'), { signal })
      .catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ProviderHttpError)
    expect((refused as ProviderHttpError).status).toBe(400)
    expect((refused as ProviderHttpError).message).toContain('over its budget')
    expect(model.requests).toHaveLength(1)
    expect(proxy.usage('a').refused).toBe(1)
    // Another agent has a budget of its own.
    await expect(client(proxy, 'b').call(ask('3'), { signal })).resolves.toBeDefined()
  })

  it('asks a budget function for each call of each agent, so a budget may change between calls', async () => {
    const model = scriptedProvider(['one', 'two', 'three'], { loop: true })
    const limits = new Map<string, number>([['a', 1]])
    const proxy = await open({
      upstream: { _tag: 'provider', provider: model },
      budget: (agent) => {
        const maxCalls = limits.get(agent)
        return maxCalls === undefined ? undefined : { maxCalls }
      },
    })
    await client(proxy, 'a').call(ask('1'), { signal })
    await expect(client(proxy, 'a').call(ask('2'), { signal })).rejects.toThrow(/over its budget/)
    limits.set('a', 2)
    await expect(client(proxy, 'a').call(ask('3'), { signal })).resolves.toBeDefined()
    // An agent the function gives no budget is not limited.
    await client(proxy, 'b').call(ask('4'), { signal })
    await expect(client(proxy, 'b').call(ask('5'), { signal })).resolves.toBeDefined()
    expect(proxy.usage('a')).toMatchObject({ calls: 2, refused: 1 })
  })

  it('answers a request it cannot read with a 400 naming the bad field', async () => {
    const proxy = await open({ upstream: { _tag: 'provider', provider: scriptedProvider([]) } })
    const r = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: as(proxy, 'a'),
      body: JSON.stringify({ messages: [{ role: 'robot', content: 'x' }] }),
    })
    expect(r.status).toBe(400)
    const body = (await r.json()) as { error: { message: string } }
    expect(body.error.message).toContain('/messages/0/role')
  })

  it('answers count_tokens itself and any other path with a 404', async () => {
    const proxy = await open({ upstream: { _tag: 'provider', provider: scriptedProvider([]) } })
    const count = await fetch(`${proxy.baseUrl('a')}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: as(proxy, 'a'),
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }] }),
    })
    expect(((await count.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0)
    expect((await fetch(`${proxy.url}/v1/other`, { headers: as(proxy, 'a') })).status).toBe(404)
  })
})

/** What the API behind a forwarding proxy streams, and the API. */
const events = [
  {
    type: 'message_start',
    message: { model: 'm', usage: { input_tokens: 7, output_tokens: 1 } },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Forwarded.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } },
  { type: 'message_stop' },
]
const api = async (): Promise<TestServer> => {
  const server = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
    res.end()
  })
  servers.push(server)
  return server
}

describe('the model proxy forwarding to an API', () => {
  it('passes the stream through unchanged, adds its headers, and keeps the usage the API reported', async () => {
    const server = await api()
    const proxy = await open({
      upstream: { _tag: 'forward', baseUrl: server.url, headers: { 'x-api-key': 'sk-real' } },
    })
    const answer = await client(proxy, 'a').call(ask('hi'), { signal })
    expect(answer.content).toEqual([{ type: 'text', text: 'Forwarded.' }])
    expect(server.received[0]!.headers['x-api-key']).toBe('sk-real')
    expect(server.received[0]!.path).toBe('/v1/messages')
    expect(proxy.usage('a').usage).toMatchObject({ input_tokens: 7, output_tokens: 4 })
    expect(proxy.calls('a')[0]!.response.content).toEqual([{ type: 'text', text: 'Forwarded.' }])
    const body = JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'hi' }] })
    const direct = await (await fetch(`${server.url}/v1/messages`, { method: 'POST', body })).text()
    const through = await (
      await fetch(`${proxy.url}/v1/messages`, { method: 'POST', body, headers: as(proxy, 'b') })
    ).text()
    expect(through).toBe(direct)
    // The agent's key stays here: the API gets the proxy's own.
    expect(server.received.at(-1)!.headers['x-api-key']).toBe('sk-real')
  })

  it('passes through what spends nothing (a GET, a token count), and nothing else that is not a model call', async () => {
    const server = await api()
    const proxy = await open({
      upstream: { _tag: 'forward', baseUrl: server.url, headers: { 'x-api-key': 'sk-real' } },
    })
    await fetch(`${proxy.baseUrl('a')}/api/hello?x=1&key=${proxy.key('a')}`)
    await fetch(`${proxy.baseUrl('a')}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: as(proxy, 'a'),
      body: '{}',
    })
    const batch = await fetch(`${proxy.baseUrl('a')}/v1/messages/batches`, {
      method: 'POST',
      headers: as(proxy, 'a'),
      body: '{}',
    })
    expect(batch.status).toBe(403)
    expect(((await batch.json()) as { error: string }).error).toContain('not a model call')
    expect(server.received.map((r) => r.path)).toEqual([
      '/api/hello?x=1',
      '/v1/messages/count_tokens',
    ])
    expect(server.received.map((r) => r.headers['x-api-key'])).toEqual(['sk-real', 'sk-real'])
    expect(proxy.calls()).toHaveLength(0)
  })
})

/** A request to the proxy as `node:http` sends it: any Host and Origin. */
const raw = (
  proxy: ModelProxy,
  path: string,
  headers: Record<string, string | number>,
  body = '{}',
): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const req = request(`${proxy.url}${path}`, { method: 'POST', headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, text })
      })
    })
    req.on('error', reject)
    req.end(body)
  })

describe('the model proxy guards the key it holds', () => {
  const forwarding = async () => {
    const server = await api()
    const proxy = await open({
      upstream: { _tag: 'forward', baseUrl: server.url, headers: { 'x-api-key': 'sk-real' } },
    })
    return { server, proxy }
  }
  const hi = JSON.stringify({
    model: 'm',
    max_tokens: 9,
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
  })

  it("answers only a key it made, from the path's agent, and counts the call as the key's agent", async () => {
    const { server, proxy } = await forwarding()
    const key = proxy.key('a')
    expect(proxy.key('a')).toBe(key)
    expect(proxy.key('b')).not.toBe(key)
    const path = '/agents/a/v1/messages'
    expect((await raw(proxy, path, {}, hi)).status).toBe(401)
    expect((await raw(proxy, path, { 'x-api-key': 'sk-ant-guess' }, hi)).status).toBe(401)
    // Another agent's name in the path: its budget is not this key's to escape.
    const other = await raw(proxy, '/agents/b/v1/messages', { 'x-api-key': key }, hi)
    expect(other.status).toBe(403)
    expect(other.text).toContain('the path names another')
    expect((await raw(proxy, '/agents/%E0/v1/messages', { 'x-api-key': key }, hi)).status).toBe(403)
    expect(server.received).toHaveLength(0)
    // Any of the places a protocol puts its key; without the prefix the key says whose call it is.
    for (const headers of [
      { authorization: `Bearer ${key}` },
      { 'x-goog-api-key': key },
      { 'x-api-key': key },
    ])
      expect((await raw(proxy, '/v1/messages', headers, hi)).status).toBe(200)
    expect(proxy.usage('a').calls).toBe(3)
    expect(server.received.map((r) => r.headers['x-api-key'])).toEqual([
      'sk-real',
      'sk-real',
      'sk-real',
    ])
    expect(server.received.some((r) => JSON.stringify(r.headers).includes(key))).toBe(false)
  })

  it('refuses a request to another host name, from a web page, or with a body over 16 MiB', async () => {
    const { server, proxy } = await forwarding()
    const key = { 'x-api-key': proxy.key('a') }
    const port = new URL(proxy.url).port
    const rebound = await raw(proxy, '/v1/messages', { ...key, host: `evil.example:${port}` }, hi)
    expect(rebound.status).toBe(403)
    const page = await raw(proxy, '/v1/messages', { ...key, origin: 'http://evil.example' }, hi)
    expect(page.status).toBe(403)
    expect(page.text).toContain('web page')
    expect(
      (await raw(proxy, '/v1/messages', { ...key, host: `localhost:${port}` }, hi)).status,
    ).toBe(200)
    const big = await raw(proxy, '/v1/messages', key, 'x'.repeat(16 * 1024 * 1024 + 1))
    expect(big.status).toBe(413)
    expect(server.received).toHaveLength(1)
  })
})

describe('a tape of proxy calls', () => {
  it('replays what was recorded, with no API, after a round trip through JSON', async () => {
    const recorded: ProxyCall[] = []
    const model = scriptedProvider(['first', { content: 'second', usage }])
    const proxy = await open({
      upstream: { _tag: 'provider', provider: model },
      onCall: (c) => recorded.push(c),
    })
    await client(proxy, 'a').call(ask('1'), { signal })
    await client(proxy, 'a').call(ask('2'), { signal })
    const tape = JSON.parse(JSON.stringify(recorded)) as unknown[]
    const calls = tape.map((c) => {
      const decoded = ProxyCallCodec.decode(c)
      if (E.isLeft(decoded)) throw new Error('tape does not decode')
      return decoded.right
    })
    const replay = await open({ upstream: { _tag: 'replay', calls } })
    const one = await client(replay, 'a').call(ask('1'), { signal })
    const two = await client(replay, 'a').call(ask('2'), { signal })
    expect(one.content).toEqual([{ type: 'text', text: 'first' }])
    expect(two.content).toEqual([{ type: 'text', text: 'second' }])
    expect(replay.usage('a').usage.output_tokens).toBe(5)
    const past = await client(replay, 'a')
      .call(ask('3'), { signal })
      .catch((e: unknown) => e)
    expect((past as Error).message).toContain('no call 2')
  })
})
