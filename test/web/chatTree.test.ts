/**
 * A chat's tree as the dashboard holds and draws it (src/web/chatTree.ts):
 * parts merged by id, and a big tree folded to a bounded drawing that keeps
 * the heads and their paths, every vertex either drawn or in one fold.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { foldTree, mergeTree } from '../../src/web/chatTree.js'
import type { VertexJson } from '../../src/web/vertexJson.js'

const vertex = (id: string, parents: readonly string[]): VertexJson => ({
  id,
  parents,
  data: { type: 'message', role: 'user', content: id },
})

/** A tree whose i-th vertex is a child of vertex `parents[i]` (one before it), or a root (-1); its heads are its leaves. */
const treeOf = (parents: readonly number[]) => {
  const vertices = parents.map((p, i) => vertex(`v${i}`, p < 0 ? [] : [`v${p}`]))
  const used = new Set(vertices.flatMap((v) => v.parents))
  return { vertices, heads: vertices.filter((v) => !used.has(v.id)).map((v) => v.id) }
}

/** Long chains with a few branches (some of them retries of the first messages) and now and then a new root: the shape of a chat. */
const chats = fc
  .array(fc.nat(), { minLength: 1, maxLength: 300 })
  .map((picks) =>
    treeOf(
      picks.map((p, i) =>
        i === 0 || p % 40 === 1
          ? -1
          : p % 8 === 0
            ? p % i
            : p % 8 === 1
              ? p % Math.min(i, 3)
              : i - 1,
      ),
    ),
  )

/** Whether the graph drawn (vertices and folds, with their edges) has no cycle. */
const acyclic = (
  ids: readonly string[],
  edges: readonly (readonly [string, string])[],
): boolean => {
  const out = new Map(ids.map((id) => [id, [] as string[]]))
  for (const [a, b] of edges) out.get(a)!.push(b)
  const state = new Map<string, 1 | 2>()
  const visit = (id: string): boolean => {
    if (state.get(id) === 2) return true
    if (state.get(id) === 1) return false
    state.set(id, 1)
    const ok = out.get(id)!.every(visit)
    state.set(id, 2)
    return ok
  }
  return ids.every(visit)
}

