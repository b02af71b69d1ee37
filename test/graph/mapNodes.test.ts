import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addStep, addStepRef, listSteps } from '../../src/graph/build.js'
import { fallback, retry } from '../../src/graph/ErrorPolicy.js'
import { graph, isGraph, type Graph } from '../../src/graph/Graph.js'
import { graphParts } from '../../src/graph/graphParts.js'
import { mapNodeRefs, mapNodes } from '../../src/graph/mapNodes.js'
import type { ErrorPolicy } from '../../src/graph/ErrorPolicy.js'
import { fn } from '../../src/node/FunctionNode.js'
import type { Node } from '../../src/node/Node.js'

const POOL: readonly Node[] = ['a', 'b', 'c', 'd'].map((id) => fn(id, () => id))
const REFS = ['r0', 'r1', 'r2']

/** A step plan: its node (a pool index, or a nested graph), or a ref; a fallback node or none. */
type StepPlan =
  | { readonly node: number; readonly fallback: number | undefined; readonly retry: boolean }
  | { readonly ref: number }
  | { readonly nested: readonly StepPlan[] }

const stepPlan: fc.Arbitrary<StepPlan> = fc.letrec<{ step: StepPlan }>((tie) => ({
  step: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      node: fc.nat({ max: POOL.length - 1 }),
      fallback: fc.option(fc.nat({ max: POOL.length - 1 }), { nil: undefined }),
      retry: fc.boolean(),
    }),
    fc.record({ ref: fc.nat({ max: REFS.length - 1 }) }),
    fc.record({ nested: fc.array(tie('step'), { maxLength: 3 }) }),
  ),
})).step

const build = (id: string, plans: readonly StepPlan[]): Graph =>
  plans.reduce((g, p, i) => {
    const stepId = `s${i}`
    if ('ref' in p) return addStepRef(stepId, REFS[p.ref]!)(g)
    if ('nested' in p) return addStep({ id: stepId, node: build(`${id}-${i}`, p.nested) })(g)
    const onError: ErrorPolicy | undefined =
      p.fallback === undefined
        ? undefined
        : p.retry
          ? retry({ count: 1, then: fallback(POOL[p.fallback]!) })
          : fallback(POOL[p.fallback]!)
    return addStep({
      id: stepId,
      node: POOL[p.node]!,
      ...(onError !== undefined && { onError }),
    })(g)
  }, graph(id))

const graphs = fc.array(stepPlan, { maxLength: 6 }).map((plans) => build('g', plans))

/** A function on the pool's nodes, as a table of indices. */
const poolMap = fc
  .array(fc.nat({ max: POOL.length - 1 }), { minLength: POOL.length, maxLength: POOL.length })
  .map(
    (table) =>
      (n: Node): Node =>
        POOL[table[POOL.indexOf(n)]!]!,
  )

const refMap = fc
  .array(fc.constantFrom('x', 'y', 'r0'), { minLength: REFS.length, maxLength: REFS.length })
  .map(
    (table) =>
      (r: string): string =>
        table[REFS.indexOf(r)] ?? `${r}!`,
  )

/** What a graph runs, step by step (nested graphs as their own shape): for comparing graphs. */
const shape = (g: Graph): unknown =>
  listSteps(g).map((s) => ({
    id: s.id,
    node: s.node === undefined ? undefined : isGraph(s.node) ? shape(s.node) : s.node.id,
    ref: s.nodeRef,
    onError: JSON.stringify(s.onError, (k, v: unknown) => (k === 'node' ? (v as Node).id : v)),
  }))

describe('mapNodes', () => {
  it('returns the same graph (===) for the identity (law)', () => {
    fc.assert(
      fc.property(
        graphs,
        (g) =>
          pipe(
            g,
            mapNodes((n) => n),
          ) === g,
      ),
    )
  })

  it('maps by the composition as by one map after the other (law)', () => {
    fc.assert(
      fc.property(graphs, poolMap, poolMap, (g, f, h) => {
        const twice = pipe(g, mapNodes(h), mapNodes(f))
        const once = pipe(
          g,
          mapNodes((n) => f(h(n))),
        )
        expect(shape(twice)).toEqual(shape(once))
      }),
    )
  })

  it('replaces every node the graph runs, fallbacks and nested graphs included', () => {
    fc.assert(
      fc.property(graphs, poolMap, (g, f) => {
        const mapped = pipe(g, mapNodes(f))
        const expected = new Set(graphParts(g).nodes.map(f))
        expect(new Set(graphParts(mapped).nodes)).toEqual(expected)
        expect(graphParts(mapped).refs).toEqual(graphParts(g).refs)
      }),
    )
  })

  it('keeps the id, the order of steps and the nested graphs where nothing changes', () => {
    const [a, b] = [POOL[0]!, POOL[1]!]
    const inner = pipe(graph('inner'), addStep({ id: 'x', node: b }))
    const g = pipe(
      graph('g', { maxParallel: 2, metadata: { team: 't' } }),
      addStep({ id: 'one', node: a }),
      addStep({ id: 'two', node: inner, dependsOn: ['one'] }),
    )
    const h = pipe(
      g,
      mapNodes((n) => (n === a ? POOL[2]! : n)),
    )
    expect(h).not.toBe(g)
    expect([h.id, h.maxParallel, h.metadata]).toEqual(['g', 2, { team: 't' }])
    expect(listSteps(h).map((s) => [s.id, s.dependsOn])).toEqual([
      ['one', []],
      ['two', ['one']],
    ])
    expect(listSteps(h)[1]!.node).toBe(inner)
  })
})

describe('mapNodeRefs', () => {
  it('returns the same graph (===) for the identity (law)', () => {
    fc.assert(
      fc.property(
        graphs,
        (g) =>
          pipe(
            g,
            mapNodeRefs((r) => r),
          ) === g,
      ),
    )
  })

  it('maps by the composition as by one map after the other (law)', () => {
    fc.assert(
      fc.property(graphs, refMap, refMap, (g, f, h) => {
        const twice = pipe(g, mapNodeRefs(h), mapNodeRefs(f))
        const once = pipe(
          g,
          mapNodeRefs((r) => f(h(r))),
        )
        expect(shape(twice)).toEqual(shape(once))
      }),
    )
  })

  it('renames the refs of nested graphs and leaves nodes alone', () => {
    fc.assert(
      fc.property(graphs, refMap, (g, f) => {
        const mapped = pipe(g, mapNodeRefs(f))
        expect(new Set(graphParts(mapped).refs)).toEqual(new Set(graphParts(g).refs.map(f)))
        expect(graphParts(mapped).nodes).toEqual(graphParts(g).nodes)
      }),
    )
  })
})
