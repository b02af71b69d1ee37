import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  fallback,
  fn,
  graph,
  retry,
  run,
  type RunEvent,
  skip,
} from 'nerve-agents'
import { type Interpreter, interpreters } from 'nerve-agents/core'
import { failure, fakeClock, scripted, scriptedNode, succeed } from 'nerve-agents/testing'

const node = scriptedNode('m')
const withDefaults = (...more: Interpreter[]) =>
  interpreters(...defaultInterpreters.values(), ...more)

describe('retry', () => {
  it('waits delayMs · backoff^(n − 1), capped, between attempts, by the clock', async () => {
    const clock = fakeClock({ auto: true })
    const model = scripted({
      clock,
      plan: { a: [failure('1'), failure('2'), failure('3'), succeed('ok')] },
    })
    const g = pipe(
      graph('g'),
      addStep({
        id: 'a',
        node,
        onError: retry({ count: 3, delayMs: 100, backoff: 2, maxDelayMs: 300 }),
      }),
    )
    const starts: number[] = []
    const r = await run(g, {
      interpreters: withDefaults(model),
      clock,
      onEvent: (e) => {
        if (e.type === 'step_start') starts.push(e.time)
      },
    })
    expect(r.results.a).toBe('ok')
    expect(starts).toEqual([0, 100, 300, 600])
    expect(r.trace.records[0]!.data.attempts).toBe(4)
    expect(r.metrics.retries).toBe(3)
  })

  it('shortens each wait by jitter times the injected random number', async () => {
    const clock = fakeClock({ auto: true })
    const model = scripted({ clock, plan: { a: [failure('1'), succeed('ok')] } })
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node, onError: retry({ count: 1, delayMs: 100, jitter: 0.5 }) }),
    )
    const r = await run(g, { interpreters: withDefaults(model), clock, random: () => 0.5 })
    expect(r.trace.records[0]!.data.end).toBe(75)
  })

  it('then fails with the last error when every attempt fails', async () => {
    const model = scripted({ plan: { a: [failure('first'), failure('last')] } })
    const g = pipe(graph('g'), addStep({ id: 'a', node, onError: retry({ count: 1 }) }))
    const events: RunEvent[] = []
    await expect(
      run(g, { interpreters: withDefaults(model), onEvent: (e) => events.push(e) }),
    ).rejects.toMatchObject({ _tag: 'StepFailed', attempts: 2, message: 'step "a" failed: last' })
    expect(events.filter((e) => e.type === 'step_error').map((e) => [e.attempt, e.final])).toEqual([
      [1, false],
      [2, true],
    ])
  })

  it('then skips or falls back as its then policy says', async () => {
    const model = scripted({ plan: { a: failure('no'), b: failure('no') } })
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node, onError: retry({ count: 2, then: skip('default') }) }),
      addStep({
        id: 'b',
        node,
        onError: retry({ count: 1, then: fallback(fn('backup', () => 'B')) }),
      }),
    )
    const r = await run(g, { interpreters: withDefaults(model) })
    expect(r.results).toEqual({ a: 'default', b: 'B' })
    expect(r.trace.records.map((v) => [v.data.status, v.data.attempts, v.data.nodeId])).toEqual([
      ['skipped', 3, 'm'],
      ['fallback', 3, 'backup'],
    ])
  })
})

describe('skip and fallback', () => {
  it('skip gives the value to the dependents', async () => {
    const model = scripted({ plan: { a: failure('no') } })
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node, onError: skip(0) }),
      addStep({ id: 'b', node: fn('next', (ctx) => Number(ctx.upstream.a) + 1), dependsOn: ['a'] }),
    )
    const r = await run(g, { interpreters: withDefaults(model) })
    expect(r.results).toEqual({ a: 0, b: 1 })
    expect(r.trace.records[0]!.data.error).toBeInstanceOf(Error)
  })

  it('fallback runs the other node on the same input and upstream', async () => {
    const model = scripted({ plan: { b: failure('no') } })
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: fn('one', () => 1) }),
      addStep({
        id: 'b',
        node,
        input: 10,
        dependsOn: ['a'],
        onError: fallback(fn('alt', (ctx) => Number(ctx.input) + Number(ctx.upstream.a))),
      }),
    )
    expect((await run(g, { interpreters: withDefaults(model) })).results.b).toBe(11)
  })

  it('a failing fallback fails the step with its error', async () => {
    const model = scripted({ plan: { a: failure('first') } })
    const broken = fn('broken', () => {
      throw new Error('second')
    })
    const g = pipe(graph('g'), addStep({ id: 'a', node, onError: fallback(broken) }))
    await expect(run(g, { interpreters: withDefaults(model) })).rejects.toMatchObject({
      _tag: 'StepFailed',
      cause: new Error('second'),
    })
  })
})

