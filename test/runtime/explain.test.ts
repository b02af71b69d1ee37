import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  fn,
  graph,
  retry,
  run,
  type RunError,
  skip,
} from 'nerve-agents'
import { interpreters } from 'nerve-agents/core'
import { explain } from 'nerve-agents/runtime'
import { failure, fakeClock, scripted, scriptedNode, succeed } from 'nerve-agents/testing'

describe('explain', () => {
  it('prints one line per step, nested graphs indented, with policies and errors', async () => {
    const clock = fakeClock({ auto: true })
    const model = scripted({
      clock,
      plan: {
        flaky: [failure('busy'), succeed('ok', { delayMs: 2, usage: { tokens: 12 } })],
        'review/draft': succeed('d', { delayMs: 3 }),
        optional: failure('down'),
      },
    })
    const review = pipe(graph('review'), addStep({ id: 'draft', node: scriptedNode('writer') }))
    const g = pipe(
      graph('demo'),
      addStep({ id: 'fetch', node: fn('fetch', () => 'page') }),
      addStep({
        id: 'flaky',
        node: scriptedNode('api'),
        onError: retry({ count: 2, delayMs: 10 }),
      }),
      addStep({ id: 'review', node: review, dependsOn: ['fetch', 'flaky'] }),
      addStep({ id: 'optional', node: scriptedNode('extra'), onError: skip(null) }),
    )
    const { trace } = await run(g, {
      interpreters: interpreters(...defaultInterpreters.values(), model),
      clock,
      runId: 'r1',
    })
    expect(explain(trace).split('\n')).toEqual([
      'graph "demo" completed in 15 ms — 5 steps, 1 retry, 1 recovered by policy (run r1)',
      '  ✓ fetch     function:fetch  0.0 ms',
      '  ✓ flaky     scripted:api  12 ms  2 attempts  12 tokens',
      '  ✓ review    graph:review  3.0 ms  after fetch, flaky',
      '      ✓ draft  scripted:writer  3.0 ms',
      '  ↷ optional  scripted:extra  skipped after 0.0 ms  error: down',
    ])
  })

  it('marks failed and cancelled steps', async () => {
    const clock = fakeClock()
    const model = scripted({
      clock,
      plan: { bad: failure('boom', { delayMs: 1 }), slow: succeed(1, { delayMs: 9 }) },
    })
    const g = pipe(
      graph('g'),
      addStep({ id: 'bad', node: scriptedNode('m') }),
      addStep({ id: 'slow', node: scriptedNode('m') }),
    )
    const done = run(g, { interpreters: interpreters(model), clock, runId: 'r2' }).then(
      () => undefined,
      (e: unknown) => (e as RunError).trace,
    )
    await clock.advance(1)
    const trace = await done
    expect(trace).toBeDefined()
    const text = explain(trace!)
    expect(text).toContain('graph "g" failed in 1.0 ms')
    expect(text).toContain('✗ bad   scripted:m  failed after 1.0 ms  error: boom')
    expect(text).toContain('⊘ slow  scripted:m  cancelled after 1.0 ms')
  })
})
