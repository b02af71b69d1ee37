import { NERVE_CSS } from '../../conversation/index.js'
import type { Vertex } from '../../dag/index.js'
import { UsageError } from '../../errors.js'
import type { Envelope, EnvelopeKind } from './Envelope.js'
import { EnvelopeLog } from './EnvelopeLog.js'

const verticesOf = (
  api: string,
  on: EnvelopeLog | readonly Vertex<Envelope>[],
): readonly Vertex<Envelope>[] => {
  if (on instanceof EnvelopeLog) return on.vertices()
  if (!Array.isArray(on)) throw new UsageError(api, 'expects an EnvelopeLog or envelope vertices')
  return on as readonly Vertex<Envelope>[]
}

const oneLine = (s: string, max: number): string => {
  const flat = s.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** The longest path from a root, per vertex index. */
const depths = (vs: readonly Vertex<Envelope>[]): number[] => {
  const index = new Map(vs.map((v, i) => [v, i]))
  const depth: number[] = []
  vs.forEach((v, i) => {
    let d = 0
    for (const p of v.parents) {
      const j = index.get(p)
      if (j !== undefined && j < i) d = Math.max(d, depth[j]! + 1)
    }
    depth.push(d)
  })
  return depth
}

/**
 * The envelope DAG as a Mermaid flowchart: one box per envelope (kind,
 * from → to, the message's start), an arrow from each cause.
 *
 * @category envelopes
 * @example
 * import { EnvelopeLog, renderEnvelopesMermaid } from 'nerve-agents/network'
 * import assert from 'assert'
 *
 * const log = new EnvelopeLog()
 * log.add({ id: 'e1', kind: 'handoff', fromNodeId: 'plan', toNodeId: 'code', payload: { message: 'go' }, time: 0 })
 * log.add({ id: 'e2', kind: 'done', fromNodeId: 'code', toNodeId: 'plan', payload: { message: 'ok' }, causedBy: ['e1'], time: 1 })
 * assert.strictEqual(renderEnvelopesMermaid(log), [
 *   'flowchart TD',
 *   '  n0["handoff plan → code<br/>go"]',
 *   '  n1["done code → plan<br/>ok"]',
 *   '  n0 --> n1',
 *   '  class n0 handoff',
 *   '  class n1 done',
 * ].join('\n'))
 */
export const renderEnvelopesMermaid = (on: EnvelopeLog | readonly Vertex<Envelope>[]): string => {
  const vs = verticesOf('renderEnvelopesMermaid', on)
  const index = new Map(vs.map((v, i) => [v, i]))
  const esc = (s: string): string => s.replace(/["<>&#]/g, (c) => `#${c.charCodeAt(0)};`)
  const lines = ['flowchart TD']
  vs.forEach((v, i) => {
    const e = v.data
    lines.push(
      `  n${i}["${e.kind} ${esc(e.fromNodeId)} → ${esc(e.toNodeId)}<br/>${esc(oneLine(e.payload.message, 60))}"]`,
    )
  })
  vs.forEach((v, i) => {
    for (const p of v.parents) {
      const j = index.get(p)
      if (j !== undefined) lines.push(`  n${j} --> n${i}`)
    }
  })
  vs.forEach((v, i) => lines.push(`  class n${i} ${v.data.kind}`))
  return lines.join('\n')
}

const COLOURS: Readonly<Record<EnvelopeKind, string>> = {
  handoff: '#bbdefb',
  message: '#e0e0e0',
  tick: '#fff9c4',
  done: '#c8e6c9',
  status: '#d1c4e9',
  error: '#ffcdd2',
}

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  )

/** An envelope's time (ms since the run started) as a person reads it: `+12 ms`, `+1.25 s`. */
const since = (ms: number): string =>
  ms < 1000 ? `+${Math.round(ms)} ms` : `+${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`

const W = 230
const H = 54
const GAP_X = 30
const GAP_Y = 40

/**
 * The envelope DAG as one self-contained HTML page (no script, no external
 * resource): an SVG with one box per envelope in rows by causal depth,
 * arrows from causes, colours by kind, and below it a table of every
 * envelope with its full payload as JSON. Every text is escaped.
 *
 * @category envelopes
 * @example
 * import { EnvelopeLog, renderEnvelopesHtml } from 'nerve-agents/network'
 * import assert from 'assert'
 *
 * const log = new EnvelopeLog()
 * log.add({ id: 'e1', kind: 'message', fromNodeId: 'a', toNodeId: 'b', payload: { message: '<b>hi</b>' }, time: 0 })
 * const html = renderEnvelopesHtml(log, { title: 'Run' })
 * assert.match(html, /<title>Run<\/title>/)
 * assert.ok(html.includes('&lt;b&gt;hi&lt;/b&gt;') && !html.includes('<b>hi'))
 */
export const renderEnvelopesHtml = (
  on: EnvelopeLog | readonly Vertex<Envelope>[],
  options: { readonly title?: string } = {},
): string => {
  const vs = verticesOf('renderEnvelopesHtml', on)
  const title = options.title ?? 'Nerve network run'
  if (typeof title !== 'string') {
    throw new UsageError('renderEnvelopesHtml', 'options.title must be a string')
  }
  const depth = depths(vs)
  const column: number[] = []
  const perRow = new Map<number, number>()
  for (const d of depth) {
    const c = perRow.get(d) ?? 0
    column.push(c)
    perRow.set(d, c + 1)
  }
  const x = (i: number): number => 10 + column[i]! * (W + GAP_X)
  const y = (i: number): number => 10 + depth[i]! * (H + GAP_Y)
  const width = 20 + Math.max(1, ...perRow.values()) * (W + GAP_X)
  const height = 20 + (Math.max(0, ...depth) + 1) * (H + GAP_Y)
  const index = new Map(vs.map((v, i) => [v, i]))
  const arrows: string[] = []
  vs.forEach((v, i) => {
    for (const p of v.parents) {
      const j = index.get(p)
      if (j === undefined) continue
      arrows.push(
        `<line x1="${x(j) + W / 2}" y1="${y(j) + H}" x2="${x(i) + W / 2}" y2="${y(i)}" marker-end="url(#arrow)"/>`,
      )
    }
  })
  const boxes = vs.map((v, i) => {
    const e = v.data
    return [
      `<g id="box-${escapeHtml(e.id)}"><rect x="${x(i)}" y="${y(i)}" width="${W}" height="${H}" rx="6" fill="${COLOURS[e.kind]}"/>`,
      `<text x="${x(i) + 8}" y="${y(i) + 20}" font-weight="bold">${escapeHtml(oneLine(`${e.kind} ${e.fromNodeId} → ${e.toNodeId}`, 24))}</text>`,
      `<text x="${x(i) + W - 8}" y="${y(i) + 20}" text-anchor="end" class="time">${since(e.time)}</text>`,
      `<text x="${x(i) + 8}" y="${y(i) + 40}">${escapeHtml(oneLine(e.payload.message, 34))}</text></g>`,
    ].join('')
  })
  const rows = vs.map((v) => {
    const e = v.data
    return `<tr id="${escapeHtml(e.id)}"><td>${escapeHtml(e.id)}</td><td>${e.kind}</td><td>${escapeHtml(e.fromNodeId)} → ${escapeHtml(e.toNodeId)}</td><td class="time">${since(e.time)}</td><td>${(e.causedBy ?? []).map((c) => `<a href="#${escapeHtml(c)}">${escapeHtml(c)}</a>`).join(' ')}</td><td><pre>${escapeHtml(JSON.stringify(e.payload, null, 2))}</pre></td></tr>`
  })
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style id="nerve-style">${NERVE_CSS}</style>`,
    '<style>main{padding:12px 14px}svg line{stroke:#78909c;stroke-width:1.2}svg .time{fill:var(--muted);font-size:11px}table{margin-top:16px}td.time{white-space:nowrap;font-variant-numeric:tabular-nums}pre{max-width:60em}</style>',
    '</head>',
    '<body>',
    `<header><h1>${escapeHtml(title)}</h1><div class="muted">${vs.length} envelopes${vs.length > 0 ? `, over ${since(Math.max(...vs.map((v) => v.data.time))).slice(1)}` : ''}; times since the run started</div></header>`,
    '<main>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>${arrows.join('')}${boxes.join('')}</svg>`,
    `<table><thead><tr><th>id</th><th>kind</th><th>route</th><th>time</th><th>caused by</th><th>payload</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n')
}
