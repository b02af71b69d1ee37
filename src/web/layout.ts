/**
 * Lays a graph out left to right (or top to bottom) with dagre: where each
 * box goes and the line of each edge. Pure: the same ids and edges give the
 * same drawing. The page runs it in a worker ({@link ./layoutClient.ts}).
 *
 * A large graph (more than {@link FULL_ORDER_MAX} boxes) is ordered within
 * its layers by a few barycentre sweeps of ours instead of dagre's own
 * crossing minimisation, which rebuilds a graph per layer per sweep — for a
 * deep graph (a chain of 200) that is most of dagre's time.
 *
 * Groups of boxes (a network's sub-networks) that nest are dagre's
 * clusters ({@link nesting}): their members are kept together and their
 * boxes drawn by dagre; a graph with any is ordered by dagre itself (our
 * sweeps do not keep a cluster's members side by side), at about twice the
 * cost, in the worker.
 */
import { Graph, layout as dagreLayout } from '@dagrejs/dagre'
import { BOX, type Box, type Direction, type Drawing, type GroupBox } from './drawing.js'
import { groupBoxes, nesting, type Group } from './groups.js'

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

/** The top-left corner of a box given by its centre. */
const corner = (n: { x: number; y: number; width: number; height: number }) => ({
  x: n.x - n.width / 2,
  y: n.y - n.height / 2,
})

/** A cluster's id in dagre's graph: a space is in no node id. */
const clusterId = (id: string): string => `group ${id}`

/**
 * Lays out `ids` joined by `edges` (`[from, to]`; an edge to an unknown id
 * is left out), left to right or top to bottom, with a box around each of
 * `groups` (members not in `ids` left out).
 */
export const layout = (
  ids: readonly string[],
  edges: readonly (readonly [string, string])[],
  direction: Direction = 'LR',
  box: Box = BOX,
  groups: readonly Group[] = [],
): Drawing => {
  const known = new Set(ids)
  const { clusters, parentOf } = nesting(groups, known)
  const compound = clusters.length > 0
  const g = new Graph({ multigraph: false, compound })
  g.setGraph({
    rankdir: direction,
    nodesep: 16,
    ranksep: direction === 'LR' ? 48 : 24,
    marginx: 8,
    marginy: 8,
  })
  g.setDefaultEdgeLabel(() => ({}))
  for (const id of ids) g.setNode(id, { ...box })
  for (const c of clusters) g.setNode(clusterId(c.id), {})
  for (const c of clusters)
    if (c.parent !== undefined) g.setParent(clusterId(c.id), clusterId(c.parent))
  for (const [n, c] of parentOf) g.setParent(n, clusterId(c))
  for (const [from, to] of edges) if (known.has(from) && known.has(to)) g.setEdge(from, to)
  dagreLayout(
    g,
    ids.length > FULL_ORDER_MAX && !compound
      ? {
          customOrder: (l: Layered) => {
            barycentreOrder(l)
          },
        }
      : {},
  )
  const graph = g.graph() as { width?: number; height?: number }
  const boxes = ids.map((id) => {
    const n = g.node(id) as { x: number; y: number }
    return { id, x: n.x, y: n.y }
  })
  const laid = clusters.map((c): GroupBox => {
    const n = g.node(clusterId(c.id)) as { x: number; y: number; width: number; height: number }
    return { id: c.id, nodes: c.nodes, ...corner(n), width: n.width, height: n.height }
  })
  const drawn =
    groups.length === 0 ? [] : groupBoxes(groups, new Map(boxes.map((b) => [b.id, b])), box, laid)
  return {
    boxes,
    lines: g.edges().map((e: { v: string; w: string }) => ({
      from: e.v,
      to: e.w,
      points: ((g.edge(e) as { points?: { x: number; y: number }[] }).points ?? [])
        .map((p) => `${p.x},${p.y}`)
        .join(' '),
    })),
    ...(groups.length > 0 && { groups: drawn }),
    // A group drawn around boxes where they are (one crossing another) may reach past dagre's margin.
    width: Math.max(graph.width ?? 0, ...drawn.map((b) => b.x + b.width)),
    height: Math.max(graph.height ?? 0, ...drawn.map((b) => b.y + b.height)),
  }
}
