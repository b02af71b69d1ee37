/**
 * Places the vertices of a view on a grid for drawing: the row is the
 * longest path from a root, so parallel branches share rows; the column
 * follows the first parent (a k-th child prefers the k-th column to its
 * right) and moves right past columns taken on that row.
 *
 * @internal
 */
import type { View } from './view.js'

/** @internal */
export interface Place {
  readonly column: number
  readonly row: number
}

/** @internal */
export const layout = (view: View): readonly Place[] => {
  const n = view.vertices.length
  const row = new Array<number>(n).fill(0)
  const column = new Array<number>(n).fill(0)
  // The position of each vertex among the children of its first parent.
  const order = new Array<number>(n).fill(-1)
  view.children.forEach((cs, p) => {
    cs.forEach((c, k) => {
      if (order[c] === -1 && view.parents[c]![0] === p) order[c] = k
    })
  })
  const taken = new Map<number, Set<number>>()
  let roots = 0
  for (let i = 0; i < n; i++) {
    const ps = view.parents[i]!
    for (const p of ps) row[i] = Math.max(row[i]!, row[p]! + 1)
    let col = ps.length === 0 ? roots++ : column[ps[0]!]! + Math.max(0, order[i]!)
    let used = taken.get(row[i]!)
    if (used === undefined) taken.set(row[i]!, (used = new Set()))
    while (used.has(col)) col++
    used.add(col)
    column[i] = col
  }
  return row.map((r, i) => ({ row: r, column: column[i]! }))
}
