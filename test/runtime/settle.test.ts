import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  addStepRef,
  defaultInterpreters,
  fallback,
  fn,
  graph,
  interpreters,
  retry,
  run,
  systemClock,
  type Interpreter,
  type NodeContext,
  type NodeRegistry,
  type RunEvent,
} from 'nerve'
import { fakeClock, scriptedNode } from 'nerve/testing'

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const boom = fn('boom', () => {
  throw new Error('boom')
})

/** A node that fails after `ms` of real time. */
const failsLater = (ms: number) =>
  fn('fails-later', async () => {
    await sleep(ms)
    throw new Error('late')
  })

const reader = fn('reader', (ctx) => ctx.resolveLinks('refs'))

describe('a run settles once', () => {
  for (const [name, policy] of [
    ['fallback', (n: Parameters<typeof fallback>[0]) => fallback(n)],
    [
      'retry with zero retries, then fallback',
      (n: Parameters<typeof fallback>[0]) => retry({ count: 0, then: fallback(n) }),
    ],
  ] as const) {
    it(`starts no ${name} node once the run has failed`, async () => {
      let started = 0
      const spare = fn('spare', () => {
        started++
        return 'spare'
      })
      const g = pipe(
        graph('g'),
        addStep({ id: 'late', node: failsLater(5), onError: policy(spare) }),
        addStep({ id: 'boom', node: boom }),
      )
      await expect(run(g, { interpreters: defaultInterpreters })).rejects.toMatchObject({
        _tag: 'StepFailed',
        stepId: 'boom',
      })
      await sleep(20)
      expect(started).toBe(0)
    })
  }

  it('delivers no event to onEvent after graph_completed, whatever in-flight steps do', async () => {
    const events: RunEvent[] = []
    const g = pipe(
      graph('g'),
      addStep({ id: 'late', node: failsLater(5) }),
      addStep({
        id: 'slow',
        node: fn('slow', async (ctx) => {
          await sleep(5)
          ctx.emit('chunk')
          ctx.reportUsage({ tokens: 1 })
          return 1
        }),
      }),
      addStep({ id: 'boom', node: boom }),
    )
    await expect(
      run(g, { interpreters: defaultInterpreters, onEvent: (e) => events.push(e) }),
    ).rejects.toMatchObject({ stepId: 'boom' })
    await sleep(20)
    expect(events.at(-1)).toMatchObject({ type: 'graph_completed', path: [], status: 'failed' })
    expect(events.filter((e) => e.type === 'graph_completed')).toHaveLength(1)
  })

  it('reports two running steps that link to each other as a LinkCycle', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: reader, links: { refs: ['b'] } }),
      addStep({ id: 'b', node: reader, links: { refs: ['a'] } }),
    )
    await expect(run(g, { interpreters: defaultInterpreters })).rejects.toMatchObject({
      _tag: 'StepFailed',
      stepId: 'b',
      cause: { _tag: 'LinkCycle', cycle: ['b', 'a', 'b'] },
    })
  })

  it('reports a ring of links a → b → c → a as a LinkCycle', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: reader, links: { refs: ['b'] } }),
      addStep({ id: 'b', node: reader, links: { refs: ['c'] } }),
      addStep({ id: 'c', node: reader, links: { refs: ['a'] } }),
    )
    await expect(run(g, { interpreters: defaultInterpreters })).rejects.toMatchObject({
      cause: { _tag: 'LinkCycle', cycle: ['c', 'a', 'b', 'c'] },
    })
  })

  it('reports x links y, y depends on z, z links x as a LinkCycle', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'x', node: reader, links: { refs: ['y'] } }),
      addStep({ id: 'z', node: reader, links: { refs: ['x'] } }),
      addStep({ id: 'y', node: fn('one', () => 1), dependsOn: ['z'] }),
    )
    await expect(run(g, { interpreters: defaultInterpreters })).rejects.toMatchObject({
      cause: { _tag: 'LinkCycle', cycle: ['z', 'x', 'y', 'z'] },
    })
  })

  it('does not starve the pool at maxParallel 1 when a step waits on a later step', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'r', node: reader, links: { refs: ['a'] } }),
      addStep({ id: 'a', node: fn('later', () => Promise.resolve('A')) }),
    )
    const r = await run(g, { interpreters: defaultInterpreters, maxParallel: 1 })
    expect(r.results.r).toEqual(['A'])
  })

  it('never runs more than maxParallel steps at once while a step waits on a link', async () => {
    let running = 0
    let most = 0
    const busy = (value: string) =>
      fn(`busy-${value}`, async () => {
        running++
        most = Math.max(most, running)
        await sleep(2)
        running--
        return value
      })
    const waiting = fn('waiting', async (ctx) => {
      running++
      most = Math.max(most, running)
      running-- // not running while it waits
      const got = await ctx.resolveLinks('refs')
      running++
      most = Math.max(most, running)
      await sleep(2)
      running--
      return got
    })
    const g = pipe(
      graph('g'),
      addStep({ id: 'r', node: waiting, links: { refs: ['a'] } }),
      addStep({ id: 'a', node: busy('A') }),
      addStep({ id: 'b', node: busy('B') }),
      addStep({ id: 'c', node: busy('C') }),
    )
    const r = await run(g, { interpreters: defaultInterpreters, maxParallel: 1 })
    expect(r.results.r).toEqual(['A'])
    expect(most).toBe(1)
  })

  it('puts usage reported by materialize after its step completed in the trace', async () => {
    const docs: Interpreter = {
      kind: 'doc',
      execute: (_node, ctx) => {
        ctx.reportUsage({ tokens: 5 })
        return ctx.input
      },
      materialize: (_node, output, ctx) => {
        ctx.reportUsage({ tokens: 10 })
        return output
      },
    }
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: scriptedNode('doc', 'doc'), input: 'A' }),
      addStep({ id: 'r', node: reader, dependsOn: ['a'], links: { refs: ['a'] } }),
    )
    const r = await run(g, { interpreters: interpreters(...defaultInterpreters.values(), docs) })
    const traced = r.trace.records.reduce((sum, v) => sum + v.data.tokens, 0)
    expect(r.metrics.usage.tokens).toBe(15)
    expect(traced).toBe(15)
  })
})

