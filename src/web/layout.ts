/**
 * Lays a graph out left to right (or top to bottom) with dagre: where each
 * box goes and the line of each edge. Pure: the same ids and edges give the
 * same drawing. The page runs it in a worker ({@link ./layoutClient.ts}).
 *
 * A large graph (more than {@link FULL_ORDER_MAX} boxes) is ordered within
 * its layers by a few barycentre sweeps of ours instead of dagre's own
 * crossing minimisation, which rebuilds a graph per layer per sweep — for a
 * deep graph (a chain of 200) that is most of dagre's time.
 */
import { Graph, layout as dagreLayout } from '@dagrejs/dagre'
import { BOX, type Box, type Direction, type Drawing } from './drawing.js'

/** The most boxes ordered by dagre's own crossing minimisation. */
export const FULL_ORDER_MAX = 60

/** How many barycentre sweeps order a large graph's layers. */
const SWEEPS = 4

/** What the ordering sees of dagre's layered graph. */
interface Layered {
  nodes(): string[]
  node(v: string): { rank?: number; order?: number }
  predecessors(v: string): string[] | undefined
  successors(v: string): string[] | undefined
}

/**
 * Orders each layer of dagre's layered graph (every edge spans one layer
 * there): sweeps down then up, each node placed at the mean position of
 * its neighbours in the layer swept from.
 */
const barycentreOrder = (g: Layered): void => {
  // Sparse when a rank holds no node.
  const layers: (string[] | undefined)[] = []
  for (const v of g.nodes()) {
    const rank = g.node(v).rank
    if (rank !== undefined) (layers[rank] ??= []).push(v)
  }
  const pos = new Map<string, number>()
  for (const layer of layers) layer?.forEach((v, i) => pos.set(v, i))
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const down = sweep % 2 === 0
    const order = down ? layers : [...layers].reverse()
    for (const layer of order.slice(1)) {
      if (layer === undefined) continue
      const centre = new Map<string, number>()
      for (const v of layer) {
        const near = (down ? g.predecessors(v) : g.successors(v)) ?? []
        centre.set(
          v,
          near.length === 0
            ? pos.get(v)!
            : near.reduce((sum, u) => sum + (pos.get(u) ?? 0), 0) / near.length,
        )
      }
      layer.sort((a, b) => centre.get(a)! - centre.get(b)!)
      layer.forEach((v, i) => pos.set(v, i))
    }
  }
  for (const [v, i] of pos) g.node(v).order = i
}

/** Lays out `ids` joined by `edges` (`[from, to]`; an edge to an unknown id is left out), left to right or top to bottom. */
export const layout = (
  ids: readonly string[],
  edges: readonly (readonly [string, string])[],
  direction: Direction = 'LR',
  box: Box = BOX,
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
  dagreLayout(
    g,
    ids.length > FULL_ORDER_MAX
      ? {
          customOrder: (l) => {
            barycentreOrder(l)
          },
        }
      : {},
  )
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
