import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  chain,
  defaultInterpreters,
  fn,
  graph,
  stream,
  UsageError,
  type StreamEvent,
} from 'nerve-agents'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const heapAfterGc = (): number => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/** Ten steps in a chain, each emitting `per` chunks as fast as it can. */
const chatty = (per: number) => {
  const talk = fn('talk', (ctx) => {
    for (let k = 0; k < per; k++) ctx.emit(k)
    return per
  })
  let g = graph('chatty')
  const ids: string[] = []
  for (let s = 0; s < 10; s++) {
    ids.push(`s${s}`)
    g = addStep({ id: `s${s}`, node: talk })(g)
  }
  return pipe(g, chain(...ids))
}

const drain = async (it: AsyncIterator<StreamEvent>, into: StreamEvent[]): Promise<void> => {
  for (let r = await it.next(); r.done !== true; r = await it.next()) into.push(r.value)
}

describe('stream', () => {
  it('keeps a fixed heap for a reader that never reads while 10⁶ events are produced', async () => {
    const g = chatty(100_000)
    const before = heapAfterGc()
    const it = stream(g, { interpreters: defaultInterpreters })[Symbol.asyncIterator]()
    const first = await it.next() // starts the run; the steps emit synchronously
    await new Promise((resolve) => setTimeout(resolve, 10))
    const during = heapAfterGc()
    // 10⁶ kept events would take ~100 MB; the buffer of 10⁴ takes about 1 MB.
    expect(during - before).toBeLessThan(8 * 1024 * 1024)
    const events: StreamEvent[] = [first.value as StreamEvent]
    await drain(it, events)
    const lags = events.flatMap((e) => (e.type === 'stream_lag' ? [e] : []))
    const chunks = events.filter((e) => e.type === 'step_chunk').length
    const dropped = lags.reduce((n, e) => n + e.dropped, 0)
    expect(events.length).toBeLessThanOrEqual(10_002)
    // Every event was either delivered or counted as dropped: 10⁶ chunks,
    // 20 step events, graph_started and graph_completed.
    expect(events.length - lags.length + dropped).toBe(1_000_000 + 22)
    expect(chunks).toBeGreaterThan(0)
    expect(events.at(-1)).toMatchObject({ type: 'graph_completed', status: 'completed' })
  })

  it('tells a slow reader how many events it missed, where it missed them', async () => {
    const g = chatty(10)
    const events: StreamEvent[] = []
    const it = stream(g, { interpreters: defaultInterpreters, buffer: 5 })[Symbol.asyncIterator]()
    await drain(it, events)
    // graph_started and the first step's start and chunks fill the buffer;
    // everything after is dropped, until the last event.
    expect(events.map((e) => e.type)).toEqual([
      'graph_started',
      'step_start',
      'step_chunk',
      'step_chunk',
      'step_chunk',
      'stream_lag',
      'graph_completed',
    ])
    expect(events[5]).toMatchObject({ type: 'stream_lag', dropped: 10 * 12 + 2 - 6 })
  })

  it('drops nothing while the buffer has room', async () => {
    const all: StreamEvent[] = []
    for await (const e of stream(chatty(100), { interpreters: defaultInterpreters })) all.push(e)
    expect(all.some((e) => e.type === 'stream_lag')).toBe(false)
    expect(all).toHaveLength(1000 + 22)
  })

  it('refuses a buffer that is not a positive integer, naming the option', () => {
    const g = chatty(1)
    for (const buffer of [0, -1, 1.5, Number.NaN]) {
      expect(() => stream(g, { interpreters: defaultInterpreters, buffer })).toThrow(UsageError)
      expect(() => stream(g, { interpreters: defaultInterpreters, buffer })).toThrow(
        /options\.buffer must be an integer ≥ 1/,
      )
    }
  })
})
