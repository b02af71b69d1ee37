import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addStep, chain } from '../../src/graph/build.js'
import { compile, executionOrder, validate } from '../../src/graph/compile.js'
import { fallback, retry } from '../../src/graph/ErrorPolicy.js'
import { graph, type Graph } from '../../src/graph/Graph.js'
import { showGraphError, type GraphError } from '../../src/graph/GraphError.js'
import type { StepSpec } from '../../src/graph/Step.js'
import { fn } from '../../src/node/FunctionNode.js'

const one = fn('one', () => 1)
const build = (...specs: readonly StepSpec[]): Graph =>
  specs.reduce((g, s) => addStep(s)(g), graph('g'))
const errorsOf = (g: Graph): readonly GraphError[] => {
  const v = validate(g)
  return E.isLeft(v) ? v.left : []
}

describe('validate', () => {
  it('returns the graph itself when it is valid', () => {
    const g = build({ id: 'a', node: one }, { id: 'b', node: one, dependsOn: ['a'] })
    expect(validate(g)).toEqual(E.right(g))
    expect(validate(graph('empty'))).toEqual(E.right(graph('empty')))
  })

  it.each<[string, StepSpec, GraphError]>([
    [
      'an empty step id',
      { id: '', node: one },
      { _tag: 'InvalidStepId', path: [''], stepId: '', index: 0, reason: 'is empty' },
    ],
    [
      'a blank step id',
      { id: '  ', node: one },
      { _tag: 'InvalidStepId', path: ['  '], stepId: '  ', index: 0, reason: 'is blank' },
    ],
    [
      'a self-dependency',
      { id: 'a', node: one, dependsOn: ['a'] },
      { _tag: 'SelfDependency', path: ['a'] },
    ],
    [
      'both inputs',
      { id: 'a', node: one, input: 1, inputFn: () => 2 } as unknown as StepSpec,
      { _tag: 'BothInputs', path: ['a'] },
    ],
    [
      'both node and nodeRef',
      { id: 'a', node: one, nodeRef: 'x' } as unknown as StepSpec,
      { _tag: 'NodeAndNodeRef', path: ['a'] },
    ],
    ['neither node nor nodeRef', { id: 'a' } as StepSpec, { _tag: 'MissingNode', path: ['a'] }],
    [
      'a bad nodeRef',
      { id: 'a', nodeRef: '' },
      { _tag: 'InvalidNodeRef', path: ['a'], nodeRef: '', reason: 'is empty' },
    ],
    [
      'an unknown dependency',
      { id: 'a', node: one, dependsOn: ['ghost'] },
      { _tag: 'UnknownDependency', path: ['a'], dependency: 'ghost' },
    ],
    [
      'an unknown link target',
      { id: 'a', node: one, links: { docs: ['ghost'] } },
      { _tag: 'UnknownLinkTarget', path: ['a'], handle: 'docs', target: 'ghost' },
    ],
    [
      'a link to itself',
      { id: 'a', node: one, links: { docs: ['a'] } },
      { _tag: 'SelfLink', path: ['a'], handle: 'docs' },
    ],
    [
      'a bad link handle',
      { id: 'a', node: one, links: { 'two words': [] } },
      {
        _tag: 'InvalidStepOption',
        path: ['a'],
        field: 'links.two words',
        reason: expect.stringContaining('not a valid handle') as string,
      },
    ],
    [
      'a bad timeout',
      { id: 'a', node: one, timeoutMs: 0 },
      {
        _tag: 'InvalidStepOption',
        path: ['a'],
        field: 'timeoutMs',
        reason: 'must be a finite number > 0, got 0',
      },
    ],
    [
      'a bad parser name',
      { id: 'a', node: one, parser: '' },
      { _tag: 'InvalidStepOption', path: ['a'], field: 'parser', reason: 'is empty' },
    ],
    [
      'a hand-made invalid policy',
      { id: 'a', node: one, onError: { ...retry({ count: 1 }), jitter: 5 } },
      {
        _tag: 'InvalidStepOption',
        path: ['a'],
        field: 'onError.jitter',
        reason: 'must be between 0 and 1, got 5',
      },
    ],
  ])('reports %s with its path', (_, spec, error) => {
    expect(errorsOf(build(spec))).toEqual([error])
  })

  it('reports a dependency listed twice, once, and checks it once', () => {
    const g = build({ id: 'a', node: one }, { id: 'b', node: one, dependsOn: ['a', 'a'] })
    expect(errorsOf(g)).toEqual([{ _tag: 'DuplicateDependency', path: ['b'], dependency: 'a' }])
    const unknown = build({ id: 'b', node: one, dependsOn: ['zz', 'zz', 'zz'] })
    expect(errorsOf(unknown)).toEqual([
      { _tag: 'DuplicateDependency', path: ['b'], dependency: 'zz' },
      { _tag: 'UnknownDependency', path: ['b'], dependency: 'zz' },
    ])
    const many = Array.from({ length: 12 }, (_, i) => ({ id: `d${i}`, node: one }))
    const long = build(...many, {
      id: 'x',
      node: one,
      dependsOn: [...many.map((s) => s.id), 'd3', 'd7', 'd3'],
    })
    expect(errorsOf(long)).toEqual([
      { _tag: 'DuplicateDependency', path: ['x'], dependency: 'd3' },
      { _tag: 'DuplicateDependency', path: ['x'], dependency: 'd7' },
    ])
  })

  it('reports every error at once: by step (its own fields, dependencies, links, nested graphs), cycles last', () => {
    const g = build(
      { id: 'a', node: one, dependsOn: ['c', 'nope'] },
      { id: '', node: one },
      { id: 'b', node: one, dependsOn: ['a', 'b'] },
      { id: 'c', node: one, dependsOn: ['b'] },
    )
    expect(errorsOf(g).map((e) => e._tag)).toEqual([
      'UnknownDependency',
      'InvalidStepId',
      'SelfDependency',
      'Cycle',
    ])
  })

  it('names a cycle by its steps in dependsOn order, from its first inserted step', () => {
    const g = build(
      { id: 'x', node: one },
      { id: 'a', node: one, dependsOn: ['x', 'c'] },
      { id: 'b', node: one, dependsOn: ['a'] },
      { id: 'c', node: one, dependsOn: ['b'] },
      { id: 'after', node: one, dependsOn: ['c'] },
    )
    expect(errorsOf(g)).toEqual([{ _tag: 'Cycle', path: [], cycle: ['a', 'c', 'b', 'a'] }])
  })

  it('reports one cycle per set of mutually dependent steps', () => {
    const g = build(
      { id: 'p', node: one, dependsOn: ['q'] },
      { id: 'q', node: one, dependsOn: ['p', 'r'] },
      { id: 'r', node: one, dependsOn: ['q'] },
      { id: 'u', node: one, dependsOn: ['v'] },
      { id: 'v', node: one, dependsOn: ['u'] },
    )
    expect(errorsOf(g)).toEqual([
      { _tag: 'Cycle', path: [], cycle: ['p', 'q', 'p'] },
      { _tag: 'Cycle', path: [], cycle: ['u', 'v', 'u'] },
    ])
  })

  it('reports the errors of nested graphs under the step that holds them', () => {
    const inner = pipe(
      graph('inner'),
      addStep({ id: 'x', node: one, dependsOn: ['y'] }),
      addStep({ id: 'y', node: one, dependsOn: ['x'] }),
      addStep({ id: 'z', node: one, dependsOn: ['ghost'] }),
    )
    const middle = pipe(graph('middle'), addStep({ id: 'in', node: inner }))
    const g = build(
      { id: 'outer', node: middle },
      { id: 'safe', node: one, onError: fallback(inner) },
    )
    expect(errorsOf(g)).toEqual([
      { _tag: 'UnknownDependency', path: ['outer', 'in', 'z'], dependency: 'ghost' },
      { _tag: 'Cycle', path: ['outer', 'in'], cycle: ['x', 'y', 'x'] },
      { _tag: 'UnknownDependency', path: ['safe', 'z'], dependency: 'ghost' },
      { _tag: 'Cycle', path: ['safe'], cycle: ['x', 'y', 'x'] },
    ])
  })

  it('renders every error as a line naming the step', () => {
    const g = build(
      { id: 'a', node: one, dependsOn: ['a', 'q'], links: { h: ['q', 'a'] }, timeoutMs: -1 },
      { id: 'b', node: one, dependsOn: ['c', 'c'] },
      { id: 'c', node: one, dependsOn: ['b'] },
      { id: '', nodeRef: 'x y', node: one, input: 1, inputFn: () => 1 } as unknown as StepSpec,
      { id: 'm' } as StepSpec,
    )
    const lines = errorsOf(g).map(showGraphError)
    expect(lines).toEqual([
      'step "a": timeoutMs must be a finite number > 0, got -1',
      'step "a": depends on itself',
      'step "a": depends on "q", which the graph does not have',
      'step "a": links "h" to "q", which the graph does not have',
      'step "a": links "h" to itself',
      'step "b": depends on "c" twice',
      'step "" (#3): the id is empty',
      'step "": has both node and nodeRef',
      expect.stringMatching(/^step "": nodeRef "x y" contains " "/) as string,
      'step "": has both input and inputFn',
      'step "m": has neither node nor nodeRef',
      'the graph: has a dependency cycle "b" → "c" → "b"',
    ])
  })

  it('validates a 10⁵-step cycle without deep recursion', () => {
    const n = 100_000
    let g = graph('ring')
    for (let i = 0; i < n; i++) {
      g = addStep({ id: `s${i}`, node: one, dependsOn: [`s${(i + 1) % n}`] })(g)
    }
    const errors = errorsOf(g)
    expect(errors).toHaveLength(1)
    const cycle = (errors[0] as { cycle: readonly string[] }).cycle
    expect(cycle).toHaveLength(n + 1)
    expect([cycle[0], cycle[1], cycle[n]]).toEqual(['s0', 's1', 's0'])
  })
})

