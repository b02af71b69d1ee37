import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import {
  ancestors,
  ancestorsOfAll,
  fold,
  heads,
  lowestCommonAncestor,
} from '../../src/dag/traverse.js'
import { child, merge, root, vertex, type Vertex } from '../../src/dag/Vertex.js'

/**
 * Small DAGs: vertex i has up to three distinct parents among 0..i-1 (none
 * for a root). Returned in build order.
 */
const dag: fc.Arbitrary<readonly Vertex<number>[]> = fc
  .array(fc.array(fc.nat(), { maxLength: 3 }), { minLength: 1, maxLength: 24 })
  .map((plan) => {
    const vs: Vertex<number>[] = []
    plan.forEach((picks, i) => {
      const parents = i === 0 ? [] : [...new Set(picks.map((p) => vs[p % i]!))]
      vs.push(vertex(parents, i))
    })
    return vs
  })

/** A DAG and some of its vertices (with repeats). */
const dagAndPicks = dag.chain((vs) =>
  fc.tuple(
    fc.constant(vs),
    fc.array(
      fc.nat({ max: vs.length - 1 }).map((i) => vs[i]!),
      { minLength: 1, maxLength: 5 },
    ),
  ),
)

/** The reference: a recursive depth-first walk, parents in listed order, post-order. */
const referenceAncestorsOfAll = <T>(vs: readonly Vertex<T>[]): Vertex<T>[] => {
  const out: Vertex<T>[] = []
  const seen = new Set<Vertex<T>>()
  const visit = (v: Vertex<T>): void => {
    if (seen.has(v)) return
    seen.add(v)
    v.parents.forEach(visit)
    out.push(v)
  }
  vs.forEach(visit)
  return out
}

const isAncestorOrSelf = <T>(a: Vertex<T>, of: Vertex<T>): boolean => ancestors(of).includes(a)

describe('ancestors', () => {
  it('lists a chain from the root to the vertex', () => {
    const a = root('a')
    const b = pipe(a, child('b'))
    const c = pipe(b, child('c'))
    expect(ancestors(c)).toEqual([a, b, c])
    expect(ancestors(a)).toEqual([a])
  })

  it('lists a diamond once per vertex, the first parent first', () => {
    const a = root('a')
    const b = pipe(a, child('b'))
    const c = pipe(a, child('c'))
    expect(ancestors(pipe([c, b], merge('m'))).map((v) => v.data)).toEqual(['a', 'c', 'b', 'm'])
    expect(ancestors(pipe([b, c], merge('m'))).map((v) => v.data)).toEqual(['a', 'b', 'c', 'm'])
  })

  it('lists a parent that is also an ancestor of an earlier parent where that parent needs it', () => {
    const a = root('a')
    const b = pipe(a, child('b'))
    // a is listed second but is an ancestor of b, so it comes first
    expect(ancestors(pipe([b, a], merge('m'))).map((v) => v.data)).toEqual(['a', 'b', 'm'])
  })

  it('matches a recursive reference walk (ancestors order law)', () => {
    fc.assert(
      fc.property(dag, (vs) => {
        for (const v of vs) expect(ancestors(v)).toEqual(referenceAncestorsOfAll([v]))
      }),
    )
  })

  it('lists each vertex once, parents before children, ending with the vertex (ancestors order law)', () => {
    fc.assert(
      fc.property(dag, (vs) => {
        for (const v of vs) {
          const order = ancestors(v)
          const index = new Map(order.map((x, i) => [x, i]))
          expect(index.size).toBe(order.length)
          expect(order[order.length - 1]).toBe(v)
          for (const x of order) {
            for (const p of x.parents) expect(index.get(p)!).toBeLessThan(index.get(x)!)
          }
        }
      }),
    )
  })

  it("keeps a vertex's parents in listed order unless an earlier parent needs a later one (ancestors order law)", () => {
    fc.assert(
      fc.property(dag, (vs) => {
        for (const v of vs) {
          const order = ancestors(v)
          v.parents.forEach((later, j) => {
            const neededEarlier = v.parents.slice(0, j).some((p) => isAncestorOrSelf(later, p))
            if (neededEarlier) return
            for (const earlier of v.parents.slice(0, j)) {
              expect(order.indexOf(earlier)).toBeLessThan(order.indexOf(later))
            }
          })
        }
      }),
    )
  })

  it('contains exactly the vertices reachable through parents', () => {
    fc.assert(
      fc.property(dag, (vs) => {
        const v = vs[vs.length - 1]!
        const reachable = new Set<Vertex<number>>()
        const stack = [v]
        while (stack.length > 0) {
          const x = stack.pop()!
          if (reachable.has(x)) continue
          reachable.add(x)
          stack.push(...x.parents)
        }
        expect(new Set(ancestors(v))).toEqual(reachable)
      }),
    )
  })
})

