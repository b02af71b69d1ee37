import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addStep, fn, graph, retry, run, type RunEvent } from 'nerve-agents'
import { interpreters } from 'nerve-agents/core'
import { failure, fakeClock, scripted, scriptedNode, succeed } from 'nerve-agents/testing'

describe('scripted', () => {
  it('plays the outcomes planned for each attempt, the last one repeating', async () => {
    const model = scripted({ plan: { m: [failure('1'), failure('2')] } })
    const g = pipe(
      graph('g'),
      addStep({ id: 'x', node: scriptedNode('m'), onError: retry({ count: 3 }) }),
    )
    await expect(run(g, { interpreters: interpreters(model) })).rejects.toThrow('2')
    expect(model.calls.map((c) => [c.attempt, c.outcome])).toEqual([
      [1, 'failure'],
      [2, 'failure'],
      [3, 'failure'],
      [4, 'failure'],
    ])
  })

  it('prefers a plan by step path to one by node id', async () => {
    const model = scripted({ plan: { m: succeed('by node'), y: succeed('by step') } })
    const g = pipe(
      graph('g'),
      addStep({ id: 'x', node: scriptedNode('m') }),
      addStep({ id: 'y', node: scriptedNode('m') }),
    )
    const r = await run(g, { interpreters: interpreters(model) })
    expect(r.results).toEqual({ x: 'by node', y: 'by step' })
  })

  it('emits chunks, reports usage and waits on the clock', async () => {
    const clock = fakeClock({ auto: true })
    const model = scripted({
      clock,
      plan: { x: succeed('v', { delayMs: 30, chunks: ['a', 'b'], usage: { tokens: 4 } }) },
    })
    const g = pipe(graph('g'), addStep({ id: 'x', node: scriptedNode('m') }))
    const chunks: unknown[] = []
    const r = await run(g, {
      interpreters: interpreters(model),
      clock,
      onEvent: (e: RunEvent) => {
        if (e.type === 'step_chunk') chunks.push(e.chunk)
      },
    })
    expect(chunks).toEqual(['a', 'b'])
    expect(r.metrics.usage.tokens).toBe(4)
    expect(clock.now()).toBe(30)
    expect(model.calls[0]).toMatchObject({ start: 0, end: 1, outcome: 'value' })
  })

  it('runs function nodes as their function when nothing is planned', async () => {
    const model = scripted({ kind: 'function' })
    const g = pipe(graph('g'), addStep({ id: 'x', node: fn('two', () => 2) }))
    expect((await run(g, { interpreters: interpreters(model) })).results.x).toBe(2)
  })

  it('refuses to wait without a clock', async () => {
    const model = scripted({ delayMs: () => 5 })
    const g = pipe(graph('g'), addStep({ id: 'x', node: scriptedNode('m') }))
    await expect(run(g, { interpreters: interpreters(model) })).rejects.toMatchObject({
      cause: { _tag: 'UsageError' },
    })
  })
})
