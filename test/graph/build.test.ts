import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { addStep, addStepRef, chain, getStep, listSteps } from '../../src/graph/build.js'
import { executionOrder } from '../../src/graph/compile.js'
import { retry } from '../../src/graph/ErrorPolicy.js'
import { graph, type Graph } from '../../src/graph/Graph.js'
import { fn } from '../../src/node/FunctionNode.js'

const one = fn('one', () => 1)
const ids = (g: Graph) => listSteps(g).map((s) => s.id)

describe('addStep', () => {
  it('appends steps in insertion order and leaves its input as it was', () => {
    const g0 = graph('g')
    const g1 = addStep({ id: 'b', node: one })(g0)
    const g2 = addStep({ id: 'a', node: one })(g1)
    expect(ids(g2)).toEqual(['b', 'a'])
    expect(g0.size).toBe(0)
    expect(g1.size).toBe(1)
  })

  it('throws a UsageError at once for a duplicate step id', () => {
    const g = pipe(graph('g'), addStep({ id: 'a', node: one }))
    expect(() => addStep({ id: 'a', node: one })(g)).toThrow(UsageError)
    expect(() => addStep({ id: 'a', node: one })(g)).toThrow(
      'addStep(): graph "g" already has a step "a"',
    )
    expect(() => addStepRef('a', 'other')(g)).toThrow(/^addStepRef\(\): graph "g" already has/)
  })

  it('accepts the same node in many steps with different inputs', () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'x', node: one, input: 1 }),
      addStep({ id: 'y', node: one, input: 2 }),
    )
    const [x, y] = listSteps(g)
    expect(x!.node).toBe(y!.node)
    expect([x!.input, y!.input]).toEqual([1, 2])
  })

  it('rejects something that is not a graph', () => {
    expect(() => addStep({ id: 'a', node: one })(one as never)).toThrow(/expects a Graph/)
  })

  it('builds and orders a 10⁵-step chain without deep recursion', () => {
    let g = graph('long')
    for (let i = 0; i < 100_000; i++) {
      g = addStep({ id: `s${i}`, node: one, dependsOn: i === 0 ? [] : [`s${i - 1}`] })(g)
    }
    expect(g.size).toBe(100_000)
    const order = executionOrder(g)
    expect(E.isRight(order) && order.right[99_999]).toBe('s99999')
  })
})

describe('addStepRef', () => {
  it('adds a step that names a session node, with the options given', () => {
    const g = pipe(
      graph('g'),
      addStepRef('ask', 'claude', { input: 'hi', onError: retry({ count: 1 }) }),
    )
    expect(listSteps(g)[0]).toMatchObject({ id: 'ask', nodeRef: 'claude', input: 'hi' })
    expect(listSteps(g)[0]!.node).toBeUndefined()
  })
})

describe('chain', () => {
  const abc = pipe(
    graph('g'),
    addStep({ id: 'a', node: one }),
    addStep({ id: 'b', node: one }),
    addStep({ id: 'c', node: one, dependsOn: ['x'] }),
  )

  it('makes each step depend on the one before, keeping existing dependencies', () => {
    const g = chain('c', 'b', 'a')(abc)
    expect(listSteps(g).map((s) => [s.id, s.dependsOn])).toEqual([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['x']],
    ])
    expect(listSteps(abc)[1]!.dependsOn).toEqual([])
  })

  it('returns the graph itself when nothing changes', () => {
    const g = chain('a', 'b')(abc)
    expect(chain('a', 'b')(g)).toBe(g)
    expect(chain('a')(abc)).toBe(abc)
    expect(chain()(abc)).toBe(abc)
  })

  it('throws a UsageError for a step the graph does not have', () => {
    expect(() => chain('a', 'zz')(abc)).toThrow('chain(): graph "g" has no step "zz"')
  })

  it('lets later steps still be added and ordered', () => {
    const g = pipe(abc, chain('b', 'a'), addStep({ id: 'x', node: one }))
    expect(executionOrder(g)).toEqual(E.right(['b', 'a', 'x', 'c']))
  })
})

describe('getStep and listSteps', () => {
  it('find a step by id, or none', () => {
    const g = pipe(graph('g'), addStep({ id: 'a', node: one, input: 5 }))
    expect(
      pipe(
        g,
        getStep('a'),
        O.map((s) => s.input),
      ),
    ).toEqual(O.some(5))
    expect(getStep('b')(g)).toEqual(O.none)
    expect(getStep('toString')(g)).toEqual(O.none)
  })

  it('list frozen steps, the same array each time', () => {
    const g = pipe(graph('g'), addStep({ id: 'a', node: one }))
    expect(listSteps(g)).toBe(listSteps(g))
    expect(Object.isFrozen(listSteps(g))).toBe(true)
  })
})