describe('timeouts', () => {
  it('abort the attempt signal and fail the attempt, then the policy applies', async () => {
    const clock = fakeClock({ auto: true })
    const model = scripted({
      clock,
      plan: { a: [succeed('late', { delayMs: 500 }), succeed('quick', { delayMs: 10 })] },
    })
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node, timeoutMs: 100, onError: retry({ count: 1 }) }),
    )
    const r = await run(g, { interpreters: withDefaults(model), clock })
    expect(r.results.a).toBe('quick')
    expect(model.calls.map((c) => c.outcome)).toEqual(['aborted', 'value'])
    expect(r.trace.records[0]!.data.end).toBe(110)
  })

  it('fail the step with a StepTimeout cause even if the work ignores the signal', async () => {
    const clock = fakeClock({ auto: true })
    const deaf = fn('deaf', () => new Promise(() => undefined))
    const g = pipe(graph('g'), addStep({ id: 'a', node: deaf, timeoutMs: 50 }))
    const error = await run(g, { interpreters: defaultInterpreters, clock }).catch(
      (e: unknown) => e,
    )
    expect(error).toMatchObject({
      _tag: 'StepFailed',
      cause: { _tag: 'StepTimeout', timeoutMs: 50 },
    })
  })
})

describe('a step that fails for good', () => {
  it('stops the run: dependents do not run, nothing new starts, in-flight steps are cancelled', async () => {
    const clock = fakeClock()
    const model = scripted({
      clock,
      plan: { bad: failure('boom', { delayMs: 10 }), slow: succeed('s', { delayMs: 100 }) },
    })
    const g = pipe(
      graph('g', { maxParallel: 2 }),
      addStep({ id: 'bad', node }),
      addStep({ id: 'slow', node }),
      addStep({ id: 'later', node }),
      addStep({ id: 'after', node, dependsOn: ['bad'] }),
    )
    const done = run(g, { interpreters: withDefaults(model), clock }).catch((e: unknown) => e)
    await clock.advance(10)
    const error = (await done) as {
      _tag: string
      stepId: string
      trace: { records: { data: { stepId: string; status: string } }[] }
    }
    expect(error).toMatchObject({ _tag: 'StepFailed', stepId: 'bad' })
    expect(error.trace.records.map((v) => [v.data.stepId, v.data.status])).toEqual([
      ['bad', 'failed'],
      ['slow', 'cancelled'],
    ])
    expect(model.calls.map((c) => `${c.path.join('/')} ${c.outcome}`)).toEqual([
      'bad failure',
      'slow aborted',
    ])
  })

  it('inside a nested graph fails the step running that graph, whose policy applies', async () => {
    const model = scripted({ plan: { 'n/x': failure('inner boom') } })
    const inner = pipe(graph('inner'), addStep({ id: 'x', node }))
    const g = pipe(graph('g'), addStep({ id: 'n', node: inner, onError: skip('recovered') }))
    const r = await run(g, { interpreters: withDefaults(model) })
    expect(r.results.n).toBe('recovered')
    expect(r.trace.records[0]!.data.error).toMatchObject({ _tag: 'StepFailed', path: ['n', 'x'] })
    expect(r.trace.records[0]!.data.nested?.status).toBe('failed')
  })

  it('fails at once when its inputFn throws', async () => {
    const g = pipe(
      graph('g'),
      addStep({
        id: 'a',
        node: fn('one', () => 1),
        inputFn: () => {
          throw new Error('bad input')
        },
      }),
    )
    await expect(run(g, { interpreters: defaultInterpreters })).rejects.toMatchObject({
      _tag: 'StepFailed',
      attempts: 0,
    })
  })
})
