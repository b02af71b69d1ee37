import { describe, expect, it } from 'vitest'
import { defaultInterpreters, fn, type RunEvent } from '../../src/index.js'
import { BudgetExceeded, Cancelled, MissingInterpreter } from '../../src/runtime/index.js'
import { runNode } from '../../src/runtime/runNode.js'
import { fakeClock } from '../../src/testing/index.js'

const opts = { interpreters: defaultInterpreters, clock: fakeClock({ start: 0 }), runId: 'r' }

describe('runNode', () => {
  it("answers the node's result, with the events of a graph named after the step", async () => {
    const seen: RunEvent[] = []
    const out = await runNode(
      fn('double', (ctx) => Number(ctx.input) * 2),
      'd',
      {
        ...opts,
        input: 21,
        onEvent: (e) => seen.push(e),
      },
    )
    expect(out).toBe(42)
    expect(seen.map((e) => e.type)).toEqual([
      'graph_started',
      'step_start',
      'step_complete',
      'graph_completed',
    ])
    expect(seen[0]).toMatchObject({ graphId: 'd', path: [] })
    expect(seen[1]).toMatchObject({ stepId: 'd', path: ['d'], nodeId: 'double' })
  })

  it("rejects with the node's own error, not the runtime's StepFailed", async () => {
    const boom = new Error('boom')
    await expect(
      runNode(
        fn('bad', () => {
          throw boom
        }),
        'bad',
        opts,
      ),
    ).rejects.toBe(boom)
  })

  it("rejects with the run's own errors as they are", async () => {
    const never = fn('never', () => new Promise(() => undefined))
    await expect(
      runNode(never, 'n', { ...opts, signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(Cancelled)
    await expect(
      runNode(
        fn('one', () => 1),
        'o',
        { ...opts, budget: { maxSteps: 0 } },
      ),
    ).rejects.toBeInstanceOf(BudgetExceeded)
    await expect(runNode({ ...fn('x', () => 1), kind: 'nope' }, 'x', opts)).rejects.toBeInstanceOf(
      MissingInterpreter,
    )
  })

  it('runs the same node under two names as two different steps', async () => {
    const node = fn('same', (ctx) => ctx.stepId)
    expect(await runNode(node, 'a', opts)).toBe('a')
    expect(await runNode(node, 'b', opts)).toBe('b')
    expect(await runNode(node, 'a', opts)).toBe('a')
  })
})
