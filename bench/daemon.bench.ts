/**
 * Daemon benchmarks (issue 11). The daemon runs in this process behind a
 * real Unix socket in a temporary directory; the clients are `NerveClient`s.
 *
 * - `daemon.roundtrip`: one `PING` through `NerveClient` over the Unix socket
 *   (framing, JSON-RPC decoding, the engine's dispatch, the client's
 *   matching, and its decoding of the result with the protocol's codec, as
 *   it decodes every result), against a raw NDJSON echo server on the same kind of socket
 *   driven by a raw client that stringifies and parses the same messages.
 *   Goal: ratio ≤ 2.
 * - `daemon.execute`: bash `true` through the daemon against the same
 *   command through an in-process client of the same engine kind.
 * - `daemon.throughput`: requests per second with 8 clients each sending
 *   PINGs one after the other, against 8 raw clients of the echo server
 *   (higher is better).
 * - `daemon.events`: events per second delivered to one subscriber over the
 *   Unix socket while a 200-step graph on an echo LLM node runs, against the
 *   same graph with the subscriber in-process (higher is better): what the
 *   socket costs the event stream.
 * - `daemon.slowreader.rss`: MiB of memory the daemon holds for a
 *   subscriber on the Unix socket that never reads, once 10⁵ events of 64
 *   KiB have been produced (V8 heap and external memory after a full
 *   collection, over the same before the flood: what stays resident, which
 *   a peak of RSS cannot tell once the allocator keeps freed pages), against
 *   a subscriber that reads them all. Goal: ≤ 64 MiB (the buffer is bounded
 *   by bytes, not only by count).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NerveClient } from '../src/client/index.js'
import { zeroUsage, type Provider } from '../src/index.js'
import {
  createEngine,
  standaloneClient,
  startServer,
  type ServerHandle,
} from '../src/server/index.js'
import { gc, interleaveAsync, type Benchmark, type Result } from './harness.js'

const now = (): number => performance.now()

/** A raw NDJSON server: every line comes back as it came (the baseline's "engine" does nothing). */
const echoServer = async (path: string): Promise<Server> => {
  const server = createServer((socket) => {
    socket.setNoDelay(true)
    let rest = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      rest += chunk
      let nl: number
      let out = ''
      while ((nl = rest.indexOf('\n')) !== -1) {
        out += `${rest.slice(0, nl)}\n`
        rest = rest.slice(nl + 1)
      }
      if (out !== '') socket.write(out)
    })
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(path, resolve))
  return server
}

