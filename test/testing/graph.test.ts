import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { addStep, listSteps } from '../../src/graph/build.js'
import { executionOrder, validate } from '../../src/graph/compile.js'
import { graph as emptyGraph } from '../../src/graph/Graph.js'
import { fn } from '../../src/node/FunctionNode.js'
import { graph, hashNode, hashStep, referenceResults } from '../../src/testing/graph.js'

describe('the graph arbitrary', () => {
  it('generates valid graphs within the constraints, with ids s0, s1, …', () => {
    fc.assert(
      fc.property(graph({ minSteps: 2, maxSteps: 7, maxDeps: 2 }), (g) => {
        expect(E.isRight(validate(g))).toBe(true)
        const steps = listSteps(g)
        expect(steps.length).toBeGreaterThanOrEqual(2)
        expect(steps.length).toBeLessThanOrEqual(7)
        expect(steps.map((s) => s.id).sort()).toEqual(
          Array.from({ length: steps.length }, (_, i) => `s${i}`).sort(),
        )
        for (const s of steps) {
          expect(s.node).toBe(hashNode)
          expect(s.dependsOn.length).toBeLessThanOrEqual(2)
          for (const d of s.dependsOn)
            expect(Number(d.slice(1))).toBeLessThan(Number(s.id.slice(1)))
        }
        expect(g.maxParallel === Infinity || (g.maxParallel >= 1 && g.maxParallel <= 4)).toBe(true)
      }),
    )
  })

  it('inserts dependencies after their dependents in some graphs', () => {
    const forward = fc
      .sample(graph({ minSteps: 4, maxSteps: 8 }), { numRuns: 200, seed: 1 })
      .some((g) => {
        const seen = new Set<string>()
        return listSteps(g).some((s) => {
          seen.add(s.id)
          return s.dependsOn.some((d) => !seen.has(d))
        })
      })
    expect(forward).toBe(true)
  })

  it('uses a fixed maxParallel when given one', () => {
    fc.assert(fc.property(graph({ maxSteps: 3, maxParallel: 2 }), (g) => g.maxParallel === 2))
  })

  it('checks its constraints at once, naming the bad one', () => {
    expect(() => graph({ maxSteps: -1 })).toThrow(UsageError)
    expect(() => graph({ maxSteps: -1 })).toThrow(
      'graph(): constraints.maxSteps must be an integer ≥ 0, got -1',
    )
    expect(() => graph({ minSteps: 5, maxSteps: 2 })).toThrow(
      /constraints\.maxSteps must be an integer ≥ minSteps \(5\), got 2/,
    )
    expect(() => graph({ maxDeps: 1.5 })).toThrow(/constraints\.maxDeps/)
    expect(() => graph({ maxParallel: 0 })).toThrow(
      /constraints\.maxParallel must be a positive integer or Infinity, got 0/,
    )
    expect(() => graph({ maxStep: 3 } as never)).toThrow(/constraints\.maxStep is not a constraint/)
    expect(() => graph(null as never)).toThrow(/constraints must be an object/)
  })
})

describe('hashStep', () => {
  it('depends on the step id, the input and the upstream, not on the upstream order', () => {
    const h = hashStep('s1', 3, { s0: 1, s2: 2 })
    expect(hashStep('s1', 3, { s2: 2, s0: 1 })).toBe(h)
    expect(hashStep('s9', 3, { s0: 1, s2: 2 })).not.toBe(h)
    expect(hashStep('s1', 4, { s0: 1, s2: 2 })).not.toBe(h)
    expect(hashStep('s1', 3, { s0: 1, s2: 3 })).not.toBe(h)
    expect(Number.isInteger(h) && h >= 0 && h < 2 ** 32).toBe(true)
  })
})

describe('referenceResults', () => {
  it('evaluates steps in order with their upstream and input', () => {
    fc.assert(
      fc.property(graph({ maxSteps: 8 }), fc.integer(), (g, input) => {
        const results = referenceResults(g, input)
        const order = executionOrder(g)
        if (E.isLeft(order)) throw new Error('invalid')
        for (const id of order.right) {
          const s = listSteps(g).find((x) => x.id === id)!
          const upstream = Object.fromEntries(s.dependsOn.map((d) => [d, results[d]]))
          expect(results[id]).toBe(hashStep(id, s.input ?? input, upstream))
        }
      }),
    )
  })

  it('gives a nested graph the results of its steps', () => {
    const inner = pipe(emptyGraph('inner'), addStep({ id: 'x', node: hashNode }))
    const g = pipe(
      emptyGraph('g'),
      addStep({ id: 'a', node: hashNode, input: 1 }),
      addStep({ id: 'b', node: inner, dependsOn: ['a'], inputFn: (up) => up.a }),
    )
    const a = hashStep('a', 1, {})
    expect(referenceResults(g)).toEqual({ a, b: { x: hashStep('x', a, {}) } })
  })

  it('refuses graphs it cannot evaluate', () => {
    const ref = pipe(emptyGraph('g'), addStep({ id: 'a', nodeRef: 'x' }))
    expect(() => referenceResults(ref)).toThrow(/step "a" runs a nodeRef/)
    const later = pipe(
      emptyGraph('g'),
      addStep({ id: 'a', node: fn('p', () => Promise.resolve(1)) }),
    )
    expect(() => referenceResults(later)).toThrow(/returned a promise/)
    const bad = pipe(emptyGraph('g'), addStep({ id: 'a', node: hashNode, dependsOn: ['a'] }))
    expect(() => referenceResults(bad)).toThrow(/invalid graph: step "a": depends on itself/)
  })
})