describe('executionOrder', () => {
  it('puts dependencies first and breaks ties by insertion order', () => {
    const g = build(
      { id: 'd', node: one, dependsOn: ['b', 'c'] },
      { id: 'c', node: one },
      { id: 'b', node: one, dependsOn: ['a'] },
      { id: 'a', node: one },
      { id: 'e', node: one },
    )
    expect(executionOrder(g)).toEqual(E.right(['c', 'a', 'b', 'd', 'e']))
  })

  it('keeps insertion order when nothing constrains it', () => {
    const g = build({ id: 'z', node: one }, { id: 'y', node: one }, { id: 'x', node: one })
    expect(executionOrder(g)).toEqual(E.right(['z', 'y', 'x']))
  })

  it('returns the errors of validate for an invalid graph', () => {
    const g = build({ id: 'a', node: one, dependsOn: ['a'] })
    expect(executionOrder(g)).toEqual(E.left([{ _tag: 'SelfDependency', path: ['a'] }]))
  })

  it('follows chain', () => {
    const g = pipe(
      build({ id: 'c', node: one }, { id: 'b', node: one }, { id: 'a', node: one }),
      chain('a', 'b', 'c'),
    )
    expect(executionOrder(g)).toEqual(E.right(['a', 'b', 'c']))
  })
})

