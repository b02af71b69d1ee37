import { screenLines, tail } from './ansi.js'
import {
  parsedResponse,
  section,
  type ParseOptions,
  type Parser,
  type ResponseSection,
} from './ParsedResponse.js'
import { dedent, isBusy, isRule } from './screen.js'

const BUSY = ['esc to interrupt'] as const
/** A prompt line: the composer, or a past prompt in the history (`› text`; older versions `▌ text`). */
const PROMPT = /^[›▌](?:\s+(.*?))?\s*$/
/** A history cell's first line: `• text`. */
const CELL = /^•\s?(.*)$/
/** A cell that shows a tool's work: a command run, files read or changed, an MCP call. */
const TOOL = /^(Ran|Running|Explored|Exploring|Edited|Added|Deleted|Called|Calling)\b\s*(.*)$/
const RESULT = /^(\s*)└\s?/
const CHROME = [/context left/, /\? for shortcuts/, /⏎ send/]

const promptText = (line: string): string | undefined => {
  const m = PROMPT.exec(line)
  return m === null ? undefined : (m[1] ?? '')
}

const isChrome = (line: string): boolean =>
  isRule(line) || isBusy(line, BUSY) || CHROME.some((re) => re.test(line))

/** The composer: the last prompt line, with nothing but blank lines and chrome under it. */
const composerAt = (lines: readonly string[]): number => {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!
    if (promptText(line) !== undefined) return i
    if (line.trim() !== '' && !isChrome(line)) return -1
  }
  return -1
}

const isReady = (raw: string): boolean => {
  const lines = screenLines(tail(raw, 4096))
  return !lines.some((l) => isBusy(l, BUSY)) && composerAt(lines) >= 0
}

const squash = (s: string): string => s.replace(/\s+/g, ' ').replace(/\s*…$/, '').trim()

/** After the last past prompt above `end` carrying `input` (any text without one). */
const answerStart = (lines: readonly string[], end: number, input: string | undefined) => {
  const wanted = squash(input ?? '')
  for (let i = end - 1; i >= 0; i--) {
    const said = squash(promptText(lines[i]!) ?? '')
    if (said !== '' && (wanted === '' || wanted.startsWith(said) || said.startsWith(wanted)))
      return { start: i + 1, found: true }
  }
  return { start: 0, found: wanted === '' }
}

const sectionsOf = (lines: readonly string[]): ResponseSection[] => {
  const cells: { head: string; body: string[] }[] = []
  for (const line of lines) {
    if (isChrome(line)) continue
    const cell = CELL.exec(line)
    if (cell !== null) cells.push({ head: cell[1]!, body: [] })
    else cells[cells.length - 1]?.body.push(line)
  }
  return cells.map(({ head, body }) => {
    const tool = TOOL.exec(head)
    if (tool === null) return section('text', dedent([`  ${head}`, ...body]).join('\n'))
    const result = body.map((l) => l.replace(RESULT, (_, indent: string) => indent + '  '))
    return section('tool_call', dedent(result).join('\n'), { tool: tool[1]!, args: tool[2]! })
  })
}

/**
 * The parser for Codex CLI's screen. Not ready while its status line shows
 * "esc to interrupt" (`• Working (4s • esc to interrupt)`); ready when the
 * composer (`› `, or `▌ ` in older versions) is the last line above the
 * footer. The answer starts after the last `› ` line carrying `input`; each
 * `•` cell is a `text` section, or a `tool_call` for the cells that show a
 * tool's work (`• Ran npm test`, `• Explored`, `• Edited src/a.ts`) with
 * `metadata: { tool, args }` and the `└` lines as its result. Codex shows
 * no token count. Reads a raw stream or a rendered screen.
 *
 * @category parsers
 * @example
 * import { codexParser } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const screen = ['› hi', '', '• Ran ls', '  └ a.txt', '', '• Hello!', '', '› ', '', '  100% context left']
 * const r = codexParser.parse(screen.join('\n'), { input: 'hi' })
 * assert.strictEqual(r.isReady, true)
 * assert.strictEqual(r.text, 'Hello!')
 * assert.deepStrictEqual(r.sections[0]?.metadata, { tool: 'Ran', args: 'ls' })
 */
export const codexParser: Parser = Object.freeze({
  name: 'codex',
  isReady,
  parse(raw: string, options: ParseOptions = {}) {
    const lines = screenLines(raw)
    const ready = isReady(raw)
    const composer = composerAt(lines)
    const end = composer < 0 ? lines.length : composer
    const { start, found } = answerStart(lines, end, options.input)
    return parsedResponse({
      raw,
      sections: sectionsOf(lines.slice(start, end)),
      isReady: ready,
      isComplete: ready && found,
    })
  },
})
