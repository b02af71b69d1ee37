import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  addStepRef,
  defaultInterpreters,
  fallback,
  fn,
  graph,
  retry,
  run,
  type RunEvent,
  skip,
} from 'nerve-agents'
import {
  type Interpreter,
  interpreters,
  type NodeContext,
  type NodeRegistry,
} from 'nerve-agents/core'
import { systemClock, traceUsage } from 'nerve-agents/runtime'
import { fakeClock, scriptedNode } from 'nerve-agents/testing'

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

/** What one step of a random graph does. */
interface Plan {
  readonly delay: number
  /** Its first `fails` attempts fail. */
  readonly fails: number
  readonly tokens: number
  readonly links: readonly number[]
  readonly deps: readonly number[]
  readonly policy: number
}

const plan = (n: number): fc.Arbitrary<readonly Plan[]> =>
  fc.tuple(
    ...Array.from({ length: n }, (_, i) =>
      fc.record({
        delay: fc.integer({ min: 0, max: 3 }),
        fails: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 })),
        tokens: fc.integer({ min: 0, max: 3 }),
        links: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 2 }),
        deps: i === 0 ? fc.constant([]) : fc.uniqueArray(fc.nat(i - 1), { maxLength: 2 }),
        policy: fc.nat(7),
      }),
    ),
  )

const spare = scriptedNode('spare', 'work')
const policies = [
  undefined,
  skip('skipped'),
  fallback(spare),
  retry({ count: 0, then: fallback(spare) }),
  retry({ count: 1 }),
  retry({ count: 2, delayMs: 1, then: skip('gave up') }),
  retry({ count: 1, delayMs: 2, then: fallback(spare) }),
  undefined,
] as const

describe('a run settles once (law)', () => {
  it('over random graphs with failing, slow, fallback and linking steps, under every policy and maxParallel', async () => {
    const arbitrary = fc
      .integer({ min: 1, max: 7 })
      .chain((n) =>
        fc.tuple(plan(n), fc.constantFrom(1, 2, 3, Infinity), fc.integer({ min: 0, max: 3 })),
      )
    await fc.assert(
      fc.asyncProperty(arbitrary, async ([plans, maxParallel, offset]) => {
        const clock = fakeClock({ auto: true, start: offset + 0.5 })
        const links = plans.map((p, i) => p.links.filter((t) => t !== i).map((t) => `s${t}`))
        const problems: string[] = []
        let settled = false
        let active = 0
        const interpreter: Interpreter = {
          kind: 'work',
          async execute(node, ctx) {
            if (settled) problems.push(`${node.id} started at ${ctx.stepId} after the run settled`)
            const p = plans[Number(ctx.stepId.slice(1))]!
            active++
            if (active > maxParallel)
              problems.push(`${active} running at maxParallel ${maxParallel}`)
            try {
              if (p.tokens > 0) ctx.reportUsage({ tokens: p.tokens })
              if (node.id === 'spare') return 'spare'
              if (links[Number(ctx.stepId.slice(1))]!.length > 0) {
                active--
                try {
                  await ctx.resolveLinks('refs')
                } finally {
                  active++
                  if (active > maxParallel) problems.push(`${active} running after a link wait`)
                }
              }
              await clock.sleep(p.delay, ctx.signal)
              if (ctx.attempt <= p.fails) throw new Error(`planned failure of ${ctx.stepId}`)
              return ctx.stepId
            } finally {
              active--
            }
          },
          materialize(_node, output, ctx) {
            if (settled) problems.push(`materialized ${ctx.stepId} after the run settled`)
            ctx.reportUsage({ tokens: 1 })
            return output
          },
        }
        let g = graph('random')
        plans.forEach((p, i) => {
          const policy = policies[p.policy]
          g = addStep({
            id: `s${i}`,
            node: scriptedNode(`w${i}`, 'work'),
            dependsOn: p.deps.map((d) => `s${d}`),
            ...(links[i]!.length > 0 && { links: { refs: links[i]! } }),
            ...(policy !== undefined && { onError: policy }),
          })(g)
        })
        const events: RunEvent[] = []
        const outcome = run(g, {
          interpreters: interpreters(...defaultInterpreters.values(), interpreter),
          clock,
          maxParallel,
          onEvent: (e) => {
            if (settled) problems.push(`${e.type} after graph_completed`)
            events.push(e)
            if (e.type === 'graph_completed' && e.path.length === 0) settled = true
          },
        }).then(
          (r) => ({ ok: true as const, r }),
          (error: unknown) => ({ ok: false as const, error }),
        )
        let timer: NodeJS.Timeout | undefined
        const hang = new Promise<'hang'>((resolve) => {
          timer = setTimeout(() => {
            resolve('hang')
          }, 10_000)
        })
        const ended = await Promise.race([outcome, hang])
        clearTimeout(timer)
        expect(ended).not.toBe('hang')
        if (ended === 'hang') return
        // Let abandoned steps finish what they do after the run settled.
        for (let k = 0; k < 10; k++) await clock.advance(5)
        expect(problems).toEqual([])
        expect(settled).toBe(true)
        expect(events.at(-1)).toMatchObject({ type: 'graph_completed', path: [] })
        if (ended.ok) {
          expect(traceUsage(ended.r.trace)).toEqual(ended.r.metrics.usage)
        } else {
          expect(ended.error).toMatchObject({ _tag: 'StepFailed' })
          const cause = (ended.error as { cause?: { _tag?: string } }).cause
          if (cause?._tag !== undefined) expect(cause._tag).toBe('LinkCycle')
        }
      }),
      { numRuns: 1000 },
    )
  })
})
