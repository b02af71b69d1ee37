import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { kahnOrder, prng, randomDag, shuffle, type Rows } from '../../bench/randomDag.js'

const rows = (lists: readonly (readonly number[])[]): Rows => {
  const offsets = new Int32Array(lists.length + 1)
  lists.forEach((l, i) => (offsets[i + 1] = offsets[i]! + l.length))
  return { offsets, targets: Int32Array.from(lists.flat()) }
}

/** Whether `order` has every node once, each after its dependencies. */
const isTopological = (n: number, deps: Rows, order: Int32Array): boolean => {
  const position = new Int32Array(n).fill(-1)
  order.forEach((v, k) => (position[v] = k))
  if (order.length !== n || position.includes(-1)) return false
  for (let i = 0; i < n; i++) {
    for (let k = deps.offsets[i]!; k < deps.offsets[i + 1]!; k++) {
      if (position[deps.targets[k]!]! > position[i]!) return false
    }
  }
  return true
}

describe('prng', () => {
  it('gives the same sequence for the same seed, within [0, 1)', () => {
    const a = prng(7)
    const b = prng(7)
    const xs = Array.from({ length: 100 }, () => a())
    expect(xs).toEqual(Array.from({ length: 100 }, () => b()))
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true)
    expect(new Set(xs).size).toBe(100)
  })
})

describe('randomDag', () => {
  it('gives node i min(perNode, i) distinct dependencies, all earlier', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer(),
        (n, per, seed) => {
          const dag = randomDag(n, per, seed)
          expect(dag.offsets.length).toBe(n + 1)
          for (let i = 0; i < n; i++) {
            const mine = Array.from(dag.targets.subarray(dag.offsets[i], dag.offsets[i + 1]))
            expect(mine.length).toBe(Math.min(per, i))
            expect(new Set(mine).size).toBe(mine.length)
            expect(mine.every((j) => j >= 0 && j < i)).toBe(true)
          }
        },
      ),
    )
  })

  it('is the same for the same seed', () => {
    expect(randomDag(50, 3, 1)).toEqual(randomDag(50, 3, 1))
  })
})

describe('kahnOrder', () => {
  it('orders any random DAG topologically, whatever the node numbering', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer(), (n, seed) => {
        const dag = randomDag(n, 3, seed)
        const perm = shuffle(n, seed)
        // Renumber node i as perm[i], so dependencies may come after dependents.
        const lists: number[][] = Array.from({ length: n }, () => [])
        for (let i = 0; i < n; i++) {
          for (let k = dag.offsets[i]!; k < dag.offsets[i + 1]!; k++) {
            lists[perm[i]!]!.push(perm[dag.targets[k]!]!)
          }
        }
        const deps = rows(lists)
        const order = kahnOrder(n, deps)
        expect(order !== undefined && isTopological(n, deps, order)).toBe(true)
      }),
    )
  })

  it('finds no order when there is a cycle', () => {
    expect(kahnOrder(3, rows([[2], [0], [1]]))).toBeUndefined()
    expect(kahnOrder(2, rows([[], [1]]))).toBeUndefined()
  })
})

describe('shuffle', () => {
  it('is a permutation', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), fc.integer(), (n, seed) => {
        expect(Array.from(shuffle(n, seed)).sort((a, b) => a - b)).toEqual(
          Array.from({ length: n }, (_, i) => i),
        )
      }),
    )
  })
})
