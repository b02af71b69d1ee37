import type { Entry, Heads } from '../Entry.js'
import {
  bodyOf,
  detailOf,
  expandOption,
  labelOf,
  linesOf,
  positive,
  sanitizeInline,
  truncate,
} from './describe.js'
import { startOf, viewOf, type View } from './view.js'

/**
 * Options of {@link renderText}.
 *
 * @category render
 */
export interface TextRenderOptions {
  /** Characters (code points) of content per line, lanes not counted; default 100. */
  readonly maxWidth?: number
  /** Content lines per vertex, then one saying how many were left out; default 8. */
  readonly maxLines?: number
  /** Draw each nested conversation indented (`'expand'`, the default) or only its summary. */
  readonly subConversations?: 'expand' | 'summary'
}

interface Settings {
  readonly maxWidth: number
  readonly maxLines: number
  readonly expand: boolean
}

/**
 * Draws a conversation as text, top to bottom in causal order, one group of
 * lines per vertex: a `●` line with its label (SYSTEM, TOOLS, USER,
 * ASSISTANT, EXEC, STOP, SUBGRAPH) and short id, then its content, where an
 * assistant's tool calls read TOOL_USE and a user message's tool results
 * read RESULT. Parallel branches run in lanes (`│`); `├─┬─┐` marks a fan-out
 * and `├─┴─┘` a merge, and the vertex lines say it too (`fan-out → 3
 * branches`, `merge ← ids`). The first line names the heads; each head's line
 * ends with `head`. Short ids are the first 8 characters of the id, more when
 * needed to tell two apart. Strings from the conversation are printed with
 * control characters escaped. Deterministic.
 *
 * @category render
 * @example
 * import { assistant, empty, toolResults, user } from 'nerve-agents'
 * import { renderText } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const c = pipe(
 *   empty,
 *   user('Oslo and Lima?'),
 *   assistant([
 *     { type: 'tool_use', id: 'a', name: 'weather', input: { city: 'Oslo' } },
 *     { type: 'tool_use', id: 'b', name: 'weather', input: { city: 'Lima' } },
 *   ]),
 *   toolResults([{ tool_use_id: 'a', content: '3°C' }, { tool_use_id: 'b', content: '24°C' }]),
 * )
 * const text = renderText(c)
 * assert.match(text, /fan-out → 2 branches\n[^]*├─┐/)
 * assert.match(text, /├─┘\n● USER \w+ · merge ← /)
 * assert.match(text, /RESULT b: 24°C/)
 */
export const renderText = (on: Heads, options: TextRenderOptions = {}): string => {
  const settings: Settings = {
    maxWidth: positive('renderText', 'maxWidth', options.maxWidth, 100),
    maxLines: positive('renderText', 'maxLines', options.maxLines, 8),
    expand: expandOption('renderText', options.subConversations),
  }
  return `${linesOfView(viewOf(startOf('renderText', on)), settings).join('\n')}\n`
}

const NONE = -1

/** The first line: how many vertices, which heads. */
const header = (view: View): string => {
  const n = view.vertices.length
  const hs = view.heads.map((h) => sanitizeInline(view.short[h]!))
  return `conversation · ${n} vert${n === 1 ? 'ex' : 'ices'}${
    hs.length === 0 ? '' : ` · ${hs.length} head${hs.length === 1 ? '' : 's'}: ${hs.join(', ')}`
  }`
}

/** One lane row; `glyph(k)` and `gap(k)` give the two characters of lane k. */
const row = (width: number, glyph: (k: number) => string, gap: (k: number) => string): string => {
  let s = ''
  for (let k = 0; k < width; k++) s += glyph(k) + gap(k)
  return s
}

const idle = (slots: readonly number[]) => (k: number) => (slots[k] === NONE ? ' ' : '│')

/** The lines of a view: the lanes are slots, each waiting for the child at its index. */
const linesOfView = (view: View, settings: Settings): string[] => {
  const out = [header(view)]
  const slots: number[] = []
  const space = () => ' '
  view.vertices.forEach((v, i) => {
    const waiting: number[] = []
    slots.forEach((s, k) => {
      if (s === i) waiting.push(k)
    })
    let c = waiting[0] ?? slots.indexOf(NONE)
    if (c === NONE) c = slots.length
    slots[c] = i
    if (waiting.length > 1) {
      const last = waiting[waiting.length - 1]!
      out.push(
        row(
          slots.length,
          (k) =>
            k === c
              ? '├'
              : k === last
                ? '┘'
                : waiting.includes(k)
                  ? '┴'
                  : k > c && k < last
                    ? slots[k] === NONE
                      ? '─'
                      : '┼'
                    : idle(slots)(k),
          (k) => (k >= c && k < last ? '─' : ' '),
        ).trimEnd(),
      )
      for (const k of waiting.slice(1)) slots[k] = NONE
      while (slots.at(-1) === NONE) slots.pop()
    }
    const lanes = row(slots.length, (k) => (k === c ? '●' : idle(slots)(k)), space).trimEnd()
    out.push(`${lanes} ${title(view, i)}`)

    const children = view.children[i]!
    slots[c] = children[0] ?? NONE
    const indent = `${row(slots.length, idle(slots), space).trimEnd().padEnd(lanes.length)}   `
    for (const line of contentOf(v.data, settings)) out.push(`${indent}${line}`.trimEnd())

    if (children.length > 1) {
      const added: number[] = []
      for (const child of children.slice(1)) {
        let k = slots.indexOf(NONE, c + 1)
        if (k === NONE) k = slots.length
        slots[k] = child
        added.push(k)
      }
      const last = Math.max(...added)
      out.push(
        row(
          slots.length,
          (k) =>
            k === c
              ? '├'
              : k === last
                ? '┐'
                : added.includes(k)
                  ? '┬'
                  : k > c && k < last
                    ? slots[k] === NONE
                      ? '─'
                      : '┼'
                    : idle(slots)(k),
          (k) => (k >= c && k < last ? '─' : ' '),
        ).trimEnd(),
      )
    }
    while (slots.at(-1) === NONE) slots.pop()
  })
  return out
}

/** The vertex line after the lanes: label, short id, detail and markers. */
const title = (view: View, i: number): string => {
  const data = view.vertices[i]!.data
  const detail = detailOf(data)
  const parts = [
    `${labelOf(data)} ${sanitizeInline(view.short[i]!)}${detail === '' ? '' : ` ${detail}`}`,
  ]
  const fanOut = view.children[i]!.length
  if (fanOut > 1) parts.push(`fan-out → ${fanOut} branches`)
  const ps = view.parents[i]!
  if (ps.length > 1)
    parts.push(`merge ← ${ps.map((p) => sanitizeInline(view.short[p]!)).join(', ')}`)
  if (fanOut === 0) parts.push('head')
  return parts.join(' · ')
}

/** The content lines of a vertex, a sub-conversation's nested drawing included. */
const contentOf = (e: Entry, settings: Settings): string[] => {
  const body = truncate(bodyOf(e), settings.maxWidth, settings.maxLines)
  if (e.type !== 'sub_conversation') return body
  if (!settings.expand) {
    const nested = viewOf(e.heads)
    return [
      ...(e.system_prompt === ''
        ? []
        : truncate(
            linesOf(e.system_prompt).map((l, k) => (k === 0 ? `system: ${l}` : `  ${l}`)),
            settings.maxWidth,
            settings.maxLines,
          )),
      ...body,
      header(nested).replace(/^conversation/, 'nested'),
    ]
  }
  return [...linesOfView(viewOf(e.heads), settings).map((l) => `┊ ${l}`), ...body]
}
