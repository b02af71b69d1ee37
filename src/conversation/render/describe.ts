/**
 * What every rendering says about one entry: its kind, its label, a one-line
 * detail and its content as plain lines. Strings from the conversation are
 * made safe to print: control characters, bidirectional overrides and lone
 * surrogates become visible escapes (`\x1b`, `\u202e`), tabs become spaces.
 *
 * @internal
 */
import { UsageError } from '../../errors.js'
import type { Block, Entry, ToolResultContent } from '../Entry.js'

/** The kinds a rendering colours and labels. @internal */
export type Kind = 'system' | 'tools' | 'user' | 'assistant' | 'exec' | 'stop' | 'subgraph'

/** Every kind, in legend order. @internal */
export const KINDS: readonly Kind[] = [
  'system',
  'tools',
  'user',
  'assistant',
  'exec',
  'stop',
  'subgraph',
]

/** The label of each kind. @internal */
export const LABELS: Readonly<Record<Kind, string>> = {
  system: 'SYSTEM',
  tools: 'TOOLS',
  user: 'USER',
  assistant: 'ASSISTANT',
  exec: 'EXEC',
  stop: 'STOP',
  subgraph: 'SUBGRAPH',
}

/** Fill and stroke colours of each kind, shared by Mermaid and HTML. @internal */
export const COLOURS: Readonly<Record<Kind, { readonly fill: string; readonly stroke: string }>> = {
  system: { fill: '#eceff1', stroke: '#546e7a' },
  tools: { fill: '#e0f2f1', stroke: '#00897b' },
  user: { fill: '#e3f2fd', stroke: '#1e88e5' },
  assistant: { fill: '#e8f5e9', stroke: '#43a047' },
  exec: { fill: '#fff3e0', stroke: '#ef6c00' },
  stop: { fill: '#fce4ec', stroke: '#d81b60' },
  subgraph: { fill: '#f3e5f5', stroke: '#8e24aa' },
}

/** The kind of an entry. @internal */
export const kindOf = (e: Entry): Kind => {
  switch (e.type) {
    case 'system_prompt':
      return 'system'
    case 'tool_definitions':
      return 'tools'
    case 'message':
      return e.role === 'assistant' ? 'assistant' : 'user'
    case 'tool_execution':
      return 'exec'
    case 'stop_reason':
      return 'stop'
    case 'sub_conversation':
      return 'subgraph'
  }
}

// C0 and C1 controls except newline, DEL, bidi embeddings/overrides/isolates,
// line and paragraph separators, lone surrogates.
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

