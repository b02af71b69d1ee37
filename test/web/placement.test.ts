/**
 * The dashboard's drawing of an edited graph (src/web/placement.ts): what
 * stays keeps its place and its lines, what is new is placed clear of every
 * other box, what went is dropped.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Drawing } from '../../src/web/drawing.js'
import { extend } from '../../src/web/placement.js'

const box = { width: 128, height: 40 }

/** A drawing of `n` boxes in columns of three, each box joined to the next. */
const drawn = (n: number): Drawing => {
  const boxes = Array.from({ length: n }, (_, i) => ({
    id: `n${i}`,
    x: 72 + Math.floor(i / 3) * 176,
    y: 28 + (i % 3) * 56,
  }))
  return {
    boxes,
    lines: boxes.slice(1).map((b, i) => ({ from: `n${i}`, to: b.id, points: `routed ${i}` })),
    width: Math.max(...boxes.map((b) => b.x + 72)),
    height: Math.max(...boxes.map((b) => b.y + 28)),
  }
}

const overlap = (a: { x: number; y: number }, b: { x: number; y: number }): boolean =>
  Math.abs(a.x - b.x) < box.width && Math.abs(a.y - b.y) < box.height

describe('extend', () => {
  it('keeps every box and line that stays, places new boxes clear of all others, and drops what went', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 4 }),
        fc.array(fc.tuple(fc.nat(15), fc.nat(15)), { maxLength: 12 }),
        fc.nat(11),
        (n, added, pairs, dropped) => {
          const base = drawn(n)
          const gone = dropped < n && n > 1 ? `n${dropped}` : undefined
          const ids = [
            ...base.boxes.map((b) => b.id).filter((id) => id !== gone),
            ...Array.from({ length: added }, (_, i) => `new${i}`),
          ]
          const old = base.lines.map((l) => [l.from, l.to] as const)
          const extra = pairs.map(([a, b]) => [ids[a % ids.length]!, ids[b % ids.length]!] as const)
          const d = extend(base, ids, [...old, ...extra], 'LR', box)
          expect(d.boxes.map((b) => b.id)).toEqual(ids)
          for (const b of d.boxes) {
            const before = base.boxes.find((o) => o.id === b.id)
            if (before !== undefined) expect(b).toEqual(before)
            else
              for (const other of d.boxes)
                if (other.id !== b.id)
                  expect(overlap(b, other), `${b.id} on ${other.id}`).toBe(false)
          }
          for (const l of d.lines) {
            expect(ids).toContain(l.from)
            expect(ids).toContain(l.to)
            const before = base.lines.find((o) => o.from === l.from && o.to === l.to)
            if (before !== undefined) expect(l).toEqual(before)
            else expect(l.points.split(' ')).toHaveLength(2)
          }
          expect(new Set(d.lines.map((l) => `${l.from}>${l.to}`)).size).toBe(d.lines.length)
          expect(d.boxes.every((b) => b.x + box.width / 2 <= d.width)).toBe(true)
        },
      ),
    )
  })
})
