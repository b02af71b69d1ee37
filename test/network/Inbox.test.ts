import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type Envelope, UsageError } from 'nerve-agents'
import { Inbox } from 'nerve-agents/network'
import { fakeClock } from 'nerve-agents/testing'

const env = (n: number): Envelope => ({
  id: `e${n}`,
  kind: 'message',
  fromNodeId: 'a',
  toNodeId: 'b',
  payload: { message: String(n) },
  time: n,
})

/** Pushes and takes, interleaved by the generated plan: true pushes the next envelope, false takes one. */
const plan = fc.array(fc.boolean(), { maxLength: 60 })

describe('queue delivery', () => {
  it('law: delivers every envelope exactly once, in order', () => {
    fc.assert(
      fc.property(plan, (steps) => {
        const inbox = new Inbox({ type: 'queue' }, fakeClock(), () => undefined)
        const taken: Envelope[] = []
        let n = 0
        for (const push of steps) {
          if (push) inbox.push(env(n++))
          else {
            const e = inbox.take()
            if (e !== undefined) taken.push(e)
          }
        }
        for (let e = inbox.take(); e !== undefined; e = inbox.take()) taken.push(e)
        expect(taken.map((e) => e.id)).toEqual(Array.from({ length: n }, (_, i) => `e${i}`))
        expect(inbox.dropped).toBe(0)
        expect(inbox.delivered).toBe(n)
      }),
    )
  })
})

describe('latest delivery', () => {
  it('law: each take gives the newest envelope pushed since the last take; the rest are counted dropped', () => {
    fc.assert(
      fc.property(plan, (steps) => {
        const inbox = new Inbox({ type: 'latest' }, fakeClock(), () => undefined)
        let n = 0
        let newest: number | undefined
        let taken = 0
        for (const push of steps) {
          if (push) inbox.push(env((newest = n++)))
          else {
            const e = inbox.take()
            expect(e?.id).toBe(newest === undefined ? undefined : `e${newest}`)
            if (e !== undefined) taken++
            newest = undefined
          }
        }
        if (inbox.take() !== undefined) taken++
        expect(taken + inbox.dropped).toBe(n)
      }),
    )
  })
})

describe('debounce delivery', () => {
  it('law: never delivers inside a quiet period, and then delivers the newest', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 80 }), { minLength: 1, maxLength: 15 }),
        async (ms, gaps) => {
          const clock = fakeClock()
          /** Pushes and releases in the order they happened: [time, id, pushed]. */
          const events: [number, string, boolean][] = []
          const inbox: Inbox = new Inbox({ type: 'debounce', ms }, clock, () => {
            events.push([clock.now(), inbox.take()!.id, false])
          })
          let n = 0
          for (const gap of gaps) {
            await clock.advance(gap)
            events.push([clock.now(), `e${n}`, true])
            inbox.push(env(n++))
          }
          await clock.advance(ms)
          const releases = events.filter(([, , pushed]) => !pushed)
          events.forEach(([at, id, pushed], i) => {
            if (pushed) return
            const last = events
              .slice(0, i)
              .filter(([, , p]) => p)
              .at(-1)!
            expect(at - last[0]).toBeGreaterThanOrEqual(ms)
            expect(id).toBe(last[1])
          })
          expect(releases.at(-1)![1]).toBe(`e${n - 1}`)
          expect(releases.length + inbox.dropped).toBe(n)
        },
      ),
      { numRuns: 60 },
    )
  })
})

describe('an inbox', () => {
  it('keeps what waits when its delivery changes', () => {
    const inbox = new Inbox({ type: 'queue' }, fakeClock(), () => undefined)
    inbox.push(env(1))
    inbox.push(env(2))
    inbox.setDelivery({ type: 'latest' })
    expect(inbox.take()?.id).toBe('e2')
    expect(inbox.dropped).toBe(1)
  })

  it('refuses pushes once closed, and still hands out what it holds', () => {
    const inbox = new Inbox({ type: 'queue' }, fakeClock(), () => undefined)
    inbox.push(env(1))
    inbox.close()
    expect(() => {
      inbox.push(env(2))
    }).toThrow(UsageError)
    expect(inbox.take()?.id).toBe('e1')
  })
})
