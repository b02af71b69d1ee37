import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ConnectionError, Subscription } from '../../src/client/index.js'
import type { EngineEvent } from '../../src/server/index.js'

const chunk = (i: number): EngineEvent => ({
  type: 'OUTPUT_CHUNK',
  time: '2026-01-01T00:00:00.000Z',
  sessionId: 's',
  nodeId: 'n',
  chunk: i,
})

const drain = async (sub: Subscription): Promise<EngineEvent[]> => {
  const out: EngineEvent[] = []
  for await (const e of sub) out.push(e)
  return out
}

describe('Subscription', () => {
  it('yields the events in order and ends after SERVER_SHUTDOWN', async () => {
    const sub = new Subscription('s1', () => Promise.resolve())
    sub.push(chunk(1))
    sub.push(chunk(2))
    sub.push({ type: 'SERVER_SHUTDOWN', time: 't' })
    sub.push(chunk(3))
    expect((await drain(sub)).map((e) => e.type)).toEqual([
      'OUTPUT_CHUNK',
      'OUTPUT_CHUNK',
      'SERVER_SHUTDOWN',
    ])
    expect(sub.active).toBe(false)
  })

  it('keeps at most maxQueued unread events and says how many it dropped (law)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 60 }),
        async (max, n) => {
          const sub = new Subscription('s', () => Promise.resolve(), max)
          for (let i = 0; i < n; i++) sub.push(chunk(i))
          sub.finish(null)
          const got = await drain(sub)
          const dropped = Math.max(0, n - max)
          if (dropped > 0) expect(got[0]).toMatchObject({ type: 'LAGGED', dropped })
          const kept = got
            .filter((e) => e.type === 'OUTPUT_CHUNK')
            .map((e) => (e as { chunk: number }).chunk)
          expect(kept).toEqual(Array.from({ length: n - dropped }, (_, i) => i + dropped))
        },
      ),
    )
  })

  it('throws the ConnectionError to a reader waiting when the connection is lost', async () => {
    const sub = new Subscription('s', () => Promise.resolve())
    const reading = drain(sub)
    const lost = new ConnectionError('here', 'connection lost')
    sub.finish(lost)
    await expect(reading).rejects.toBe(lost)
  })

  it('unsubscribes on the daemon when a for-await loop breaks', async () => {
    const stopped: string[] = []
    const sub = new Subscription('s9', (id) => {
      stopped.push(id)
      return Promise.resolve()
    })
    sub.push(chunk(1))
    sub.push(chunk(2))
    for await (const e of sub) {
      expect(e.type).toBe('OUTPUT_CHUNK')
      break
    }
    expect(stopped).toEqual(['s9'])
    expect(sub.active).toBe(false)
  })
})
