/**
 * Keeps a drawing and changes only what a graph's edit changed: boxes that
 * stay keep their places and edges between them their lines; a new box is
 * placed by its neighbours (a layer after its sources, or before its
 * targets, in the first free place of that layer), a new edge is a straight
 * line between the borders of its boxes, and what went is dropped; a
 * group whose members changed is drawn around them where they are. No
 * layout runs: an edit of a large graph is drawn at once, and a full
 * layout is for when it is asked for.
 */
import type { Box, Direction, Drawing, Line, Placed } from './drawing.js'
import { groupBoxes, type Group } from './groups.js'

/** The margin and gaps dagre is given ({@link ./layout.ts}). */
const MARGIN = 8
const NODESEP = 16
const ranksep = (direction: Direction): number => (direction === 'LR' ? 48 : 24)

/** Where the line from `a`'s centre towards `b`'s leaves `a`'s box. */
const border = (a: Placed, b: Placed, box: Box): { x: number; y: number } => {
  const dx = b.x - a.x
  const dy = b.y - a.y
  if (dx === 0 && dy === 0) return a
  const t = Math.min(
    dx === 0 ? Infinity : box.width / 2 / Math.abs(dx),
    dy === 0 ? Infinity : box.height / 2 / Math.abs(dy),
  )
  return { x: a.x + dx * t, y: a.y + dy * t }
}

/** A straight line from box `a` to box `b`, border to border. */
export const straight = (a: Placed, b: Placed, box: Box): string => {
  const p = border(a, b, box)
  const q = border(b, a, box)
  return `${p.x},${p.y} ${q.x},${q.y}`
}

/**
 * `base` made to show `ids` joined by `edges`, with `groups` around boxes:
 * what `base` holds keeps its place; what is new is placed by its
 * neighbours; what is gone is dropped.
 */
export const extend = (
  base: Drawing,
  ids: readonly string[],
  edges: readonly (readonly [string, string])[],
  direction: Direction,
  box: Box,
  groups: readonly Group[] = [],
): Drawing => {
  const lr = direction === 'LR'
  // Along the layers, and across them.
  const along = (p: { x: number; y: number }) => (lr ? p.x : p.y)
  const across = (p: { x: number; y: number }) => (lr ? p.y : p.x)
  const layerSize = lr ? box.width : box.height
  const crossSize = lr ? box.height : box.width
  const step = layerSize + ranksep(direction)
  const known = new Set(ids)
  const at = new Map<string, Placed>()
  for (const b of base.boxes) if (known.has(b.id)) at.set(b.id, b)
  const fresh = ids.filter((id) => !at.has(id))
  // One line per pair, as dagre draws it.
  const live = [
    ...new Map(
      edges
        .filter(([from, to]) => known.has(from) && known.has(to))
        .map((e) => [`${e[0]}>${e[1]}`, e] as const),
    ).values(),
  ]
  for (const id of fresh) {
    const sources = live.flatMap(([from, to]) => (to === id && at.has(from) ? [at.get(from)!] : []))
    const targets = live.flatMap(([from, to]) => (from === id && at.has(to) ? [at.get(to)!] : []))
    const first = MARGIN + layerSize / 2
    const layer =
      sources.length > 0
        ? Math.max(...sources.map(along)) + step
        : targets.length > 0
          ? Math.max(first, Math.min(...targets.map(along)) - step)
          : first
    const column = [...at.values()].filter((b) => Math.abs(along(b) - layer) < layerSize)
    const cross =
      column.length === 0
        ? MARGIN + crossSize / 2
        : Math.max(...column.map(across)) + crossSize + NODESEP
    at.set(id, lr ? { id, x: layer, y: cross } : { id, x: cross, y: layer })
  }
  const isFresh = new Set(fresh)
  const kept = new Map(base.lines.map((l) => [`${l.from}>${l.to}`, l]))
  const lines: Line[] = live.map(([from, to]) => {
    const old = kept.get(`${from}>${to}`)
    return old !== undefined && !isFresh.has(from) && !isFresh.has(to)
      ? old
      : { from, to, points: straight(at.get(from)!, at.get(to)!, box) }
  })
  const boxes = ids.map((id) => at.get(id)!)
  // A group keeps its box while its members are those it was drawn around (none of them new).
  const drawn =
    groups.length === 0
      ? []
      : groupBoxes(
          groups,
          at,
          box,
          base.groups?.filter((g) => g.nodes.every((n) => !isFresh.has(n))),
        )
  return {
    boxes,
    lines,
    ...(groups.length > 0 && { groups: drawn }),
    width: Math.max(
      base.width,
      ...boxes.map((b) => b.x + box.width / 2 + MARGIN),
      ...drawn.map((g) => g.x + g.width),
    ),
    height: Math.max(
      base.height,
      ...boxes.map((b) => b.y + box.height / 2 + MARGIN),
      ...drawn.map((g) => g.y + g.height),
    ),
  }
}
