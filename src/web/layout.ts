/**
 * Lays a graph out left to right with dagre: where each box goes and the
 * line of each edge. Pure: the same ids and edges give the same drawing.
 */
import { Graph, layout as dagreLayout } from '@dagrejs/dagre'

/** A box of the drawing, by its centre. */
export interface Placed {
  readonly id: string
  readonly x: number
  readonly y: number
}

/** A laid-out drawing. */
export interface Drawing {
  readonly boxes: readonly Placed[]
  readonly lines: readonly { readonly from: string; readonly to: string; readonly points: string }[]
  readonly width: number
  readonly height: number
}

export const BOX = { width: 128, height: 40 }

/** Lays out `ids` joined by `edges` (`[from, to]`; an edge to an unknown id is left out), left to right or top to bottom. */
export const layout = (
  ids: readonly string[],
  edges: readonly (readonly [string, string])[],
  direction: 'LR' | 'TB' = 'LR',
  box: { readonly width: number; readonly height: number } = BOX,
): Drawing => {
  const g = new Graph({ multigraph: false })
  g.setGraph({
    rankdir: direction,
    nodesep: 16,
    ranksep: direction === 'LR' ? 48 : 24,
    marginx: 8,
    marginy: 8,
  })
  g.setDefaultEdgeLabel(() => ({}))
  for (const id of ids) g.setNode(id, { ...box })
  const known = new Set(ids)
  for (const [from, to] of edges) if (known.has(from) && known.has(to)) g.setEdge(from, to)
  dagreLayout(g)
  const graph = g.graph() as { width?: number; height?: number }
  return {
    boxes: ids.map((id) => {
      const n = g.node(id) as { x: number; y: number }
      return { id, x: n.x, y: n.y }
    }),
    lines: g.edges().map((e: { v: string; w: string }) => ({
      from: e.v,
      to: e.w,
      points: ((g.edge(e) as { points?: { x: number; y: number }[] }).points ?? [])
        .map((p) => `${p.x},${p.y}`)
        .join(' '),
    })),
    width: graph.width ?? 0,
    height: graph.height ?? 0,
  }
}
