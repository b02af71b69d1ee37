import { screenLines, tail } from './ansi.js'
import {
  parsedResponse,
  section,
  type ParseOptions,
  type Parser,
  type ResponseSection,
} from './ParsedResponse.js'
import { answerStart, dedent, inputBoxTop, isBusy, isInputBox, isRule, unbox } from './screen.js'

const BUSY = ['esc to cancel', 'esc to interrupt'] as const
const ANSWER = /^✦\s?(.*)$/
/** A tool box's title line: a status glyph, the tool's name, its arguments. */
const TOOL = /^\s*│ [✔✓✗✘x?⊷o-]\s+([A-Za-z]\w*)\s*(.*?)\s*│?$/

const isChrome = (line: string): boolean => isRule(line) || isBusy(line, BUSY)

const sectionsOf = (lines: readonly string[]): ResponseSection[] => {
  const blocks: { type: 'text' | 'tool_call'; meta: Record<string, string>; body: string[] }[] = []
  for (const line of lines) {
    if (isChrome(line)) continue
    const answer = ANSWER.exec(line)
    const tool = TOOL.exec(line)
    if (answer !== null) blocks.push({ type: 'text', meta: {}, body: [`  ${answer[1]!}`] })
    else if (tool !== null) {
      blocks.push({ type: 'tool_call', meta: { tool: tool[1]!, args: tool[2]! }, body: [] })
    } else blocks[blocks.length - 1]?.body.push(unbox(line))
  }
  return blocks.map((b) => section(b.type, dedent(b.body).join('\n'), b.meta))
}

const isReady = (raw: string): boolean => {
  const lines = screenLines(tail(raw, 4096))
  return !lines.some((l) => isBusy(l, BUSY)) && lines.some((_, i) => isInputBox(lines, i))
}

/**
 * The parser for Gemini CLI's screen. Not ready while its spinner line shows
 * "esc to cancel"; ready when the input box (`> Type your message…` under a
 * rule) is back. The answer starts after the last `> ` line carrying
 * `input`; each `✦` block is a `text` section, each tool box
 * (`│ ✔  ReadFile path │`) a `tool_call` with `metadata: { tool, args }`.
 * Gemini shows no token count. Reads a raw stream or a rendered screen.
 *
 * @category parsers
 * @example
 * import { geminiParser } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const box = ['╭────────╮', '│ >   Type your message │', '╰────────╯']
 * const r = geminiParser.parse(['> hi', '', '✦ Hello!', '', ...box].join('\n'), { input: 'hi' })
 * assert.strictEqual(r.isReady, true)
 * assert.strictEqual(r.text, 'Hello!')
 */
export const geminiParser: Parser = Object.freeze({
  name: 'gemini',
  isReady,
  parse(raw: string, options: ParseOptions = {}) {
    const lines = screenLines(raw)
    const ready = isReady(raw)
    const end = inputBoxTop(lines)
    const { start, found } = answerStart(lines, end, options.input)
    return parsedResponse({
      raw,
      sections: sectionsOf(lines.slice(start, end)),
      isReady: ready,
      isComplete: ready && found,
    })
  },
})
