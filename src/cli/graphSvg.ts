/**
 * A graph's shape drawn as SVG, laid out here (no Mermaid, nothing loaded):
 * steps in rows by dependency depth, an arrow from each dependency, nested
 * graphs as dashed boxes holding their own steps, each step coloured by how
 * it ended in a run when that is known.
 */
import { Graph, isGraph } from '../graph/index.js'

const W = 150
const H = 44
const GAP_X = 24
const GAP_Y = 36
const PAD = 14
const TITLE = 22

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

interface Drawn {
  readonly width: number
  readonly height: number
  readonly svg: string
}

/** A step's row: one more than its deepest dependency's. */
const layersOf = (g: Graph): Map<string, number> => {
  const steps = Graph.steps(g)
  const byId = new Map(steps.map((s) => [s.id, s]))
  const layer = new Map<string, number>()
  const of = (id: string, seen: ReadonlySet<string>): number => {
    const known = layer.get(id)
    if (known !== undefined) return known
    const deps = (byId.get(id)?.dependsOn ?? []).filter((d) => byId.has(d) && !seen.has(d))
    const l =
      deps.length === 0 ? 0 : 1 + Math.max(...deps.map((d) => of(d, new Set([...seen, id]))))
    layer.set(id, l)
    return l
  }
  for (const s of steps) of(s.id, new Set())
  return layer
}

const draw = (g: Graph, prefix: string, status: ReadonlyMap<string, string>): Drawn => {
  const steps = Graph.steps(g)
  const layer = layersOf(g)
  const inner = new Map(
    steps.map((s) => [
      s.id,
      isGraph(s.node) ? draw(s.node, `${prefix}${s.id}/`, status) : undefined,
    ]),
  )
  const size = (id: string) => {
    const d = inner.get(id)
    return d === undefined ? { w: W, h: H } : { w: d.width + 2 * PAD, h: d.height + PAD + TITLE }
  }
  const rows = Math.max(0, ...layer.values()) + 1
  const at = new Map<string, { x: number; y: number; w: number; h: number }>()
  let y = 0
  let width = 0
  for (let r = 0; r < rows; r++) {
    const row = steps.filter((s) => layer.get(s.id) === r)
    let x = 0
    let rowH = 0
    for (const s of row) {
      const { w, h } = size(s.id)
      at.set(s.id, { x, y, w, h })
      x += w + GAP_X
      rowH = Math.max(rowH, h)
    }
    width = Math.max(width, x - GAP_X)
    y += rowH + GAP_Y
  }
  const parts: string[] = []
  for (const s of steps) {
    const to = at.get(s.id)!
    for (const d of s.dependsOn) {
      const from = at.get(d)
      if (from === undefined) continue
      const x1 = from.x + from.w / 2
      const y1 = from.y + from.h
      const x2 = to.x + to.w / 2
      const y2 = to.y
      const mid = (y1 + y2) / 2
      parts.push(
        `<path class="edge" d="M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2 - 2}" marker-end="url(#nerve-arrow)"/>`,
      )
    }
  }
  for (const s of steps) {
    const { x, y: top, w, h } = at.get(s.id)!
    const key = `${prefix}${s.id}`
    const state = status.get(key) ?? 'pending'
    const nested = inner.get(s.id)
    if (nested !== undefined) {
      parts.push(
        `<g class="cluster ${esc(state)}" data-step="${esc(key)}"><rect x="${x}" y="${top}" width="${w}" height="${h}" rx="8"/>` +
          `<text x="${x + PAD}" y="${top + 16}" font-weight="600">${esc(s.id)} · graph</text>` +
          `<g transform="translate(${x + PAD},${top + TITLE})">${nested.svg}</g></g>`,
      )
    } else {
      const what = s.node !== undefined ? s.node.kind : `@${s.nodeRef}`
      parts.push(
        `<g class="step ${esc(state)}" data-step="${esc(key)}"><title>${esc(key)}: ${esc(state)}</title>` +
          `<rect x="${x}" y="${top}" width="${w}" height="${h}" rx="6"/>` +
          `<text x="${x + 10}" y="${top + 18}" font-weight="600">${esc(s.id.length > 20 ? `${s.id.slice(0, 19)}…` : s.id)}</text>` +
          `<text x="${x + 10}" y="${top + 34}" class="kind">${esc(what)}</text></g>`,
      )
    }
  }
  return { width: Math.max(width, W), height: Math.max(y - GAP_Y, H), svg: parts.join('') }
}

/**
 * The SVG of a graph's shape; `status` (by step path, `a/b` for nested)
 * colours each step: `completed`, `failed`, `skipped`, `cancelled`, else
 * pending.
 *
 * @category cli
 */
export const graphSvg = (g: Graph, status: ReadonlyMap<string, string> = new Map()): string => {
  const d = draw(g, '', status)
  return (
    `<svg id="diagram" xmlns="http://www.w3.org/2000/svg" width="${d.width + 2}" height="${d.height + 2}" viewBox="-1 -1 ${d.width + 2} ${d.height + 2}" role="img" aria-label="the graph's steps and their dependencies">` +
    `<defs><marker id="nerve-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="#78909c"/></marker></defs>` +
    `${d.svg}</svg>`
  )
}
