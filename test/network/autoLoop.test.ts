import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addNode, network, type NetworkEvent, setLimits, startNetwork } from 'nerve-agents'
import { MaxIterationsExceeded } from 'nerve-agents/network'
import { fakeClock } from 'nerve-agents/testing'

const lonely = (maxIterations: number) =>
  pipe(
    network('lonely'),
    addNode({
      id: 'coder',
      mode: 'auto',
      prompt: 'make done.flag',
      provider: { type: 'mock', script: ['one', 'two', 'three', 'four', 'five', 'six'] },
      acceptance: { command: 'test -f done.flag' },
    }),
    setLimits({ maxIterations, stallAfter: 10 }),
  )

describe('an auto node without edges', () => {
  it('ticks again after a failed acceptance check, until the check passes', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nerve-auto-'))
    const events: NetworkEvent[] = []
    const run = await startNetwork(lonely(10), {
      root,
      clock: fakeClock({ auto: true }),
      onEvent: (e) => {
        events.push(e)
        if (e.type === 'fired' && e.iteration === 2) writeFileSync(join(root, 'done.flag'), '')
      },
    })
    await run.idle()
    const out = await run.stop()
    expect(existsSync(join(root, 'done.flag'))).toBe(true)
    expect(events.flatMap((e) => (e.type === 'firing' ? [e.iteration] : []))).toEqual([1, 2, 3])
    expect(events.filter((e) => e.type === 'done')).toEqual([
      expect.objectContaining({ nodeId: 'coder', reason: 'acceptance passed' }),
    ])
    expect(out.status).toBe('done')
    const ticks = out.log.envelopes().filter((e) => e.kind === 'tick')
    expect(ticks).toHaveLength(2)
    expect(ticks[0]!.payload.message).toContain('verification: `test -f done.flag` exited 1')
  })

  it('halts with MaxIterationsExceeded when the check never passes', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nerve-auto-'))
    const events: NetworkEvent[] = []
    const run = await startNetwork(lonely(4), {
      root,
      clock: fakeClock({ auto: true }),
      onEvent: (e) => events.push(e),
    })
    await run.idle()
    const out = await run.stop()
    expect(events.filter((e) => e.type === 'firing')).toHaveLength(4)
    expect(out.status).toBe('halted')
    expect(out.halts[0]).toBeInstanceOf(MaxIterationsExceeded)
  })
})
