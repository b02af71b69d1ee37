import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addStep, chain, defaultInterpreters, fn, graph, run, type RunError } from 'nerve-agents'
import { type Interpreter, interpreters } from 'nerve-agents/core'
import { fakeClock, scripted, scriptedNode, succeed } from 'nerve-agents/testing'

const node = scriptedNode('m')
const withDefaults = (...more: Interpreter[]) =>
  interpreters(...defaultInterpreters.values(), ...more)

describe('cancellation', () => {
  it('settles promptly with Cancelled and the partial trace; running steps get the signal', async () => {
    const clock = fakeClock()
    const model = scripted({ clock, plan: { b: succeed('b', { delayMs: 1000 }) } })
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: fn('one', () => 1) }),
      addStep({ id: 'b', node }),
      addStep({ id: 'c', node: fn('two', () => 2) }),
      chain('a', 'b', 'c'),
    )
    const controller = new AbortController()
    const done = run(g, { interpreters: withDefaults(model), clock, signal: controller.signal })
    await clock.advance(1)
    controller.abort(new Error('user stop'))
    const error = (await done.catch((e: unknown) => e)) as RunError
    expect(error).toMatchObject({ _tag: 'Cancelled', path: [] })
    expect(error.trace?.status).toBe('cancelled')
    expect(error.trace?.records.map((v) => [v.data.stepId, v.data.status])).toEqual([
      ['a', 'completed'],
      ['b', 'cancelled'],
    ])
    expect(model.calls[0]!.outcome).toBe('aborted')
    expect(clock.now()).toBe(1)
  })

  it('does not start anything when the signal is already aborted', async () => {
    const model = scripted()
    const g = pipe(graph('g'), addStep({ id: 'a', node }))
    await expect(
      run(g, { interpreters: withDefaults(model), signal: AbortSignal.abort('no') }),
    ).rejects.toMatchObject({ _tag: 'Cancelled', reason: 'no' })
    expect(model.calls).toEqual([])
  })

  it("gives a step that reads its signal only after the run stopped one aborted with the run's error", async () => {
    let late: (() => void) | undefined
    let seen: { aborted: boolean; reason: unknown } | undefined
    const slow = fn('slow', async (ctx) => {
      await new Promise<void>((resolve) => (late = resolve))
      seen = { aborted: ctx.signal.aborted, reason: ctx.signal.reason }
      return 1
    })
    const broken = fn('broken', async () => {
      await Promise.resolve()
      throw new Error('down')
    })
    const g = pipe(graph('g'), addStep({ id: 'a', node: slow }), addStep({ id: 'b', node: broken }))
    const error = (await run(g, { interpreters: defaultInterpreters }).catch(
      (e: unknown) => e,
    )) as RunError
    expect(error).toMatchObject({ _tag: 'StepFailed', path: ['b'] })
    late!()
    await new Promise((resolve) => setImmediate(resolve))
    expect(seen).toEqual({ aborted: true, reason: error })
  })

  it('leaves the signal of a run that completed unaborted, read during or after it', async () => {
    const signals: AbortSignal[] = []
    const keep = fn('keep', (ctx) => {
      signals.push(ctx.signal)
      return 1
    })
    const g = pipe(graph('g'), addStep({ id: 'a', node: keep }))
    await run(g, { interpreters: defaultInterpreters })
    expect(signals[0]!.aborted).toBe(false)
  })

  it('tells a step of its cancellation without making its signal, once, and not after it took the listener back', async () => {
    const seen: string[] = []
    let signal: AbortSignal | undefined
    const watch = fn('watch', async (ctx) => {
      const c = ctx.cancellation!
      seen.push(`aborted ${String(c.aborted)}`)
      c.onAbort(() => seen.push('told'))
      const off = c.onAbort(() => seen.push('taken back'))
      off()
      await new Promise<void>((resolve) => c.onAbort(resolve))
      seen.push(`aborted ${String(c.aborted)}`)
      c.onAbort(() => seen.push('too late'))
      signal = c.signal
      return 1
    })
    const broken = fn('broken', async () => {
      await new Promise((resolve) => setImmediate(resolve))
      throw new Error('down')
    })
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: watch }),
      addStep({ id: 'b', node: broken }),
    )
    const error = await run(g, { interpreters: defaultInterpreters }).catch((e: unknown) => e)
    await new Promise((resolve) => setImmediate(resolve))
    expect(seen).toEqual(['aborted false', 'told', 'aborted true'])
    expect(signal).toMatchObject({ aborted: true, reason: error })
  })

  it('settles even when a running step ignores its signal', async () => {
    const deaf = fn('deaf', () => new Promise(() => undefined))
    const g = pipe(graph('g'), addStep({ id: 'a', node: deaf }))
    const controller = new AbortController()
    const done = run(g, { interpreters: defaultInterpreters, signal: controller.signal })
    controller.abort()
    await expect(done).rejects.toMatchObject({ _tag: 'Cancelled' })
  })
})

describe('budgets', () => {
  const three = pipe(
    graph('g'),
    addStep({ id: 'a', node }),
    addStep({ id: 'b', node }),
    addStep({ id: 'c', node }),
    chain('a', 'b', 'c'),
  )

  it('maxSteps stops the run before the step over the limit', async () => {
    const model = scripted()
    await expect(
      run(three, { interpreters: withDefaults(model), budget: { maxSteps: 2 } }),
    ).rejects.toMatchObject({
      _tag: 'BudgetExceeded',
      limit: 'maxSteps',
      max: 2,
      used: 3,
      path: ['c'],
    })
    expect(model.calls).toHaveLength(2)
  })

  it('maxTokens, maxApiCalls and maxCost stop the run as soon as reported usage goes over', async () => {
    const model = scripted({
      plan: { m: succeed('x', { usage: { tokens: 60, apiCalls: 1, cost: 2 } }) },
    })
    for (const [budget, limit] of [
      [{ maxTokens: 100 }, 'maxTokens'],
      [{ maxApiCalls: 1 }, 'maxApiCalls'],
      [{ maxCost: 3 }, 'maxCost'],
    ] as const) {
      await expect(run(three, { interpreters: withDefaults(model), budget })).rejects.toMatchObject(
        { _tag: 'BudgetExceeded', limit, path: ['b'] },
      )
    }
  })

  it('nested graphs count towards the budget of the run', async () => {
    const model = scripted({ plan: { m: succeed('x', { usage: { tokens: 10 } }) } })
    const inner = pipe(
      graph('inner'),
      addStep({ id: 'x', node }),
      addStep({ id: 'y', node }),
      chain('x', 'y'),
    )
    const g = pipe(graph('g'), addStep({ id: 'n', node: inner }))
    await expect(
      run(g, { interpreters: withDefaults(model), budget: { maxTokens: 5 } }),
    ).rejects.toMatchObject({ _tag: 'BudgetExceeded', limit: 'maxTokens', path: ['n', 'x'] })
  })

  it('maxTimeMs stops a run that goes on too long, by the clock', async () => {
    const clock = fakeClock({ auto: true })
    const model = scripted({ clock, delayMs: () => 40 })
    const error = (await run(three, {
      interpreters: withDefaults(model),
      clock,
      budget: { maxTimeMs: 100 },
    }).catch((e: unknown) => e)) as RunError
    expect(error).toMatchObject({ _tag: 'BudgetExceeded', limit: 'maxTimeMs', max: 100 })
    expect(clock.now()).toBe(100)
    expect(error.trace?.records.map((v) => v.data.status)).toEqual([
      'completed',
      'completed',
      'cancelled',
    ])
  })
})