const escapeChar = (c: string): string => {
  if (c === '\t') return '  '
  const code = c.charCodeAt(0)
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`
}

/** A string made safe to print, line breaks kept (CR LF and CR become LF). @internal */
export const sanitize = (s: string): string => s.replace(/\r\n?/g, '\n').replace(UNSAFE, escapeChar)

/** A string made safe to print on one line. @internal */
export const sanitizeInline = (s: string): string => sanitize(s).replace(/\n/g, '\\n')

/** The printable lines of a string. @internal */
export const linesOf = (s: string): string[] => sanitize(s).split('\n')

/** `JSON.stringify`, typed as it behaves: `undefined` for `undefined` or a function. */
const stringify = (
  value: unknown,
  replacer: (this: unknown, key: string, v: unknown) => unknown,
  indent: number | undefined,
): string | undefined => JSON.stringify(value, replacer, indent)

/** JSON text of any value; never throws (bigints print as strings, cycles are cut). @internal */
export const safeJson = (value: unknown, indent?: number): string => {
  const bigints = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v)
  try {
    return stringify(value, bigints, indent) ?? String(value)
  } catch {
    // A cycle: keep the objects on the path from the root, cut a repeat of one of them.
    const path: unknown[] = []
    const cutCycles = function (this: unknown, key: string, v: unknown): unknown {
      const w = bigints(key, v)
      if (typeof w !== 'object' || w === null) return w
      while (path.length > 0 && path[path.length - 1] !== this) path.pop()
      if (path.includes(w)) return '[cycle]'
      path.push(w)
      return w
    }
    return stringify(value, cutCycles, indent) ?? String(value)
  }
}

/** The label of an entry. @internal */
export const labelOf = (e: Entry): string => LABELS[kindOf(e)]

/** A short detail printed beside the label, or `''`. @internal */
export const detailOf = (e: Entry): string => {
  switch (e.type) {
    case 'tool_definitions':
      return `${e.tools.length} tool${e.tools.length === 1 ? '' : 's'}`
    case 'tool_execution':
      return sanitizeInline(`${e.tool_name} (${e.tool_use_id})${e.is_error ? ' error' : ''}`)
    case 'stop_reason':
      return sanitizeInline(
        `${e.reason} · in ${e.usage.input_tokens} · out ${e.usage.output_tokens}`,
      )
    case 'sub_conversation':
      return sanitizeInline(`${e.tool_name} (${e.tool_use_id}) · depth ${e.depth}`)
    default:
      return ''
  }
}

const resultLines = (content: ToolResultContent): string[] =>
  typeof content === 'string'
    ? linesOf(content)
    : content.flatMap((b) => (b.type === 'text' ? linesOf(b.text) : blockLines(b)))

/** Lines with a label on the first and the rest indented under it. */
const labelled = (label: string, lines: readonly string[]): string[] =>
  lines.map((l, i) => (i === 0 ? `${label} ${l}` : `  ${l}`))

const blockLines = (b: Block): string[] => {
  switch (b.type) {
    case 'text':
      return linesOf(b.text)
    case 'thinking':
      return labelled('THINKING', linesOf(b.thinking))
    case 'redacted_thinking':
      return [`[redacted thinking, ${b.data.length} chars]`]
    case 'tool_use':
      return [sanitizeInline(`TOOL_USE ${b.id} ${b.name} ${safeJson(b.input)}`)]
    case 'tool_result':
      return labelled(
        sanitizeInline(`RESULT ${b.tool_use_id}${b.is_error === true ? ' (error)' : ''}:`),
        resultLines(b.content),
      )
    case 'image':
      return [sanitizeInline(`[image ${b.source.media_type}, ${b.source.data.length} chars]`)]
    case 'compaction':
      return labelled('COMPACTION', linesOf(b.content))
    case 'unknown':
      return [sanitizeInline(`[${b.raw.type} block]`)]
  }
}

/**
 * The content of an entry as printable lines, untruncated. A sub-conversation
 * gives its summary here; renderings draw its nested graph themselves.
 *
 * @internal
 */
export const bodyOf = (e: Entry): string[] => {
  switch (e.type) {
    case 'system_prompt':
      return linesOf(e.content)
    case 'tool_definitions':
      return e.tools.map((t) => sanitizeInline(`${t.name} — ${t.description}`))
    case 'message':
      return typeof e.content === 'string' ? linesOf(e.content) : e.content.flatMap(blockLines)
    case 'tool_execution':
      return resultLines(e.result)
    case 'stop_reason':
      return []
    case 'sub_conversation':
      return labelled('summary:', linesOf(e.summary))
  }
}

/** A line cut to `width` code points, the last one `…` when cut. @internal */
export const cut = (line: string, width: number): string => {
  if (line.length <= width) return line
  let points = 0
  let keep = 0
  for (let i = 0; i < line.length; points++) {
    if (points === width - 1) keep = i
    if (points === width) return `${line.slice(0, keep)}…`
    const c = line.charCodeAt(i)
    const low = line.charCodeAt(i + 1)
    i += c >= 0xd800 && c <= 0xdbff && low >= 0xdc00 && low <= 0xdfff ? 2 : 1
  }
  return line
}

/**
 * Lines cut to `width`, at most `maxLines` of them, then a line saying how
 * many were left out.
 *
 * @internal
 */
export const truncate = (lines: readonly string[], width: number, maxLines: number): string[] => {
  const kept = lines.slice(0, maxLines).map((l) => cut(l, width))
  const more = lines.length - kept.length
  return more === 0 ? kept : [...kept, `… ${more} more line${more === 1 ? '' : 's'}`]
}

/** A positive whole number option, or Infinity; the fallback when absent. @internal */
export const positive = (
  api: string,
  name: string,
  value: number | undefined,
  fallback: number,
): number => {
  if (value === undefined) return fallback
  if ((Number.isInteger(value) && value >= 1) || value === Infinity) return value
  throw new UsageError(
    api,
    `options.${name} must be a whole number >= 1 or Infinity, got ${String(value)}`,
  )
}

/** Whether to draw nested conversations; checks the option. @internal */
export const expandOption = (api: string, value: unknown): boolean => {
  if (value === undefined || value === 'expand') return true
  if (value === 'summary') return false
  throw new UsageError(
    api,
    `options.subConversations must be 'expand' or 'summary', got ${JSON.stringify(value)}`,
  )
}