/** A raw NDJSON client: one request line out, its line back, parsed. */
class RawClient {
  private rest = ''
  private waiting: ((line: string) => void) | undefined
  private id = 0
  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      this.rest += chunk
      const nl = this.rest.indexOf('\n')
      if (nl === -1) return
      const line = this.rest.slice(0, nl)
      this.rest = this.rest.slice(nl + 1)
      const w = this.waiting
      this.waiting = undefined
      w?.(line)
    })
  }
  static open(path: string): Promise<RawClient> {
    return new Promise((resolve) => {
      const s = connect(path, () => {
        s.setNoDelay(true)
        resolve(new RawClient(s))
      })
    })
  }
  ping(): Promise<unknown> {
    return new Promise((resolve) => {
      this.waiting = (line) => {
        resolve(JSON.parse(line))
      }
      this.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method: 'PING' })}\n`)
    })
  }
  close(): void {
    this.socket.destroy()
  }
}

interface Fixture {
  readonly dir: string
  readonly daemon: ServerHandle
  readonly raw: Server
  readonly rawPath: string
  close(): Promise<void>
}

const fixture = async (): Promise<Fixture> => {
  const dir = mkdtempSync(join(tmpdir(), 'nerve-bench-'))
  const daemon = await startServer({
    engine: createEngine({ history: false }),
    socket: join(dir, 'nerve.sock'),
    pidFile: false,
  })
  const rawPath = join(dir, 'raw.sock')
  const raw = await echoServer(rawPath)
  return {
    dir,
    daemon,
    raw,
    rawPath,
    close: async () => {
      await daemon.close()
      await new Promise((resolve) => raw.close(resolve))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const PINGS = 200

const roundtrip: Benchmark = {
  name: 'daemon.roundtrip',
  async run({ rounds }): Promise<readonly Result[]> {
    const f = await fixture()
    const client = await NerveClient.connect(f.daemon.socket)
    const raw = await RawClient.open(f.rawPath)
    try {
      const { ours, baseline } = await interleaveAsync({
        rounds: rounds ?? 40,
        warmup: 10,
        ours: async () => {
          const t0 = now()
          for (let i = 0; i < PINGS; i++) await client.ping()
          return { us: ((now() - t0) * 1e3) / PINGS }
        },
        baseline: async () => {
          const t0 = now()
          for (let i = 0; i < PINGS; i++) await raw.ping()
          return { us: ((now() - t0) * 1e3) / PINGS }
        },
      })
      return [
        {
          name: 'daemon.roundtrip',
          unit: 'µs',
          median: ours.us,
          baseline: 'raw NDJSON echo server, same socket kind',
          baselineMedian: baseline.us,
          target: { ratio: 2 },
        },
      ]
    } finally {
      raw.close()
      await client.close()
      await f.close()
    }
  },
}

const EXECUTES = 5

const execute: Benchmark = {
  name: 'daemon.execute',
  async run({ rounds }): Promise<readonly Result[]> {
    const f = await fixture()
    const remote = await NerveClient.connect(f.daemon.socket)
    const local = await standaloneClient({ history: false })
    try {
      const [r, l] = await Promise.all([
        remote.createNode('sh', 'bash'),
        local.createNode('sh', 'bash'),
      ])
      const sample = async (node: typeof r): Promise<{ ms: number }> => {
        const t0 = now()
        for (let i = 0; i < EXECUTES; i++) await node.execute('true')
        return { ms: (now() - t0) / EXECUTES }
      }
      const { ours, baseline } = await interleaveAsync({
        rounds: rounds ?? 20,
        warmup: 3,
        ours: () => sample(r),
        baseline: () => sample(l),
      })
      return [
        {
          name: 'daemon.execute',
          unit: 'ms',
          median: ours.ms,
          baseline: 'the same engine in-process (NerveClient.standalone)',
          baselineMedian: baseline.ms,
          target: { ratio: 1.5 },
        },
      ]
    } finally {
      await remote.close()
      await local.close()
      await f.close()
    }
  },
}

const CLIENTS = 8
const PER_CLIENT = 250

const throughput: Benchmark = {
  name: 'daemon.throughput',
  async run({ rounds }): Promise<readonly Result[]> {
    const f = await fixture()
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, () => NerveClient.connect(f.daemon.socket)),
    )
    const raws = await Promise.all(Array.from({ length: CLIENTS }, () => RawClient.open(f.rawPath)))
    const perSecond = async (ping: (i: number) => Promise<unknown>): Promise<{ rps: number }> => {
      const t0 = now()
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, c) => {
          for (let i = 0; i < PER_CLIENT; i++) await ping(c)
        }),
      )
      return { rps: (CLIENTS * PER_CLIENT) / ((now() - t0) / 1e3) }
    }
    try {
      const { ours, baseline } = await interleaveAsync({
        rounds: rounds ?? 20,
        warmup: 3,
        ours: () => perSecond((c) => clients[c]!.ping()),
        baseline: () => perSecond((c) => raws[c]!.ping()),
      })
      return [
        {
          name: 'daemon.throughput',
          unit: 'req/s',
          median: ours.rps,
          baseline: '8 raw clients of a raw NDJSON echo server',
          baselineMedian: baseline.rps,
          target: { minRatio: 0.5 },
        },
      ]
    } finally {
      for (const r of raws) r.close()
      await Promise.all(clients.map((c) => c.close()))
      await f.close()
    }
  },
}

const STEPS = 200

/**
 * Events per second one subscriber of `client` receives while a graph of
 * {@link STEPS} steps on an echo LLM node runs (3 events a step, 2 a run),
 * from the EXECUTE_GRAPH call to its GRAPH_COMPLETED.
 */
const eventRate = async (client: NerveClient, graphId: string): Promise<{ eps: number }> => {
  const sub = await client.subscribe({})
  const steps = Array.from({ length: STEPS }, (_, i) => ({
    id: `s${i}`,
    node: 'bot',
    input: `hi ${i}`,
  }))
  const t0 = now()
  const run = await client.runGraph({ id: graphId, steps })
  let n = 0
  for await (const e of sub) {
    n++
    if (e.type === 'GRAPH_COMPLETED' && e.runId === run.runId && e.path.length === 0) break
  }
  const seconds = (now() - t0) / 1e3
  if (n < STEPS * 3) throw new Error(`daemon.events: only ${n} events arrived`)
  await run.result()
  return { eps: n / seconds }
}

const events: Benchmark = {
  name: 'daemon.events',
  async run({ rounds }): Promise<readonly Result[]> {
    const f = await fixture()
    const remote = await NerveClient.connect(f.daemon.socket)
    const local = await standaloneClient({ history: false })
    try {
      await remote.createNode('bot', 'llm', { options: { provider: 'echo' } })
      await local.createNode('bot', 'llm', { options: { provider: 'echo' } })
      let round = 0
      const { ours, baseline } = await interleaveAsync({
        rounds: rounds ?? 10,
        warmup: 2,
        ours: () => eventRate(remote, `g${round++}`),
        baseline: () => eventRate(local, `g${round++}`),
      })
      return [
        {
          name: 'daemon.events',
          unit: 'events/s',
          median: ours.eps,
          baseline: 'the same graph, subscriber in-process (NerveClient.standalone)',
          baselineMedian: baseline.eps,
          target: { minRatio: 0.5 },
        },
      ]
    } finally {
      await remote.close()
      await local.close()
      await f.close()
    }
  },
}

const FLOOD_EVENTS = Number(process.env.NERVE_BENCH_FLOOD ?? 100_000)
const FLOOD_CHUNK = 'x'.repeat(64 * 1024)

/** A model that streams {@link FLOOD_EVENTS} deltas of 64 KiB, yielding now and then, then answers. */
const flood: Provider = {
  name: 'flood',
  async call(_request, options) {
    for (let i = 0; i < FLOOD_EVENTS; i++) {
      options.onDelta?.({ type: 'text', text: FLOOD_CHUNK })
      if (i % 64 === 63) await new Promise((resolve) => setImmediate(resolve))
    }
    return {
      content: [{ type: 'text' as const, text: 'done' }],
      stopReason: 'end_turn',
      usage: zeroUsage,
      cost: 0,
      model: 'flood',
    }
  },
}

/** V8 heap and external memory (socket buffers) after a full collection. */
const resident = (): number => {
  gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.external
}

/**
 * The MiB the process holds once the flood ran with one subscriber on the
 * Unix socket that reads everything (`reads`) or nothing (then what it was
 * not sent is still held), over what it held before.
 */
const floodRss = async (reads: boolean): Promise<{ mib: number }> => {
  const dir = mkdtempSync(join(tmpdir(), 'nerve-bench-flood-'))
  const daemon = await startServer({
    engine: createEngine({ history: false, providers: { flood } }),
    socket: join(dir, 'nerve.sock'),
    pidFile: false,
  })
  const producer = await NerveClient.connect(daemon.socket)
  const reader = connect(daemon.socket!)
  const connected = new Promise<void>((resolve) => reader.once('connect', resolve))
  try {
    await producer.createNode('bot', 'llm', { options: { provider: 'flood' } })
    await connected
    reader.on('data', () => undefined)
    const subscribed = new Promise<void>((resolve) =>
      reader.once('data', () => {
        resolve()
      }),
    )
    reader.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SUBSCRIBE', params: {} })}\n`)
    await subscribed
    if (!reads) reader.pause()
    const before = resident()
    await producer.node('bot').execute('go')
    return { mib: Math.max(0, resident() - before) / 2 ** 20 }
  } finally {
    reader.destroy()
    await producer.close()
    await daemon.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const slowReader: Benchmark = {
  name: 'daemon.slowreader.rss',
  async run({ rounds }): Promise<readonly Result[]> {
    const { ours, baseline } = await interleaveAsync({
      rounds: rounds ?? 3,
      warmup: 0,
      ours: () => floodRss(false),
      baseline: () => floodRss(true),
    })
    return [
      {
        name: 'daemon.slowreader.rss',
        unit: 'MiB',
        median: ours.mib,
        baseline: 'the same flood to a subscriber that reads everything',
        baselineMedian: baseline.mib,
        target: { median: 64 },
      },
    ]
  },
}

export const benchmarks: readonly Benchmark[] = [roundtrip, execute, throughput, events, slowReader]