describe('compile', () => {
  it('indexes steps and both directions of the dependency relation', () => {
    const g = build(
      { id: 'c', node: one, dependsOn: ['b', 'a'] },
      { id: 'a', node: one },
      { id: 'b', node: one, dependsOn: ['a'] },
    )
    const c = compile(g)
    if (E.isLeft(c)) throw new Error('expected a valid graph')
    const rows = (adj: { offsets: ArrayLike<number>; targets: ArrayLike<number> }) =>
      [0, 1, 2].map((i) =>
        Array.from(
          { length: adj.offsets[i + 1]! - adj.offsets[i]! },
          (_, k) => adj.targets[adj.offsets[i]! + k],
        ),
      )
    expect(c.right.ids).toEqual(['c', 'a', 'b'])
    expect(Array.from(c.right.order)).toEqual([1, 2, 0])
    expect(rows(c.right.dependencies)).toEqual([[2, 1], [], [1]])
    expect(rows(c.right.dependents)).toEqual([[], [0, 2], [0]])
    expect(c.right.indexOf('b')).toBe(2)
    expect(c.right.indexOf('nope')).toBe(-1)
    expect(compile(g)).toBe(c)
  })
})

/** Random dependency lists over steps 0..n-1 (cycles allowed, self-dependencies not). */
const depLists = fc
  .integer({ min: 1, max: 9 })
  .chain((n) =>
    fc.array(fc.uniqueArray(fc.nat(n - 1), { maxLength: 3 }), { minLength: n, maxLength: n }),
  )
  .map((lists) => lists.map((deps, i) => deps.filter((d) => d !== i)))

