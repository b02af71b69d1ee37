import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { addStep, listSteps } from '../../src/graph/build.js'
import { fail, skip } from '../../src/graph/ErrorPolicy.js'
import { graph } from '../../src/graph/Graph.js'
import { validate } from '../../src/graph/compile.js'
import { stepInput, type Step, type StepSpec } from '../../src/graph/Step.js'
import { nodeRegistry, type NodeRegistry } from '../../src/node/NodeRegistry.js'
import type { Node } from '../../src/node/Node.js'
import { fn } from '../../src/node/FunctionNode.js'

const one = fn('one', () => 1)
const only = (spec: StepSpec) => listSteps(pipe(graph('g'), addStep(spec)))[0]!

describe('a stored step', () => {
  it('fills in defaults and keeps only the fields given', () => {
    expect(only({ id: 'a', node: one })).toEqual({
      id: 'a',
      node: one,
      dependsOn: [],
      onError: fail,
      links: {},
    })
    const s = only({
      id: 'b',
      nodeRef: 'writer',
      input: { n: 1 },
      dependsOn: ['a'],
      onError: skip(0),
      timeoutMs: 50,
      parser: 'json',
      links: { docs: ['a'] },
    })
    expect(s).toEqual({
      id: 'b',
      nodeRef: 'writer',
      input: { n: 1 },
      dependsOn: ['a'],
      onError: skip(0),
      timeoutMs: 50,
      parser: 'json',
      links: { docs: ['a'] },
    })
    expect('node' in s).toBe(false)
  })

  it('is frozen, with copies of the arrays given', () => {
    const deps = ['x']
    const links = { h: ['x'] }
    const s = only({ id: 'a', node: one, dependsOn: deps, links, input: { deep: [1] } })
    deps.push('y')
    links.h.push('y')
    expect(s.dependsOn).toEqual(['x'])
    expect(s.links).toEqual({ h: ['x'] })
    expect(Object.isFrozen(s)).toBe(true)
    expect(Object.isFrozen(s.dependsOn)).toBe(true)
    expect(Object.isFrozen(s.links.h)).toBe(true)
    expect(Object.isFrozen((s.input as { deep: number[] }).deep)).toBe(true)
  })

  it('of only an id, a node and dependencies is made when first read, once, from a copy', () => {
    const deps = ['x', 'x', 'y']
    const g1 = pipe(graph('g'), addStep({ id: 'a', node: one, dependsOn: deps }))
    deps.length = 0
    const g2 = pipe(g1, addStep({ id: 'x', node: one }))
    const a = listSteps(g2)[0]!
    expect(a).toEqual({ id: 'a', node: one, dependsOn: ['x', 'x', 'y'], onError: fail, links: {} })
    expect(Object.isFrozen(a)).toBe(true)
    expect(Object.isFrozen(a.dependsOn)).toBe(true)
    // The same object in every version that has it, and after extending an older version.
    expect(listSteps(g1)[0]).toBe(a)
    expect(listSteps(pipe(g1, addStep({ id: 'z', node: one })))[0]).toBe(a)
    expect(validate(g1)).toEqual(
      E.left([
        { _tag: 'DuplicateDependency', path: ['a'], dependency: 'x' },
        { _tag: 'UnknownDependency', path: ['a'], dependency: 'x' },
        { _tag: 'UnknownDependency', path: ['a'], dependency: 'y' },
      ]),
    )
  })

  it('rejects values of the wrong type with a UsageError', () => {
    const bad = (spec: unknown) => () => only(spec as StepSpec)
    expect(bad(null)).toThrow(UsageError)
    expect(bad({ id: 3, node: one })).toThrow(/step id must be a string, got 3/)
    expect(bad({ id: 'a', node: one, dependsOn: 'b' })).toThrow(/dependsOn must be an array/)
    expect(bad({ id: 'a', node: one, dependsOn: [1] })).toThrow(/dependsOn must be an array/)
    expect(bad({ id: 'a', node: one, timeoutMs: '5' })).toThrow(/timeoutMs must be a number/)
    expect(bad({ id: 'a', node: one, parser: 1 })).toThrow(/parser must be a string/)
    expect(bad({ id: 'a', node: one, links: [] })).toThrow(/links must be an object/)
    expect(bad({ id: 'a', node: one, links: { h: 'b' } })).toThrow(/links\.h must be an array/)
    expect(bad({ id: 'a', node: one, inputFn: 1 })).toThrow(/inputFn must be a function/)
    expect(bad({ id: 'a', nodeRef: 1 })).toThrow(/nodeRef must be a string/)
    expect(bad({ id: 'a', node: 'one' })).toThrow(/node must be a Node, got string/)
  })
})

describe('the Step type', () => {
  it('narrows to node or nodeRef, so a runtime can resolve either', () => {
    const nodeOf = (s: Step, session: NodeRegistry): Node | undefined =>
      s.node !== undefined ? s.node : session.get(s.nodeRef)
    const session = nodeRegistry(fn('writer', () => 'w'))
    expect(nodeOf(only({ id: 'a', node: one }), session)).toBe(one)
    expect(nodeOf(only({ id: 'a', nodeRef: 'writer' }), session)?.id).toBe('writer')
  })
})

describe('stepInput', () => {
  it('prefers inputFn, then input, then the graph input', () => {
    const withFn = only({ id: 'a', node: one, inputFn: (up, gi) => [up, gi] })
    expect(stepInput(withFn, { x: 1 }, 'g')).toEqual([{ x: 1 }, 'g'])
    expect(stepInput(only({ id: 'a', node: one, input: 0 }), {}, 'g')).toBe(0)
    expect(stepInput(only({ id: 'a', node: one, input: null }), {}, 'g')).toBe(null)
    expect(stepInput(only({ id: 'a', node: one }), {}, 'g')).toBe('g')
  })
})
