/**
 * The dashboard's drawing of a network's sub-networks (src/web/groups.ts,
 * laid out by src/web/layout.ts, kept through edits by src/web/placement.ts):
 * a box around each group's members, every other box outside a group the
 * layout nests, a nested group inside the one holding it, each node drawn
 * once; an edit keeps a group's box while its members stay.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { GroupBox, Placed } from '../../src/web/drawing.js'
import { nesting, type Group } from '../../src/web/groups.js'
import { layout } from '../../src/web/layout.js'
import { extend } from '../../src/web/placement.js'

const box = { width: 128, height: 40 }

type Rect = Readonly<{ x: number; y: number; width: number; height: number }>
const rectOf = (p: Placed): Rect => ({
  x: p.x - box.width / 2,
  y: p.y - box.height / 2,
  width: box.width,
  height: box.height,
})
const within = (a: Rect, b: Rect): boolean =>
  a.x >= b.x && a.y >= b.y && a.x + a.width <= b.x + b.width && a.y + a.height <= b.y + b.height
const clear = (a: Rect, b: Rect): boolean =>
  a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y

/** A graph of up to 9 nodes, its edges, and up to 4 groups of its nodes (nested, crossing or apart). */
const graphs = fc.integer({ min: 1, max: 9 }).chain((n) => {
  const ids = Array.from({ length: n }, (_, i) => `n${i}`)
  return fc.record({
    ids: fc.constant(ids),
    edges: fc
      .array(fc.tuple(fc.constantFrom(...ids), fc.constantFrom(...ids)), { maxLength: 12 })
      .map((es) => es.filter(([a, b]) => a !== b)),
    groups: fc
      .array(fc.subarray(ids, { minLength: 1 }), { maxLength: 4 })
      .map((sets) => sets.map((nodes, i): Group => ({ id: `g${i}`, nodes }))),
  })
})

describe('the drawing of sub-networks', () => {
  it('draws each group around its members; a nested group holds no other box and lies in the one holding it', () => {
    fc.assert(
      fc.property(graphs, ({ ids, edges, groups }) => {
        const d = layout(ids, edges, 'LR', box, groups)
        expect(d.boxes.map((b) => b.id)).toEqual(ids)
        const at = new Map(d.boxes.map((b) => [b.id, rectOf(b)]))
        const drawn = new Map((d.groups ?? []).map((g) => [g.id, g]))
        expect([...drawn.keys()]).toEqual(groups.map((g) => g.id))
        for (const g of groups) {
          const r = drawn.get(g.id)!
          for (const n of g.nodes) expect(within(at.get(n)!, r), `${n} in ${g.id}`).toBe(true)
          expect(r.x >= 0 && r.y >= 0).toBe(true)
          expect(r.x + r.width <= d.width && r.y + r.height <= d.height).toBe(true)
        }
        for (const c of nesting(groups, new Set(ids)).clusters) {
          const r = drawn.get(c.id)!
          for (const n of ids.filter((i) => !c.nodes.includes(i)))
            expect(clear(at.get(n)!, r), `${n} outside ${c.id}`).toBe(true)
          if (c.parent !== undefined) expect(within(r, drawn.get(c.parent)!)).toBe(true)
        }
      }),
      { numRuns: 60 },
    )
  })

  it('nests every group of a nested family, and leaves out one that crosses a larger one', () => {
    const groups = [
      { id: 'inner', nodes: ['a'] },
      { id: 'outer', nodes: ['a', 'b', 'c'] },
      { id: 'cross', nodes: ['c', 'd'] },
      { id: 'apart', nodes: ['e'] },
    ]
    const n = nesting(groups, new Set(['a', 'b', 'c', 'd', 'e']))
    expect(n.clusters).toEqual([
      { id: 'outer', nodes: ['a', 'b', 'c'] },
      { id: 'inner', nodes: ['a'], parent: 'outer' },
      { id: 'apart', nodes: ['e'] },
    ])
    expect(Object.fromEntries(n.parentOf)).toEqual({
      a: 'inner',
      b: 'outer',
      c: 'outer',
      e: 'apart',
    })
  })

  it('keeps a group’s box through an edit while its members stay, and draws one whose members changed around them', () => {
    fc.assert(
      fc.property(
        graphs.filter((g) => g.groups.length > 0),
        fc.nat(),
        fc.nat(),
        ({ ids, edges, groups }, which, member) => {
          const base = layout(ids, edges, 'LR', box, groups)
          const changed = which % groups.length
          const toggled = ids[member % ids.length]!
          const next = groups.map((g, i): Group => {
            if (i !== changed) return g
            const nodes = g.nodes.includes(toggled)
              ? g.nodes.filter((n) => n !== toggled)
              : [...g.nodes, toggled]
            return { ...g, nodes }
          })
          const d = extend(base, ids, edges, 'LR', box, next)
          expect(d.boxes).toEqual(base.boxes)
          const at = new Map(d.boxes.map((b) => [b.id, rectOf(b)]))
          const was = new Map((base.groups ?? []).map((g) => [g.id, g]))
          const now = new Map<string, GroupBox>((d.groups ?? []).map((g) => [g.id, g]))
          for (const g of next) {
            if (g.nodes.length === 0) {
              expect(now.has(g.id)).toBe(false)
              continue
            }
            const r = now.get(g.id)!
            for (const n of g.nodes) expect(within(at.get(n)!, r)).toBe(true)
            const inside = next.filter(
              (h) => h !== g && h.nodes.length > 0 && h.nodes.every((n) => g.nodes.includes(n)),
            )
            if (g.id !== `g${changed}` && !inside.some((h) => h.id === `g${changed}`))
              expect(r).toEqual(was.get(g.id))
          }
        },
      ),
      { numRuns: 60 },
    )
  })
})
