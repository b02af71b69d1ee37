import { describe, expect, it } from 'vitest'
import { UsageError } from 'nerve-agents'
import { fakeClock } from 'nerve-agents/testing'

describe('fakeClock', () => {
  it('wakes sleepers in time order as time advances, and not before', async () => {
    const clock = fakeClock({ start: 100 })
    const woke: string[] = []
    void clock.sleep(20).then(() => woke.push(`b@${clock.now()}`))
    void clock.sleep(10).then(() => woke.push(`a@${clock.now()}`))
    await clock.advance(15)
    expect(woke).toEqual(['a@110'])
    await clock.advance(100)
    expect(woke).toEqual(['a@110', 'b@120'])
    expect(clock.now()).toBe(215)
  })

  it('wakes sleeps started by woken work within the same advance', async () => {
    const clock = fakeClock()
    let done = false
    void clock
      .sleep(10)
      .then(() => clock.sleep(10))
      .then(() => (done = true))
    await clock.advance(20)
    expect(done).toBe(true)
  })

  it('rejects a sleep with the reason when its signal aborts, and forgets it', async () => {
    const clock = fakeClock()
    const controller = new AbortController()
    const sleeping = clock.sleep(10, controller.signal)
    expect(clock.pending).toBe(1)
    controller.abort(new Error('stop'))
    await expect(sleeping).rejects.toThrow('stop')
    expect(clock.pending).toBe(0)
  })

  it('jumps to the next wake-up by itself in auto mode', async () => {
    const clock = fakeClock({ auto: true })
    await clock.sleep(1000)
    await clock.sleep(500)
    expect(clock.now()).toBe(1500)
  })

  it('refuses negative times', async () => {
    const clock = fakeClock()
    await expect(clock.advance(-1)).rejects.toThrow(UsageError)
    await expect(clock.sleep(-1)).rejects.toThrow(UsageError)
    expect(() => fakeClock({ start: Number.NaN })).toThrow(/options\.start/)
  })
})
