import type { Conversation, Heads } from '../Entry.js'
import {
  bodyOf,
  COLOURS,
  cut,
  detailOf,
  expandOption,
  KINDS,
  kindOf,
  labelOf,
  positive,
  sanitizeInline,
  truncate,
  type Kind,
} from './describe.js'
import { startOf, viewOf } from './view.js'

/**
 * Options of {@link renderMermaid}.
 *
 * @category render
 */
export interface MermaidRenderOptions {
  /** Characters (code points) per label line; default 48. */
  readonly maxWidth?: number
  /** Content lines per label under the title line; default 2. */
  readonly maxLines?: number
  /** Draw each nested conversation as a `subgraph` block (`'expand'`, the default) or as one node. */
  readonly subConversations?: 'expand' | 'summary'
}

interface Settings {
  readonly maxWidth: number
  readonly maxLines: number
  readonly expand: boolean
}

/**
 * Draws a conversation as a Mermaid `flowchart TD`: one node per vertex
 * (ids `n0`, `n1`, … in causal order; nested ones `n4_0`, …), labelled with
 * its kind, short id and first lines of content, and one edge per parent →
 * child. A sub-conversation is a `subgraph` block holding its nested
 * conversation, joined to the outer graph by edges to and from the block.
 * Labels are quoted and escaped with Mermaid entity codes (`#quot;`,
 * `#91;`, …), so content cannot change the diagram's structure. Nodes are
 * coloured by kind (`classDef k_user`, …) and heads get the class `head`.
 *
 * @category render
 * @example
 * import { assistant, empty, user } from 'nerve-agents'
 * import { renderMermaid } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const chart = renderMermaid(pipe(empty, user('say "hi" [now]'), assistant('hi')))
 * assert.ok(chart.startsWith('flowchart TD\n'))
 * assert.match(chart, /n0 --> n1/)
 * assert.match(chart, /say #quot;hi#quot; #91;now#93;/)
 */
export const renderMermaid = (on: Heads, options: MermaidRenderOptions = {}): string => {
  const settings: Settings = {
    maxWidth: positive('renderMermaid', 'maxWidth', options.maxWidth, 48),
    maxLines: positive('renderMermaid', 'maxLines', options.maxLines, 2),
    expand: expandOption('renderMermaid', options.subConversations),
  }
  const start = startOf('renderMermaid', on)
  const out = ['flowchart TD']
  const classes = new Map<Kind | 'head', string[]>()
  draw(start, 'n', '  ', settings, out, classes)
  for (const kind of KINDS) {
    const { fill, stroke } = COLOURS[kind]
    out.push(`  classDef k_${kind} fill:${fill},stroke:${stroke},color:#212121`)
  }
  out.push('  classDef head stroke-width:3px')
  for (const [name, ids] of classes) {
    out.push(`  class ${ids.join(',')} ${name === 'head' ? 'head' : `k_${name}`}`)
  }
  return `${out.join('\n')}\n`
}

const draw = (
  start: readonly Conversation[],
  prefix: string,
  indent: string,
  settings: Settings,
  out: string[],
  classes: Map<Kind | 'head', string[]>,
): void => {
  const view = viewOf(start)
  const ids = view.vertices.map((_, i) => `${prefix}${i}`)
  const tag = (name: Kind | 'head', id: string) => {
    const list = classes.get(name)
    if (list === undefined) classes.set(name, [id])
    else list.push(id)
  }
  view.vertices.forEach((v, i) => {
    const e = v.data
    const id = ids[i]!
    const detail = detailOf(e)
    const first = `${labelOf(e)} ${sanitizeInline(view.short[i]!)}${
      detail === '' ? '' : ` ${cut(detail, settings.maxWidth)}`
    }`
    const lines = [first, ...truncate(bodyOf(e), settings.maxWidth, settings.maxLines)].map(
      escapeLabel,
    )
    tag(kindOf(e), id)
    if (view.children[i]!.length === 0) tag('head', id)
    if (e.type === 'sub_conversation' && settings.expand && e.heads.length > 0) {
      out.push(`${indent}subgraph ${id}["${lines[0]!}"]`)
      out.push(`${indent}  direction TB`)
      draw(e.heads, `${id}_`, `${indent}  `, settings, out, classes)
      out.push(`${indent}end`)
    } else {
      out.push(`${indent}${id}["${lines.join('<br/>')}"]`)
    }
  })
  view.parents.forEach((ps, i) => {
    for (const p of ps) out.push(`${indent}${ids[p]!} --> ${ids[i]!}`)
  })
}

const ENTITIES: Readonly<Record<string, string>> = {
  '"': '#quot;',
  '#': '#35;',
  '&': '#amp;',
  '<': '#lt;',
  '>': '#gt;',
  '[': '#91;',
  ']': '#93;',
  '(': '#40;',
  ')': '#41;',
  '{': '#123;',
  '}': '#125;',
  '|': '#124;',
  '`': '#96;',
  '\\': '#92;',
}

/** Text safe inside a quoted Mermaid label. */
const escapeLabel = (s: string): string => s.replace(/["#&<>[\](){}|`\\]/g, (c) => ENTITIES[c]!)
