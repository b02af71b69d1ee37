import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Outbox, passes } from '../../../src/server/engine/Outbox.js'
import type { EngineEvent } from '../../../src/server/index.js'

const event = (n: number, nodeId = 'a'): EngineEvent => ({
  type: 'OUTPUT_CHUNK',
  time: 't',
  sessionId: 'default',
  nodeId,
  chunk: n,
})

interface Received {
  readonly subscription: string
  readonly event: { readonly type: string; readonly chunk?: number; readonly dropped?: number }
}

const received = (lines: readonly string[]): Received[] =>
  lines
    .map((l) => JSON.parse(l) as { method?: string; params?: Received })
    .filter((m) => m.method === 'EVENT')
    .map((m) => m.params!)

describe('passes', () => {
  it('keeps events that meet every given criterion, and SERVER_SHUTDOWN always', () => {
    expect(passes({ nodeId: 'a' }, event(1, 'a'))).toBe(true)
    expect(passes({ nodeId: 'a' }, event(1, 'b'))).toBe(false)
    expect(passes({ types: ['NODE_READY'] }, event(1))).toBe(false)
    expect(passes({ sessionId: 'other' }, event(1))).toBe(false)
    expect(passes({ runId: 'r', types: [] }, { type: 'SERVER_SHUTDOWN', time: 't' })).toBe(true)
  })
})

describe('Outbox', () => {
  it('sends responses even when congested, and nothing after close', () => {
    const lines: string[] = []
    const box = new Outbox(
      (l) => lines.push(l) < 0,
      4,
      () => 't',
    )
    box.line('a')
    box.line('b')
    box.close()
    box.line('c')
    expect(lines).toEqual(['a', 'b'])
  })

  it('delivers every event of a subscription in order or counts it in one LAGGED before the rest (law)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 400 }),
        fc.array(
          fc.oneof(fc.constant('publish' as const), fc.constant('drain' as const), fc.boolean()),
          {
            maxLength: 80,
          },
        ),
        (capacity, maxBytes, steps) => {
          const lines: string[] = []
          let open = true
          const box = new Outbox(
            (l) => {
              lines.push(l)
              return open
            },
            capacity,
            () => 't',
            maxBytes,
          )
          const sub = box.subscribe({})
          let n = 0
          for (const step of steps) {
            if (step === 'publish') box.publish(event(n++))
            else if (step === 'drain') box.drained()
            else open = step
          }
          open = true
          box.drained()
          const got = received(lines).filter((r) => r.subscription === sub)
          let expected = 0
          for (const r of got) {
            if (r.event.type === 'LAGGED') {
              expect(r.event.dropped).toBeGreaterThan(0)
              expected += r.event.dropped!
            } else {
              expect(r.event.chunk).toBe(expected)
              expected++
            }
          }
          expect(expected).toBe(n)
          if (!steps.includes(false)) expect(got.every((r) => r.event.type !== 'LAGGED')).toBe(true)
        },
      ),
    )
  })

  it('holds at most its capacity per subscription and says how many it dropped', () => {
    const lines: string[] = []
    let open = false
    const box = new Outbox(
      (l) => {
        lines.push(l)
        return open
      },
      2,
      () => 't',
    )
    box.line('{}')
    const a = box.subscribe({ nodeId: 'a' })
    const b = box.subscribe({ nodeId: 'b' })
    for (let i = 0; i < 5; i++) box.publish(event(i, 'a'))
    box.publish(event(9, 'b'))
    expect(received(lines)).toEqual([])
    open = true
    box.drained()
    expect(
      received(lines).map((r) => [r.subscription, r.event.type, r.event.chunk ?? r.event.dropped]),
    ).toEqual([
      [a, 'LAGGED', 3],
      [a, 'OUTPUT_CHUNK', 3],
      [a, 'OUTPUT_CHUNK', 4],
      [b, 'OUTPUT_CHUNK', 9],
    ])
  })

  /** An outbox of `maxBytes` whose transport is congested until `open()`, the lines it sent, and one subscription to everything. */
  const congested = (maxBytes: number) => {
    const lines: string[] = []
    let open = false
    const box = new Outbox(
      (l) => {
        lines.push(l)
        return open
      },
      1024,
      () => 't',
      maxBytes,
    )
    box.line('{}')
    const sub = box.subscribe({})
    return {
      box,
      drain: () => {
        open = true
        box.drained()
        return received(lines).map((r) => [
          r.subscription === sub,
          r.event.type,
          r.event.chunk ?? r.event.dropped,
        ])
      },
    }
  }
  /** An event of 340 characters of JSON: two fit in 1000. */
  const small = (n: number): EngineEvent =>
    ({ ...event(n), data: 'x'.repeat(250) }) as unknown as EngineEvent
  const large = (n: number): EngineEvent =>
    ({ ...event(n), data: 'y'.repeat(5000) }) as unknown as EngineEvent

  it('holds at most its byte bound per subscription, the newest event always, and counts what it dropped', () => {
    const { box, drain } = congested(1000)
    for (let i = 0; i < 20; i++) box.publish(small(i))
    expect(drain()).toEqual([
      [true, 'LAGGED', 18],
      [true, 'OUTPUT_CHUNK', 18],
      [true, 'OUTPUT_CHUNK', 19],
    ])
  })

  it('holds an event larger than its byte bound beside the events before it, not in their place', () => {
    const { box, drain } = congested(1000)
    for (let i = 0; i < 20; i++) box.publish(small(i))
    box.publish(large(20))
    expect(drain()).toEqual([
      [true, 'LAGGED', 18],
      [true, 'OUTPUT_CHUNK', 18],
      [true, 'OUTPUT_CHUNK', 19],
      [true, 'OUTPUT_CHUNK', 20],
    ])
  })

  it('drops an event larger than its byte bound once the events after it fill the bound', () => {
    const { box, drain } = congested(1000)
    for (let i = 0; i < 3; i++) box.publish(small(i))
    box.publish(large(3))
    box.publish(large(4))
    for (let i = 5; i < 8; i++) box.publish(small(i))
    expect(drain()).toEqual([
      [true, 'LAGGED', 6],
      [true, 'OUTPUT_CHUNK', 6],
      [true, 'OUTPUT_CHUNK', 7],
    ])
  })
})