describe('{timestamp} in node refs', () => {
  /** A session that makes a node for any name, and remembers the names asked. */
  const seen = (): { session: NodeRegistry; asked: string[] } => {
    const asked: string[] = []
    const session: NodeRegistry = {
      get: (name) => {
        asked.push(name)
        return fn(name, () => name)
      },
    }
    return { session, asked }
  }

  it('is the run start in whole epoch milliseconds on the real clock', async () => {
    const { session, asked } = seen()
    const g = pipe(graph('g'), addStepRef('a', 'n-{timestamp}'))
    const before = Date.now()
    let startedAt = -1
    const probe = fn('probe', (ctx: NodeContext) => (startedAt = ctx.runStartedAt))
    const g2 = pipe(g, addStep({ id: 'p', node: probe }))
    await run(g2, { interpreters: defaultInterpreters, session, clock: systemClock })
    const stamp = Number(/^n-(\d+)$/.exec(asked[0]!)?.[1])
    expect(Number.isInteger(stamp)).toBe(true)
    expect(stamp).toBeGreaterThanOrEqual(before - 1)
    expect(startedAt).toBe(stamp)
  })

  it('is whole milliseconds on a clock that reads fractions', async () => {
    const { session, asked } = seen()
    const g = pipe(graph('g'), addStepRef('a', 'n-{timestamp}'))
    await run(g, {
      interpreters: defaultInterpreters,
      session,
      clock: fakeClock({ start: 1234.75 }),
    })
    expect(asked).toEqual(['n-1234'])
  })
})