describe('ancestorsOfAll', () => {
  it('lists the first vertex history first, then what the others add', () => {
    const a = root('a')
    const b = pipe(a, child('b'))
    const c = pipe(a, child('c'))
    expect(ancestorsOfAll([c, b]).map((v) => v.data)).toEqual(['a', 'c', 'b'])
    expect(ancestorsOfAll([])).toEqual([])
  })

  it('matches the recursive reference walk over several starts', () => {
    fc.assert(
      fc.property(dagAndPicks, ([, picks]) => {
        expect(ancestorsOfAll(picks)).toEqual(referenceAncestorsOfAll(picks))
      }),
    )
  })
})

/** The walk with one plain array as its stack: the reference for DAGs too deep to recurse. */
const stackAncestorsOfAll = <T>(vs: readonly Vertex<T>[]): Vertex<T>[] => {
  const out: Vertex<T>[] = []
  const seen = new Set<Vertex<T>>()
  const stack: [Vertex<T>, number][] = []
  for (const v of vs) {
    if (seen.has(v)) continue
    seen.add(v)
    stack.push([v, 0])
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!
      const p = frame[0].parents[frame[1]++]
      if (p === undefined) out.push(stack.pop()![0])
      else if (!seen.has(p)) {
        seen.add(p)
        stack.push([p, 0])
      }
    }
  }
  return out
}

/**
 * A spine of several thousand vertices (deeper than one chunk of the walk's
 * stack) with side vertices that merge random earlier ones, and some starts.
 */
const deepDagAndPicks = fc
  .tuple(
    fc.integer({ min: 4000, max: 9000 }),
    fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: 40 }),
    fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
  )
  .map(([length, sides, picks]) => {
    const vs: Vertex<number>[] = [root(0)]
    for (let i = 1; i < length; i++) {
      const side = sides.find(([at]) => at % length === i)
      const parents =
        side === undefined ? [vs[i - 1]!] : [vs[i - 1]!, vs[side[1] % i]!, vs[side[2] % i]!]
      vs.push(vertex([...new Set(parents)], i))
    }
    return picks.map((p) => vs[vs.length - 1 - (p % vs.length)]!)
  })

describe('ancestorsOfAll on deep DAGs', () => {
  it('matches a plain-stack walk on DAGs thousands of vertices deep, with merges', () => {
    fc.assert(
      fc.property(deepDagAndPicks, (picks) => {
        expect(ancestorsOfAll(picks)).toEqual(stackAncestorsOfAll(picks))
      }),
      { numRuns: 30 },
    )
  })
})

describe('fold', () => {
  it('visits the ancestors in causal order', () => {
    fc.assert(
      fc.property(dag, (vs) => {
        const v = vs[vs.length - 1]!
        const visited = pipe(
          v,
          fold<number, number[]>([], (acc, x) => [...acc, x.data]),
        )
        expect(visited).toEqual(ancestors(v).map((x) => x.data))
      }),
    )
  })
})

