import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { addStep, listSteps } from '../../src/graph/build.js'
import { compile, executionOrder, validate } from '../../src/graph/compile.js'
import { fail } from '../../src/graph/ErrorPolicy.js'
import { graph, isGraph, type Graph } from '../../src/graph/Graph.js'
import { fn } from '../../src/node/FunctionNode.js'

const one = fn('one', () => 1)
const ids = (g: Graph) => listSteps(g).map((s) => s.id)

describe('graph', () => {
  it('is an empty, frozen, non-persistent node of kind graph', () => {
    const g = graph('g', { metadata: { team: 'x' } })
    expect(g).toMatchObject({ id: 'g', kind: 'graph', persistent: false, metadata: { team: 'x' } })
    expect(g.maxParallel).toBe(Infinity)
    expect(g.size).toBe(0)
    expect(Object.isFrozen(g)).toBe(true)
    expect(isGraph(g)).toBe(true)
    expect(isGraph(one)).toBe(false)
  })

  it('rejects a bad id and a bad maxParallel, naming them', () => {
    expect(() => graph('')).toThrow(UsageError)
    expect(() => graph('a b')).toThrow(/the graph id: "a b"/)
    for (const bad of [0, -1, 1.5, NaN]) {
      expect(() => graph('g', { maxParallel: bad })).toThrow(/options\.maxParallel/)
    }
    expect(graph('g', { maxParallel: 3 }).maxParallel).toBe(3)
  })

  it('shows its steps in JSON', () => {
    const g = pipe(graph('g'), addStep({ id: 'a', node: one, input: 1 }))
    expect(JSON.parse(JSON.stringify(g))).toEqual({
      id: 'g',
      kind: 'graph',
      persistent: false,
      metadata: {},
      maxParallel: null,
      steps: [
        {
          id: 'a',
          node: { id: 'one', kind: 'function', persistent: false, metadata: {} },
          input: 1,
          dependsOn: [],
          onError: { _tag: 'fail' },
          links: {},
        },
      ],
    })
  })
})

describe('graph versions', () => {
  it('never change when later versions add steps', () => {
    const g0 = graph('g')
    const g1 = addStep({ id: 'a', node: one })(g0)
    const g2 = addStep({ id: 'b', node: one, dependsOn: ['a'] })(g1)
    expect(ids(g0)).toEqual([])
    expect(ids(g1)).toEqual(['a'])
    expect(ids(g2)).toEqual(['a', 'b'])
  })

  it('branch from an older version without seeing each other', () => {
    const base = pipe(graph('g'), addStep({ id: 'a', node: one }))
    const left = pipe(base, addStep({ id: 'b', node: one, dependsOn: ['a'] }))
    const right = pipe(base, addStep({ id: 'b', node: one, dependsOn: ['c'] }))
    const right2 = pipe(right, addStep({ id: 'c', node: one }))
    expect(ids(left)).toEqual(['a', 'b'])
    expect(ids(right2)).toEqual(['a', 'b', 'c'])
    expect(validate(left)).toEqual(E.right(left))
    expect(E.isLeft(validate(right))).toBe(true)
    expect(executionOrder(right2)).toEqual(E.right(['a', 'c', 'b']))
  })

  it('resolve a dependency added later only in versions that have it', () => {
    const g1 = pipe(graph('g'), addStep({ id: 'b', node: one, dependsOn: ['a'] }))
    const g2 = pipe(g1, addStep({ id: 'a', node: one }))
    expect(validate(g1)).toEqual(
      E.left([{ _tag: 'UnknownDependency', path: ['b'], dependency: 'a' }]),
    )
    expect(executionOrder(g2)).toEqual(E.right(['a', 'b']))
    expect(validate(g1)).toEqual(
      E.left([{ _tag: 'UnknownDependency', path: ['b'], dependency: 'a' }]),
    )
  })

  it('agree with a graph built afresh, whatever versions are extended (law)', () => {
    // A random sequence of "extend version k with a step" operations.
    const ops = fc.array(
      fc.record({ from: fc.nat(), deps: fc.array(fc.nat(9), { maxLength: 3 }) }),
      { maxLength: 25 },
    )
    fc.assert(
      fc.property(ops, (list) => {
        const versions: { g: Graph; steps: { id: string; dependsOn: string[] }[] }[] = [
          { g: graph('g'), steps: [] },
        ]
        list.forEach((op, n) => {
          const base = versions[op.from % versions.length]!
          const step = { id: `s${n}`, dependsOn: [...new Set(op.deps.map((d) => `s${d}`))] }
          versions.push({
            g: addStep({ ...step, node: one })(base.g),
            steps: [...base.steps, step],
          })
        })
        for (const v of versions) {
          const fresh = v.steps.reduce((g, s) => addStep({ ...s, node: one })(g), graph('g'))
          expect(ids(v.g)).toEqual(v.steps.map((s) => s.id))
          expect(listSteps(v.g).map((s) => s.dependsOn)).toEqual(v.steps.map((s) => s.dependsOn))
          expect(listSteps(v.g)).toEqual(listSteps(fresh))
          expect(executionOrder(v.g)).toEqual(executionOrder(fresh))
          expect(validate(v.g)).toEqual(E.map(() => v.g)(validate(fresh)))
          const a = compile(v.g)
          const b = compile(fresh)
          if (E.isRight(a) && E.isRight(b)) {
            expect([...(a.right.dependencies.targets as Int32Array)]).toEqual([
              ...(b.right.dependencies.targets as Int32Array),
            ])
          }
        }
      }),
    )
  })
})

describe('a usual step', () => {
  it('is the step its spec with the defaults spelled out would make (law)', () => {
    // A step of an id, a node and dependencies is kept as its parts and made on
    // first read; the same spec with `onError: fail` given is made at once.
    const specs = fc.array(
      fc.record({
        id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'bad id'),
        deps: fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'zz'), { maxLength: 4 }),
      }),
      { maxLength: 12 },
    )
    fc.assert(
      fc.property(specs, fc.nat(12), (list, readFirst) => {
        let usual = graph('g')
        let spelled = graph('g')
        const added = new Set<string>()
        for (const { id, deps } of list) {
          if (added.has(id)) continue
          added.add(id)
          usual = addStep({ id, node: one, dependsOn: deps })(usual)
          spelled = addStep({ id, node: one, dependsOn: deps, onError: fail })(spelled)
          // Reading the steps at one point makes those while later ones wait.
          if (added.size === readFirst) listSteps(usual)
        }
        expect(listSteps(usual)).toEqual(listSteps(spelled))
        expect(validate(usual)).toEqual(E.map(() => usual)(validate(spelled)))
        expect(executionOrder(usual)).toEqual(executionOrder(spelled))
      }),
    )
  })
})
