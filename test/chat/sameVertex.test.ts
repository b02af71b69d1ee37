import * as fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { vertex, type Vertex } from '../../src/index.js'
import { sameVertex } from '../../src/chat/sameVertex.js'

/** The same value rebuilt: object keys in reverse order, `undefined` values added or dropped. */
const rebuilt = (u: unknown, salt: boolean): unknown => {
  if (Array.isArray(u)) return u.map((x) => rebuilt(x, salt))
  if (typeof u === 'number' && u === 0) return salt ? -0 : 0
  if (typeof u !== 'object' || u === null) return u
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(u).reverse()) {
    const v = (u as Record<string, unknown>)[k]
    if (v !== undefined) out[k] = rebuilt(v, salt)
  }
  if (salt) out.absent = undefined
  return out
}

const data = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<unknown>(0, -0, 1, '1', true, null, [], {}, { a: undefined }, [0], ['0']),
)

/** A chain of fresh vertices, each on the one before, from `base`. */
const chain = (base: Vertex<unknown>, items: readonly unknown[]): Vertex<unknown> =>
  items.reduce<Vertex<unknown>>((v, d) => vertex([v], d), base)

describe('sameVertex (law)', () => {
  it('agrees with comparing ids, for vertices whose ids are not known yet', () => {
    fc.assert(
      fc.property(
        data,
        fc.array(data, { maxLength: 4 }),
        fc.array(data, { maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (shared, left, right, copy, salt, nested) => {
          const base = vertex([], shared)
          const items = copy ? left : right
          const a = chain(base, nested ? left.map((d) => ({ d, v: base })) : left)
          const b = chain(
            base,
            (nested ? items.map((d) => ({ d, v: vertex([], shared) })) : items).map((d) =>
              rebuilt(d, salt),
            ),
          )
          // Neither head's id is known here: the answer comes without hashing them.
          expect([a.hasId, b.hasId]).toEqual([false, false])
          const same = sameVertex(a, b)
          expect(same).toBe(a.id === b.id)
          // Once known, ids decide, and the answer stays the same.
          expect(sameVertex(a, b)).toBe(same)
        },
      ),
    )
  })

  it('walks a long chain of fresh vertices without deep recursion', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ i }))
    const a = chain(vertex([], 'r'), items)
    const b = chain(vertex([], 'r'), items)
    expect(sameVertex(a, b)).toBe(true)
    expect(sameVertex(a, chain(vertex([], 'r'), [...items.slice(0, -1), { i: -1 }]))).toBe(false)
  })
})
