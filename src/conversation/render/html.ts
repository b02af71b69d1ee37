import { UsageError } from '../../errors.js'
import type { Conversation, Entry, Heads } from '../Entry.js'
import {
  bodyOf,
  cut,
  detailOf,
  KINDS,
  kindOf,
  LABELS,
  labelOf,
  safeJson,
  sanitizeInline,
  type Kind,
} from './describe.js'
import { layout } from './layout.js'
import { startOf, viewOf } from './view.js'
import { NERVE_CSS } from './style.js'
import { VIEWER_CSS, VIEWER_JS } from './viewer.js'

/**
 * Options of {@link renderHtml}.
 *
 * @category render
 */
export interface HtmlRenderOptions {
  /** The document's title and heading; default `'Nerve conversation'`. */
  readonly title?: string
}

/**
 * One vertex as embedded in the HTML document (`graph.vertices[i]`).
 * Indices point into the same `vertices` array.
 *
 * @category render
 */
export interface HtmlVertex {
  readonly id: string
  readonly short: string
  readonly kind: Kind
  readonly label: string
  readonly detail: string
  /** The first content line, cut to 80 characters. */
  readonly line: string
  readonly row: number
  readonly column: number
  readonly parents: readonly number[]
  readonly children: readonly number[]
  /** The entry; a sub-conversation's `heads` are replaced by their ids. */
  readonly data: unknown
  readonly meta: unknown
  /** A sub-conversation's nested graph. */
  readonly sub?: HtmlGraph
}

/**
 * A graph as embedded in the HTML document.
 *
 * @category render
 */
export interface HtmlGraph {
  readonly vertices: readonly HtmlVertex[]
  /** Indices of the vertices without a child. */
  readonly heads: readonly number[]
}

/**
 * The JSON embedded in the HTML document, in `<script type="application/json"
 * id="nerve-data">`.
 *
 * @category render
 */
export interface HtmlDocumentData {
  readonly format: 'nerve-conversation'
  readonly version: 1
  readonly title: string
  readonly graph: HtmlGraph
}

/**
 * Renders a conversation as one self-contained HTML document: inline style
 * and a small inline script, no external resource (a Content-Security-Policy
 * forbids any fetch), so it works offline from a file. The page shows the
 * graph (rows by longest path from a root, so parallel branches sit side by
 * side; colours by kind, with a legend; heads outlined), a side panel with a
 * clicked vertex's full entry and metadata as pretty-printed JSON, and
 * nested sub-conversations that open on double-click or from the panel, with
 * a breadcrumb back. The data is embedded as JSON ({@link HtmlDocumentData})
 * with `<`, `>`, `&` written as `\u003c`-style escapes, so no content can
 * close the script element; the viewer writes data into the page as text
 * only. One element per vertex and one SVG path for all edges keep 10⁴
 * vertices usable.
 *
 * @category render
 * @example
 * import { empty, user } from 'nerve-agents'
 * import { renderHtml } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const html = renderHtml(pipe(empty, user('</script><b>hi</b>')), { title: 'Demo' })
 * assert.match(html, /<title>Demo<\/title>/)
 * assert.ok(!html.includes('</script><b>'))
 * assert.ok(html.includes('\\u003c/script\\u003e\\u003cb\\u003ehi'))
 */
export const renderHtml = (on: Heads, options: HtmlRenderOptions = {}): string => {
  const title = options.title ?? 'Nerve conversation'
  if (typeof title !== 'string')
    throw new UsageError('renderHtml', 'options.title must be a string')
  const data: HtmlDocumentData = {
    format: 'nerve-conversation',
    version: 1,
    title,
    graph: graphOf(startOf('renderHtml', on)),
  }
  const legend = KINDS.map((k) => `<span><i class="sw k-${k}"></i>${LABELS[k]}</span>`).join('')
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style id="nerve-style">\n${NERVE_CSS}\n</style>`,
    `<style>\n${VIEWER_CSS}\n</style>`,
    '</head>',
    '<body>',
    `<header><h1>${escapeHtml(title)}</h1><nav id="crumbs" aria-label="open conversations"></nav><span id="count"></span><div id="legend">${legend}<span><i class="sw" style="box-shadow:0 0 0 2px #424242;border-color:#424242"></i>head</span></div></header>`,
    '<main><div id="scroll"><div id="canvas"><svg id="edges" aria-hidden="true"><path id="edge-path"></path></svg><div id="nodes"></div></div></div><aside id="panel"></aside></main>',
    '<noscript>This viewer needs JavaScript. The conversation is embedded below as JSON.</noscript>',
    `<script type="application/json" id="nerve-data">${scriptSafe(safeJson(data))}</script>`,
    `<script>\n${VIEWER_JS}\n</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n')
}

const graphOf = (start: readonly Conversation[]): HtmlGraph => {
  const view = viewOf(start)
  const places = layout(view)
  const vertices = view.vertices.map((v, i): HtmlVertex => {
    const e = v.data
    const first = bodyOf(e)[0] ?? ''
    const sub = e.type === 'sub_conversation' ? { sub: graphOf(e.heads) } : {}
    return {
      id: v.id,
      short: sanitizeInline(view.short[i]!),
      kind: kindOf(e),
      label: labelOf(e),
      detail: cut(detailOf(e), 60),
      line: cut(first, 80),
      row: places[i]!.row,
      column: places[i]!.column,
      parents: view.parents[i]!,
      children: view.children[i]!,
      data: dataOf(e),
      meta: v.meta,
      ...sub,
    }
  })
  return { vertices, heads: view.heads }
}

const dataOf = (e: Entry): unknown =>
  e.type === 'sub_conversation' ? { ...e, heads: e.heads.map((h) => h.id) } : e

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)

/** JSON text that cannot end a script element or open a comment, and parses the same. */
const scriptSafe = (json: string): string =>
  json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
