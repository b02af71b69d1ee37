import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  fallback,
  fn,
  type Graph,
  graph as emptyGraph,
  retry,
  run,
  skip,
} from 'nerve-agents'
import { compile, type CompiledGraph, interpreters, type NodeContext } from 'nerve-agents/core'
import {
  failure,
  fakeClock,
  graph,
  referenceResults,
  scripted,
  scriptedNode,
  succeed,
} from 'nerve-agents/testing'

const compiled = (g: Graph): CompiledGraph => {
  const c = compile(g)
  if (c._tag === 'Left') throw new Error('the arbitrary made an invalid graph')
  return c.right
}

/** Function steps run by a scripted interpreter that waits a planned time first. */
const delayed = (delays: readonly number[]) => {
  const clock = fakeClock({ auto: true })
  const spot = (ctx: NodeContext): number => {
    let h = 0
    for (const ch of ctx.path.join('/')) h = (h * 31 + ch.charCodeAt(0)) >>> 0
    return delays[h % delays.length]!
  }
  const model = scripted({ kind: 'function', clock, delayMs: spot })
  return { clock, model, registry: interpreters(model, defaultInterpreters.get('graph')!) }
}

const delays = fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 8 })

describe('runtime laws', () => {
  it('each step runs exactly once when nothing fails', async () => {
    await fc.assert(
      fc.asyncProperty(graph({ maxSteps: 12 }), delays, async (g, d) => {
        const { clock, model, registry } = delayed(d)
        await run(g, { interpreters: registry, clock })
        const ids = model.calls.map((c) => c.path.join('/')).sort()
        expect(ids).toEqual([...compiled(g).ids].sort())
      }),
      { numRuns: 60 },
    )
  })

  it('no step starts before all its dependencies finished', async () => {
    await fc.assert(
      fc.asyncProperty(graph({ maxSteps: 12 }), delays, async (g, d) => {
        const { clock, model, registry } = delayed(d)
        await run(g, { interpreters: registry, clock })
        const byId = new Map(model.calls.map((c) => [c.path.join('/'), c]))
        for (const step of compiled(g).steps) {
          for (const dep of step.dependsOn) {
            expect(byId.get(step.id)!.start).toBeGreaterThan(byId.get(dep)!.end!)
          }
        }
      }),
      { numRuns: 60 },
    )
  })

  it('in-flight steps never exceed maxParallel', async () => {
    await fc.assert(
      fc.asyncProperty(graph({ maxSteps: 14, maxDeps: 1 }), delays, async (g, d) => {
        const { clock, model, registry } = delayed(d)
        await run(g, { interpreters: registry, clock })
        expect(model.maxInFlight).toBeLessThanOrEqual(g.maxParallel)
      }),
      { numRuns: 60 },
    )
  })

  it('results equal a sequential reference evaluator, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(graph({ maxSteps: 12 }), delays, fc.integer(), async (g, d, input) => {
        const { clock, registry } = delayed(d)
        const { results } = await run(g, { interpreters: registry, clock, input })
        expect(results).toEqual(referenceResults(g, input))
      }),
      { numRuns: 80 },
    )
  })

  it('a nested graph gives the same results as its steps inlined', async () => {
    await fc.assert(
      fc.asyncProperty(graph({ maxSteps: 10 }), fc.integer(), async (g, input) => {
        const outer = pipe(emptyGraph('outer'), addStep({ id: 'inner', node: g }))
        const nested = await run(outer, { interpreters: defaultInterpreters, input })
        const flat = await run(g, { interpreters: defaultInterpreters, input })
        expect(nested.results).toEqual({ inner: flat.results })
        expect(nested.trace.records[0]!.data.nested!.records.map((v) => v.id)).toEqual(
          flat.trace.records.map((v) => `inner/${v.id}`),
        )
      }),
      { numRuns: 40 },
    )
  })

  it('retry makes count + 1 attempts at most, then fail, skip or fallback as specified', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 4 }),
        fc.nat({ max: 3 }),
        fc.constantFrom('fail', 'skip', 'fallback'),
        async (failures, count, then) => {
          const plan = [
            ...Array.from({ length: failures }, (_, k) => failure(`f${k}`)),
            succeed('ok'),
          ]
          const model = scripted({ plan: { a: plan } })
          const policy = retry({
            count,
            then:
              then === 'skip'
                ? skip('skipped')
                : then === 'fallback'
                  ? fallback(fn('backup', () => 'backup'))
                  : { _tag: 'fail' },
          })
          const g = pipe(
            emptyGraph('g'),
            addStep({ id: 'a', node: scriptedNode('m'), onError: policy }),
          )
          const outcome = await run(g, {
            interpreters: interpreters(...defaultInterpreters.values(), model),
          }).then(
            (r) => r.results.a,
            (e: unknown) => (e as { _tag: string })._tag,
          )
          expect(model.calls).toHaveLength(Math.min(failures, count) + 1)
          const expected =
            failures <= count
              ? 'ok'
              : { fail: 'StepFailed', skip: 'skipped', fallback: 'backup' }[then]
          expect(outcome).toBe(expected)
        },
      ),
      { numRuns: 80 },
    )
  })

  it('after an abort at a random moment no step starts', async () => {
    await fc.assert(
      fc.asyncProperty(
        graph({ minSteps: 1, maxSteps: 12 }),
        delays,
        fc.nat({ max: 12 }),
        async (g, d, when) => {
          const clock = fakeClock()
          const model = scripted({
            kind: 'function',
            clock,
            delayMs: (ctx) => 1 + (d[ctx.path[0]!.length % d.length] ?? 0),
          })
          const controller = new AbortController()
          const done = run(g, {
            interpreters: interpreters(model),
            clock,
            signal: controller.signal,
          }).catch((e: unknown) => e)
          await clock.advance(when)
          controller.abort()
          const started = model.calls.length
          const outcome = await done
          for (let k = 0; k < 10; k++) await clock.advance(5)
          expect(model.calls.length).toBe(started)
          if ((outcome as { _tag?: string })._tag === 'Cancelled') {
            expect(model.calls.every((c) => c.outcome !== 'running')).toBe(true)
          }
        },
      ),
      { numRuns: 60 },
    )
  })
})
