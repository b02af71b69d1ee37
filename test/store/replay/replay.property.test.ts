import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  type Graph,
  graph as emptyGraph,
  listSteps,
  type RunResult,
} from 'nerve-agents'
import { interpreters, type NodeContext } from 'nerve-agents/core'
import { graph, hashNode, hashStep, scripted } from 'nerve-agents/testing'
import { isReplayDivergence, record, replay, traceJson } from 'nerve-agents/store'

/**
 * A scripted interpreter for the generated steps: a salted hash, some steps
 * failing, some answering in a later microtask, some after a timer (as a
 * process or a model would); the interpreter runs by `execute`, or streams.
 */
interface Script {
  readonly salt: number
  readonly failing: readonly number[]
  readonly async: readonly number[]
  readonly late: readonly number[]
  readonly streams: boolean
}

const script: fc.Arbitrary<Script> = fc.record({
  salt: fc.nat(),
  failing: fc.uniqueArray(fc.nat({ max: 9 }), { maxLength: 2 }),
  async: fc.uniqueArray(fc.nat({ max: 9 }), { maxLength: 10 }),
  late: fc.uniqueArray(fc.nat({ max: 9 }), { maxLength: 4 }),
  streams: fc.boolean(),
})

const registry = (s: Script) => {
  const answer = (ctx: NodeContext): unknown => {
    const n = Number(ctx.stepId.slice(1))
    if (s.failing.includes(n)) throw new Error(`step ${ctx.stepId} failed`)
    const value = hashStep(ctx.stepId, ctx.input, ctx.upstream) ^ s.salt
    if (s.late.includes(n))
      return new Promise((resolve) =>
        setTimeout(
          () => {
            resolve(value)
          },
          1 + ((n * 7) % 5),
        ),
      )
    return s.async.includes(n) ? Promise.resolve(value) : value
  }
  return interpreters(
    defaultInterpreters.get('graph')!,
    s.streams
      ? {
          kind: 'function',
          // eslint-disable-next-line require-yield
          executeStream: async function* (_node: unknown, ctx: NodeContext) {
            return await answer(ctx)
          },
        }
      : scripted({ kind: 'function', otherwise: (_node, ctx: NodeContext) => answer(ctx) }),
  )
}

const sameOutcome = (a: E.Either<unknown, RunResult>, b: E.Either<unknown, RunResult>): void => {
  if (E.isRight(a) && E.isRight(b)) {
    expect(b.right.results).toEqual(a.right.results)
    expect(traceJson(b.right.trace)).toEqual(traceJson(a.right.trace))
  } else {
    expect(E.isLeft(b)).toBe(E.isLeft(a))
    expect(String((b as E.Left<unknown>).left)).toBe(String((a as E.Left<unknown>).left))
  }
}

/** The same graph with step `id`'s input changed. */
const withInput = (g: Graph, id: string): Graph =>
  listSteps(g).reduce(
    (acc, step) =>
      addStep({
        id: step.id,
        node: hashNode,
        dependsOn: step.dependsOn,
        ...(step.id === id
          ? { input: 1000 }
          : 'input' in step && step.input !== undefined && { input: step.input }),
      })(acc),
    emptyGraph(g.id, { maxParallel: g.maxParallel }),
  )

describe('replay, for any graph and scripted interpreters', () => {
  it('law: a recorded run replays to an equal trace (every time field) and equal results', async () => {
    await fc.assert(
      fc.asyncProperty(graph({ maxSteps: 8 }), script, async (g, s) => {
        const { result, recording } = await record(g, { interpreters: registry(s), input: 'in' })
        sameOutcome(result, await replay(recording, g))
      }),
      { numRuns: 60 },
    )
  })

  it('replays a failed run where another branch started a step after the failing one', async () => {
    // s2 (after s0) fails at once; s5 (after s4) may start before the run stops, or not
    const g = [
      ['s0', []],
      ['s1', []],
      ['s2', ['s0']],
      ['s3', []],
      ['s4', []],
      ['s5', ['s4']],
    ].reduce(
      (acc, [id, dependsOn]) =>
        addStep({ id: id as string, node: hashNode, dependsOn: dependsOn as string[] })(acc),
      emptyGraph('branches'),
    )
    const s: Script = { salt: 0, failing: [2], async: [0, 4], late: [], streams: false }
    const { result, recording } = await record(g, { interpreters: registry(s), input: 'in' })
    expect(recording.calls.map((c) => c.path[0])).toContain('s5')
    sameOutcome(result, await replay(recording, g))
  })

  it('reports a divergence at the one step whose input changed', async () => {
    await fc.assert(
      fc.asyncProperty(
        graph({ minSteps: 1, maxSteps: 8 }),
        script.map((s) => ({ ...s, failing: [] })),
        fc.nat(),
        async (g, s, pick) => {
          const { recording } = await record(g, { interpreters: registry(s), input: 'in' })
          const steps = listSteps(g)
          const changed = steps[pick % steps.length]!.id
          const error = await replay(recording, withInput(g, changed)).then(
            () => undefined,
            (e: unknown) => e,
          )
          expect(isReplayDivergence(error)).toBe(true)
          expect(error).toMatchObject({ path: [changed], what: 'input', actual: 1000 })
        },
      ),
      { numRuns: 60 },
    )
  })
})
