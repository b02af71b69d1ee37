import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { child, isVertex, merge, root, vertex, type Vertex } from '../../src/dag/Vertex.js'

/** JSON as JSON.parse gives it (no -0, plain objects). */
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown)

/** The same value with the keys of every object in reverse order. */
const reverseKeys = (u: unknown): unknown => {
  if (Array.isArray(u)) return u.map(reverseKeys)
  if (typeof u !== 'object' || u === null) return u
  // fromEntries defines own properties, so a '__proto__' key stays a key
  return Object.fromEntries(
    Object.entries(u)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  )
}

describe('vertex', () => {
  it('freezes the vertex, its parents, its data and its meta deeply', () => {
    const a = root('a')
    const data = { list: [{ n: 1 }] }
    const meta = { provider: { name: 'p' } }
    const v = vertex([a], data as unknown as string, { meta })
    expect(Object.isFrozen(v)).toBe(true)
    expect(Object.isFrozen(v.parents)).toBe(true)
    expect(Object.isFrozen(data.list[0])).toBe(true)
    expect(Object.isFrozen(meta.provider)).toBe(true)
    expect(() => {
      ;(v as { data: unknown }).data = 'b'
    }).toThrow(TypeError)
  })

  it('copies a mutable parents array instead of freezing it', () => {
    const a = root('a')
    const parents = [a]
    const v = vertex(parents, 'b')
    expect(Object.isFrozen(parents)).toBe(false)
    parents.push(root('x'))
    expect(v.parents).toEqual([a])
  })

  it('keeps a frozen parents array of a merge as it is', () => {
    const parents = Object.freeze([root('a'), root('b')])
    expect(vertex(parents, 'm').parents).toBe(parents)
  })

  it('makes the tuple of a single parent once, frozen', () => {
    const a = root('a')
    const b = vertex([a], 'b')
    expect(b.parents).toEqual([a])
    expect(b.parents).toBe(b.parents)
    expect(Object.isFrozen(b.parents)).toBe(true)
  })

  it('gives a root an empty frozen parents array and empty frozen meta', () => {
    const r = root(1)
    expect(r.parents).toEqual([])
    expect(Object.isFrozen(r.parents)).toBe(true)
    expect(r.meta).toEqual({})
    expect(Object.isFrozen(r.meta)).toBe(true)
  })

  it('throws a UsageError naming the index of a parent that is not a vertex', () => {
    expect(() => vertex([root('a'), { id: 'x' } as unknown as Vertex<string>], 'b')).toThrow(
      /vertex\(\): parents\[1\] is not a Vertex/,
    )
    expect(() => vertex([null as unknown as Vertex<string>], 'b')).toThrow(UsageError)
  })

  it('throws a UsageError for an empty or non-string given id', () => {
    expect(() => root('a', { id: '' })).toThrow(/non-empty string, got ""/)
    expect(() => root('a', { id: 3 as unknown as string })).toThrow(UsageError)
  })

  it('computes a derived id on first read and remembers it', () => {
    const v = root('a')
    expect(v.hasId).toBe(false)
    expect(v.id).toMatch(/^[0-9a-f]{16}$/)
    expect(v.hasId).toBe(true)
    expect(v.id).toBe(v.id)
  })

  it('knows a given id at once', () => {
    expect(root('a', { id: 'given' }).hasId).toBe(true)
  })

  it('turns into JSON with the ids of its parents', () => {
    const a = root('a', { id: 'A' })
    const b = pipe(a, child('b', { id: 'B', meta: { t: 1 } }))
    expect(JSON.parse(JSON.stringify(b))).toEqual({
      id: 'B',
      parents: ['A'],
      data: 'b',
      meta: { t: 1 },
    })
  })
})

describe('root, child and merge', () => {
  it('link a child to its one parent', () => {
    const a = root('a')
    const b = pipe(a, child('b'))
    expect(b.parents).toEqual([a])
    expect(b.parents[0]).toBe(a)
    expect(b.data).toBe('b')
  })

  it('keep the order of merged parents', () => {
    const a = root('a')
    const b = root('b')
    const m = pipe([b, a], merge('m'))
    expect(m.parents[0]).toBe(b)
    expect(m.parents[1]).toBe(a)
  })

  it('refuse to merge no parents', () => {
    expect(() => pipe([], merge('m'))).toThrow(/merge\(\): needs at least one parent/)
  })

  it('recognise vertices and nothing else', () => {
    expect(isVertex(root(1))).toBe(true)
    expect(isVertex({ id: 'x', parents: [], data: 1, meta: {} })).toBe(false)
    expect(isVertex(null)).toBe(false)
  })
})

describe('ids', () => {
  it('same data and parents give the same id', () => {
    fc.assert(
      fc.property(json, json, (parentData, data) => {
        const p1 = root(structuredClone(parentData))
        const p2 = root(structuredClone(parentData))
        expect(vertex([p1], structuredClone(data)).id).toBe(vertex([p2], structuredClone(data)).id)
      }),
    )
  })

  it('key order in data does not change the id', () => {
    fc.assert(
      fc.property(json, (data) => {
        expect(root(reverseKeys(data)).id).toBe(root(data).id)
      }),
    )
  })

  it('keys whose value is undefined do not change the id, as in JSON', () => {
    expect(root({ a: 1, b: undefined }).id).toBe(root({ a: 1 }).id)
  })

  it('a given id is kept, and children hash it like any other id', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), json, (id, data) => {
        const given = root(data, { id })
        expect(given.id).toBe(id)
        const onGiven = pipe(given, child<unknown>('c'))
        const onSameId = pipe(root<unknown>('other data', { id }), child<unknown>('c'))
        expect(onGiven.id).toBe(onSameId.id)
      }),
    )
  })

  it('changing one character of data changes the id', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1 }),
        fc.nat(),
        fc.integer({ min: 1, max: 0xffff }),
        (s, at, delta) => {
          const i = at % s.length
          const changed =
            s.slice(0, i) +
            String.fromCharCode((s.charCodeAt(i) + delta) % 0x10000) +
            s.slice(i + 1)
          expect(root(changed).id).not.toBe(root(s).id)
          expect(root({ text: changed }).id).not.toBe(root({ text: s }).id)
        },
      ),
    )
  })

  it('the same data on parents with different ids gives different ids', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), json, (a, b, data) => {
        fc.pre(a !== b)
        const pa = root(a)
        const pb = root(b)
        fc.pre(pa.id !== pb.id)
        expect(vertex([pa], data).id).not.toBe(vertex([pb], structuredClone(data)).id)
      }),
    )
  })

  it('meta does not take part in the id', () => {
    expect(root('a', { meta: { t: 1 } }).id).toBe(root('a', { meta: { t: 2 } }).id)
  })

  it('the order of merged parents takes part in the id', () => {
    const a = root('a')
    const b = root('b')
    expect(pipe([a, b], merge('m')).id).not.toBe(pipe([b, a], merge('m')).id)
  })

  it('a vertex nested in data is hashed by its id', () => {
    const x = root('x')
    const y = root('x')
    expect(root({ sub: [x] }).id).toBe(root({ sub: [y] }).id)
    expect(root({ sub: [x] }).id).not.toBe(root({ sub: [root('z')] }).id)
  })
})
