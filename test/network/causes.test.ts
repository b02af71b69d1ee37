import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addNode, connect, network, startNetwork } from 'nerve-agents'
import { fakeClock } from 'nerve-agents/testing'

const root = mkdtempSync(join(tmpdir(), 'nerve-causes-'))
const mock = (...script: string[]) => ({ type: 'mock' as const, script })

describe('the envelope DAG of a run', () => {
  it('has one root, the first message, even when a node is triggered by hand later', async () => {
    const net = pipe(
      network('plan'),
      addNode({ id: 'planner', provider: mock('a plan', 'hand it over') }),
      addNode({ id: 'coder', provider: mock('DONE') }),
      connect('planner', 'coder', { direction: 'one-way' }),
    )
    const run = await startNetwork(net, { root, clock: fakeClock({ auto: true }) })
    run.send('planner', 'Plan an add function')
    await run.idle()
    run.trigger('planner', 'Now hand the plan to the coder.')
    await run.idle()
    const { log } = await run.stop()
    const envelopes = log.vertices().map((v) => v.data)
    const roots = envelopes.filter((e) => (e.causedBy ?? []).length === 0)
    expect(roots.map((e) => [e.fromNodeId, e.toNodeId, e.payload.message])).toEqual([
      ['user', 'planner', 'Plan an add function'],
    ])
    // the second hand-off, made by the trigger, follows from what the planner last said
    const second = envelopes.find((e) => e.payload.message === 'hand it over')!
    expect(second.causedBy).toEqual([envelopes.find((e) => e.payload.message === 'a plan')!.id])
  })
})