/** Random acyclic dependency lists, numbered in a random order (so often not topologically). */
const dagLists = fc
  .integer({ min: 1, max: 12 })
  .chain((n) =>
    fc.tuple(
      fc.tuple(
        ...Array.from({ length: n }, (_, i) =>
          i === 0 ? fc.constant<number[]>([]) : fc.uniqueArray(fc.nat(i - 1), { maxLength: 3 }),
        ),
      ),
      fc.shuffledSubarray(
        Array.from({ length: n }, (_, i) => i),
        { minLength: n, maxLength: n },
      ),
    ),
  )
  .map(([lists, perm]) => {
    const out: number[][] = lists.map(() => [])
    lists.forEach((deps, i) => (out[perm[i]!] = deps.map((d) => perm[d]!)))
    return out
  })

const graphOf = (lists: readonly (readonly number[])[]): Graph =>
  build(
    ...lists.map((deps, i) => ({ id: `n${i}`, node: one, dependsOn: deps.map((d) => `n${d}`) })),
  )

/** The reference: plain recursive depth-first search with three colours. */
const hasCycle = (lists: readonly (readonly number[])[]): boolean => {
  const colour = lists.map(() => 0)
  const visit = (v: number): boolean => {
    colour[v] = 1
    for (const w of lists[v]!) {
      if (colour[w] === 1 || (colour[w] === 0 && visit(w))) return true
    }
    colour[v] = 2
    return false
  }
  return lists.some((_, v) => colour[v] === 0 && visit(v))
}

/** The reference order: repeatedly take the first inserted step whose dependencies are done. */
const referenceOrder = (lists: readonly (readonly number[])[]): string[] => {
  const done = new Set<number>()
  const order: string[] = []
  while (order.length < lists.length) {
    const next = lists.findIndex((deps, i) => !done.has(i) && deps.every((d) => done.has(d)))
    done.add(next)
    order.push(`n${next}`)
  }
  return order
}

describe('laws', () => {
  it('executionOrder equals the reference order (first inserted ready step first)', () => {
    fc.assert(
      fc.property(dagLists, (lists) => {
        expect(executionOrder(graphOf(lists))).toEqual(E.right(referenceOrder(lists)))
      }),
    )
  })

  it('validate reports a cycle iff a reference depth-first search finds one', () => {
    fc.assert(
      fc.property(depLists, (lists) => {
        const cycles = errorsOf(graphOf(lists)).filter((e) => e._tag === 'Cycle')
        expect(cycles.length > 0).toBe(hasCycle(lists))
        for (const c of cycles) {
          // Each reported cycle is real: every step depends on the next.
          const ids = c.cycle
          expect(ids[0]).toBe(ids[ids.length - 1])
          for (let k = 0; k + 1 < ids.length; k++) {
            const from = Number(ids[k]!.slice(1))
            expect(lists[from]).toContain(Number(ids[k + 1]!.slice(1)))
          }
        }
      }),
    )
  })

  it('executionOrder puts every dependency first, lists each step once and is deterministic', () => {
    fc.assert(
      fc.property(depLists, (lists) => {
        const g = graphOf(lists)
        const order = executionOrder(g)
        expect(E.isRight(order)).toBe(!hasCycle(lists))
        if (E.isLeft(order)) return
        const at = new Map(order.right.map((id, k) => [id, k]))
        expect(at.size).toBe(lists.length)
        lists.forEach((deps, i) => {
          for (const d of deps) expect(at.get(`n${d}`)!).toBeLessThan(at.get(`n${i}`)!)
        })
        expect(executionOrder(graphOf(lists))).toEqual(order)
        // Ties go to insertion order: no step could have gone before the one before it.
        for (let k = 1; k < order.right.length; k++) {
          const prev = Number(order.right[k - 1]!.slice(1))
          const here = Number(order.right[k]!.slice(1))
          if (here < prev) {
            const ready = lists[here]!.every((d) => at.get(`n${d}`)! < k - 1)
            expect(ready).toBe(false)
          }
        }
      }),
    )
  })
})