describe('heads', () => {
  it('drops ancestors and repeats, keeping the given order', () => {
    const a = root('a')
    const b = pipe(a, child('b'))
    const c = pipe(a, child('c'))
    expect(heads([a, b, c, b])).toEqual([b, c])
    expect(heads([c, a, b])).toEqual([c, b])
    expect(heads([])).toEqual([])
  })

  it('no returned head is an ancestor of another; every input is an ancestor-or-self of a head (heads law)', () => {
    fc.assert(
      fc.property(dagAndPicks, ([, picks]) => {
        const hs = heads(picks)
        expect(new Set(hs).size).toBe(hs.length)
        for (const h of hs) {
          for (const other of hs) if (other !== h) expect(isAncestorOrSelf(h, other)).toBe(false)
        }
        for (const p of picks) expect(hs.some((h) => isAncestorOrSelf(p, h))).toBe(true)
      }),
    )
  })

  it('returns the inputs that are not an ancestor of another input, in given order (heads law)', () => {
    fc.assert(
      fc.property(dagAndPicks, ([, picks]) => {
        const expected: Vertex<number>[] = []
        for (const p of picks) {
          const below = picks.some((q) => q !== p && isAncestorOrSelf(p, q))
          if (!below && !expected.includes(p)) expected.push(p)
        }
        expect(heads(picks)).toEqual(expected)
      }),
    )
  })
})

describe('lowestCommonAncestor', () => {
  it('finds the fork point of two branches, or none', () => {
    const a = root('a')
    const b = pipe(a, child('b'))
    const c = pipe(b, child('c'))
    const d = pipe(b, child('d'))
    expect(lowestCommonAncestor(c, d)).toEqual(O.some(b))
    expect(lowestCommonAncestor(c, b)).toEqual(O.some(b))
    expect(lowestCommonAncestor(c, c)).toEqual(O.some(c))
    expect(lowestCommonAncestor(c, root('x'))).toEqual(O.none)
  })

  it('picks the one latest in the first argument history after a criss-cross merge', () => {
    const a = root('a')
    const x = pipe(a, child('x'))
    const y = pipe(a, child('y'))
    const m1 = pipe([x, y], merge('m1'))
    const m2 = pipe([y, x], merge('m2'))
    // x and y are both lowest common ancestors of m1 and m2
    expect(lowestCommonAncestor(m1, m2)).toEqual(O.some(y))
    expect(lowestCommonAncestor(m2, m1)).toEqual(O.some(x))
  })

  it('returns a common ancestor that no other common ancestor descends from (lowest common ancestor law)', () => {
    fc.assert(
      fc.property(dagAndPicks, ([vs, picks]) => {
        const a = picks[0]!
        const b = picks[picks.length - 1]!
        const common = vs.filter((v) => isAncestorOrSelf(v, a) && isAncestorOrSelf(v, b))
        const lowest = common.filter((v) => !common.some((w) => w !== v && isAncestorOrSelf(v, w)))
        const found = lowestCommonAncestor(a, b)
        if (common.length === 0) {
          expect(found).toEqual(O.none)
          return
        }
        expect(O.isSome(found)).toBe(true)
        if (O.isNone(found)) return
        expect(lowest).toContain(found.value)
        // among several lowest ones, the latest in a's causal order
        const order = ancestors(a)
        const latest = Math.max(...lowest.map((v) => order.indexOf(v)))
        expect(found.value).toBe(order[latest])
      }),
    )
  })
})

describe('a chain of a million vertices', () => {
  it('has ancestors, an id at its tip and a common ancestor without overflowing the stack', () => {
    const first = root(0)
    let tip = first
    for (let i = 1; i < 1_000_000; i++) tip = vertex([tip], i)
    const all = ancestors(tip)
    expect(all.length).toBe(1_000_000)
    expect(all[0]).toBe(first)
    expect(all[all.length - 1]).toBe(tip)
    expect(tip.id).toMatch(/^[0-9a-f]{16}$/)
    expect(all[500_000]!.hasId).toBe(true)
    expect(lowestCommonAncestor(tip, first)).toEqual(O.some(first))
  }, 120_000)
})