describe("a chat's tree on the dashboard", () => {
  it('grows by the parts read since: new vertices appended once, the heads taken', () => {
    const whole = { heads: ['b'], vertices: [vertex('a', []), vertex('b', ['a'])] }
    const held = mergeTree(undefined, whole)
    expect(held).toEqual(whole)
    const part = { heads: ['b', 'c'], vertices: [vertex('b', ['a']), vertex('c', ['a'])] }
    const grown = mergeTree(held, part)
    expect(grown.heads).toEqual(['b', 'c'])
    expect(grown.vertices.map((v) => v.id)).toEqual(['a', 'b', 'c'])
  })

  it('draws a tree within the limit whole', () => {
    const { vertices, heads } = treeOf([0, 0, 1, 1])
    expect(foldTree(vertices, { heads, limit: 4 })).toEqual({ shown: vertices, folds: [] })
  })

  it('over the limit, draws at most the limit, the heads and where their paths begin and fork; every other vertex is in one fold', () => {
    fc.assert(
      fc.property(chats, fc.integer({ min: 8, max: 80 }), fc.nat(), (tree, limit, c) => {
        const { vertices, heads } = tree
        const current = heads[c % heads.length]!
        const { shown, folds } = foldTree(vertices, { heads, current, limit })
        const drawn = new Set(shown.map((v) => v.id))
        expect(drawn.size).toBe(Math.min(limit, vertices.length))
        // Each vertex drawn or folded, once.
        const folded = folds.flatMap((f) => f.ids)
        expect(new Set(folded).size).toBe(folded.length)
        expect([...drawn, ...folded].sort()).toEqual(vertices.map((v) => v.id).sort())
        // The current head and as many others as a quarter of the limit allows.
        expect(drawn.has(current)).toBe(true)
        const headsDrawn = heads.filter((h) => drawn.has(h)).length
        expect(headsDrawn).toBeGreaterThanOrEqual(Math.min(heads.length, Math.floor(limit / 4)))
        // A fold's edges are those of its vertices to vertices drawn; the drawing has no cycle.
        const byId = new Map(vertices.map((v) => [v.id, v]))
        for (const f of folds) {
          const inside = new Set(f.ids)
          expect(f.from.every((p) => drawn.has(p))).toBe(true)
          expect(new Set(f.from)).toEqual(
            new Set(f.ids.flatMap((id) => byId.get(id)!.parents.filter((p) => drawn.has(p)))),
          )
          expect(new Set(f.to)).toEqual(
            new Set(shown.filter((v) => v.parents.some((p) => inside.has(p))).map((v) => v.id)),
          )
        }
        const edges = [
          ...shown.flatMap((v) =>
            v.parents.filter((p) => drawn.has(p)).map((p) => [p, v.id] as const),
          ),
          ...folds.flatMap((f) => [
            ...f.from.map((p) => [p, f.id] as const),
            ...f.to.map((t) => [f.id, t] as const),
          ]),
        ]
        expect(acyclic([...drawn, ...folds.map((f) => f.id)], edges)).toBe(true)
        // Bounded: a fold hangs under one vertex drawn, its own, or holds the roots.
        const under = folds.flatMap((f) => (f.from.length === 0 ? [''] : f.from))
        expect(new Set(under).size).toBe(under.length)
        expect(folds.length).toBeLessThanOrEqual(drawn.size + 1)
      }),
      { numRuns: 200 },
    )
  })

  it('draws a long current branch near its head, its root, and each branch back to its fork; unfolds a fold clicked', () => {
    // A chain of 1000, with a branch of 20 forking at 500 and one of 5 at 990.
    const vertices = Array.from({ length: 1000 }, (_, i) =>
      vertex(`m${i}`, i === 0 ? [] : [`m${i - 1}`]),
    )
    for (let i = 0; i < 20; i++) vertices.push(vertex(`a${i}`, [i === 0 ? 'm500' : `a${i - 1}`]))
    for (let i = 0; i < 5; i++) vertices.push(vertex(`b${i}`, [i === 0 ? 'm990' : `b${i - 1}`]))
    const heads = ['a19', 'b4', 'm999']
    const { shown, folds } = foldTree(vertices, { heads, current: 'm999', limit: 100 })
    const drawn = new Set(shown.map((v) => v.id))
    for (const id of ['m999', 'm998', 'm0', 'a19', 'a0', 'm500', 'b4', 'b0', 'm990'])
      expect(drawn.has(id), id).toBe(true)
    // Every branch whole (they are short); the rest of the limit goes to the current branch from its head.
    for (let i = 0; i < 20; i++) expect(drawn.has(`a${i}`)).toBe(true)
    for (let i = 999; i > 999 - 60; i--) expect(drawn.has(`m${i}`), `m${i}`).toBe(true)
    // The current branch's middle is folded, on both sides of the fork it holds.
    const middle = folds.find((f) => f.ids.includes('m100'))!
    expect(middle.from).toEqual(['m0'])
    expect(middle.to).toEqual(['m500'])

    const unfolded = foldTree(vertices, {
      heads,
      current: 'm999',
      limit: 100,
      unfolded: [middle.ids],
    })
    const now = new Set(unfolded.shown.map((v) => v.id))
    expect(now.size).toBe(100)
    // Unfolded from the end nearest the heads, within the limit.
    expect(now.has('m499')).toBe(true)
    expect(now.has('m999')).toBe(true)
    expect(unfolded.folds.find((f) => f.ids.includes('m100'))!.ids.length).toBeLessThan(
      middle.ids.length,
    )
  })

  it('folds the branches beyond a quarter of the limit under their fork, in one box', () => {
    // 200 answers to one message: 200 heads.
    const vertices = [vertex('ask', [])]
    for (let i = 0; i < 200; i++) vertices.push(vertex(`r${i}`, ['ask']))
    const heads = vertices.slice(1).map((v) => v.id)
    const { shown, folds } = foldTree(vertices, { heads, current: 'r0', limit: 40 })
    expect(shown.length).toBe(40)
    // The current head, then the newest others.
    const drawn = shown.map((v) => v.id)
    expect(drawn.slice(0, 3)).toEqual(['ask', 'r0', 'r162'])
    expect(drawn.at(-1)).toBe('r199')
    expect(folds).toHaveLength(1)
    expect(folds[0]!.ids).toHaveLength(161)
    expect(folds[0]!.from).toEqual(['ask'])
  })
})
