/**
 * Model proxy benchmark (issue 23):
 *
 * - `proxy.overhead`: the latency the proxy adds to one streamed Messages
 *   API call (a short answer of 8 server-sent events from a local upstream),
 *   forwarding it while it reads the stream for usage and the tape. Ours is
 *   the call through the proxy, the baseline the same call straight to the
 *   upstream, from the same keep-alive client, interleaved. The figure is
 *   the difference of the medians. Target: ≤ 1 ms.
 */
import { Agent, createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { anthropicMessages, startModelProxy } from '../src/interpreters/index.js'
import { interleaveAsync, type Benchmark, type Result } from './harness.js'

const EVENTS = [
  { type: 'message_start', message: { model: 'm', usage: { input_tokens: 20, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ', world.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } },
  { type: 'message_stop' },
].map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)

const BODY = JSON.stringify({
  model: 'm',
  max_tokens: 100,
  stream: true,
  system: 'Be brief.',
  messages: [{ role: 'user', content: 'Say hello.' }],
})

const upstream = (): Promise<{ server: Server; url: string }> =>
  new Promise((resolve) => {
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        for (const e of EVENTS) res.write(e)
        res.end()
      })
    })
    server.listen(0, '127.0.0.1', () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
    })
  })

const agent = new Agent({ keepAlive: true, maxSockets: 1 })

/** One streamed call with `key`: resolves with the milliseconds until the last byte. */
const call = (url: string, key: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = request(
      `${url}/v1/messages?beta=true`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': key } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text += c))
        res.on('end', () => {
          if (!text.includes('message_stop')) reject(new Error('proxy.overhead: stream cut'))
          else resolve(performance.now() - t0)
        })
      },
    )
    req.on('error', reject)
    req.end(BODY)
  })

const overhead: Benchmark = {
  name: 'proxy.overhead',
  async run({ rounds }): Promise<readonly Result[]> {
    const api = await upstream()
    const proxy = await startModelProxy({
      protocols: [anthropicMessages],
      upstream: { _tag: 'forward', baseUrl: api.url },
    })
    try {
      const through = proxy.baseUrl('bench')
      const key = proxy.key('bench')
      const { ours, baseline } = await interleaveAsync({
        rounds: rounds ?? 1000,
        warmup: 100,
        ours: async () => ({ ms: await call(through, key) }),
        baseline: async () => ({ ms: await call(api.url, key) }),
      })
      if (proxy.usage('bench').usage.output_tokens === 0) {
        throw new Error('proxy.overhead: the proxy kept no usage')
      }
      return [
        {
          name: 'proxy.overhead',
          unit: 'ms',
          median: ours.ms - baseline.ms,
          baseline: 'the same streamed call straight to the upstream',
          baselineMedian: baseline.ms,
          target: { median: 1 },
        },
      ]
    } finally {
      agent.destroy()
      await proxy.close()
      await new Promise((resolve) => api.server.close(resolve))
    }
  },
}

export const benchmarks: readonly Benchmark[] = [overhead]
