import { screenLines, stripAnsi, tail } from './ansi.js'
import {
  parsedResponse,
  section,
  type ParseOptions,
  type Parser,
  type ResponseSection,
} from './ParsedResponse.js'
import {
  answerStart,
  dedent,
  inputBoxTop,
  isBusy,
  isInputBox,
  isRule,
  lastTokenCount,
  trimBlank,
} from './screen.js'

const BUSY = ['esc to interrupt', 'esc to cancel', 'ctrl+c to interrupt'] as const

/** The spinner / status line: a spinner glyph, a gerund with `…`, or a token count. */
const STATUS = /^\s*[·✢✳✶✻✽∗*]\s+\S+…\s*\(|[↓↑]\s*\d[\d.,]*\s*[kKmM]?\s+tokens/
const CHROME = [
  /^\s*\? for shortcuts/,
  /^\s*(?:[>❯]\s+)?Try "/,
  /^\s*⏵⏵/,
  /shift\+tab to cycle/,
  /^\s*Context left until auto-compact/,
  /How is Claude doing this session\?/,
  /\b1: Bad\b.*\b2: Fine\b/,
]

const isChrome = (line: string): boolean =>
  isRule(line) || isBusy(line, BUSY) || STATUS.test(line) || CHROME.some((re) => re.test(line))

const MARKER = /^[⏺●]\s?(.*)$/
const THINKING = /^(?:∴\s?|✻ (?=Thinking…))(.*)$/
const TOOL = /^([A-Za-z][\w.:-]*(?: - [\w.:-]+)?(?: \(MCP\))?)\((.*)$/
const RESULT = /^(\s*)⎿\s?/

interface Block {
  readonly type: ResponseSection['type']
  readonly head: string
  readonly body: string[]
}

const blockOf = (line: string): Block | undefined => {
  const marker = MARKER.exec(line)
  if (marker !== null) {
    const head = marker[1]!
    return { type: TOOL.test(head) ? 'tool_call' : 'text', head, body: [] }
  }
  const thinking = THINKING.exec(line)
  return thinking === null ? undefined : { type: 'thinking', head: thinking[1]!, body: [] }
}

/** A tool call: its args may wrap onto the lines before the first `⎿`. */
const toolSection = (block: Block): ResponseSection => {
  const m = TOOL.exec(block.head)!
  const firstResult = block.body.findIndex((l) => RESULT.test(l))
  const split = firstResult < 0 ? block.body.length : firstResult
  const args = [m[2]!, ...block.body.slice(0, split).map((l) => l.trim())]
    .join(' ')
    .trim()
    .replace(/\)$/, '')
  const result = block.body.slice(split).map((l) => {
    const r = RESULT.exec(l)
    return r === null ? l : ' '.repeat(r[0].length) + l.slice(r[0].length)
  })
  return section('tool_call', dedent(result).join('\n'), { tool: m[1]!, args })
}

const toSection = (block: Block): ResponseSection => {
  if (block.type === 'tool_call') return toolSection(block)
  const body = dedent(block.body)
  if (block.type === 'thinking') {
    return section('thinking', body.length > 0 ? body.join('\n') : block.head, {
      label: block.head,
    })
  }
  return section('text', trimBlank([block.head, ...body]).join('\n'))
}

const sectionsOf = (lines: readonly string[]): ResponseSection[] => {
  const blocks: Block[] = []
  for (const line of lines) {
    if (isChrome(line)) continue
    const block = blockOf(line)
    if (block !== undefined) blocks.push(block)
    else blocks[blocks.length - 1]?.body.push(line)
  }
  return blocks.map(toSection)
}

/**
 * The token count of the status line under the last input box (`? for
 * shortcuts … 19552 tokens`, `-- INSERT -- … 99.9k tokens`): the total Claude
 * Code shows, read from the screen as it stands.
 */
const totalTokens = (lines: readonly string[]): number | undefined => {
  const top = inputBoxTop(lines)
  let bottom = top + 2
  while (bottom < lines.length && !isRule(lines[bottom]!)) bottom++
  return lastTokenCount(lines.slice(bottom + 1))
}

const isReady = (raw: string): boolean => {
  const lines = screenLines(tail(raw, 4096))
  return !lines.some((l) => isBusy(l, BUSY)) && lines.some((_, i) => isInputBox(lines, i))
}

/**
 * The parser for Claude Code's screen. Not ready while a status line shows
 * "esc to interrupt", "esc to cancel" or "ctrl+c to interrupt"; ready when
 * the input box (a `>` / `❯` line under a rule) is back. The answer starts
 * after the last prompt line carrying `input` and ends at the input box.
 * Sections: `thinking` (`∴ Thinking…` and its indented text), `tool_call`
 * (`⏺ Name(args)`, `metadata: { tool, args }`, content the `⎿` result) and
 * `text` (`⏺` prose). `tokens` is the total on the status line under the
 * input box (`? for shortcuts … 19552 tokens`, `-- INSERT -- … 99.9k
 * tokens`); `turnTokens` the count of the turn on the last spinner line
 * after the input (`✻ Pondering… (12s · ↑ 15.8k tokens · esc to interrupt)`),
 * read from the raw stream too, where erased spinner lines remain. `k` and
 * `M` suffixes and thousands separators are read. Suggestions, rules, the
 * input box and the rating prompt are not content. Reads a raw stream or a
 * rendered screen.
 *
 * @category parsers
 * @example
 * import { claudeParser } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const box = ['─────', '> ', '─────', '  ? for shortcuts          19.6k tokens']
 * const r = claudeParser.parse(['> hi', '', '⏺ Hello!', '', ...box].join('\n'), { input: 'hi' })
 * assert.strictEqual(r.isReady, true)
 * assert.strictEqual(r.text, 'Hello!')
 * assert.strictEqual(r.tokens, 19_600)
 */
export const claudeParser: Parser = Object.freeze({
  name: 'claude',
  isReady,
  parse(raw: string, options: ParseOptions = {}) {
    const lines = screenLines(raw)
    const ready = isReady(raw)
    const end = inputBoxTop(lines)
    const { start, found } = answerStart(lines, end, options.input)
    const flat = stripAnsi(raw).split('\n')
    const status = flat.slice(answerStart(flat, flat.length, options.input).start)
    return parsedResponse({
      raw,
      sections: sectionsOf(lines.slice(start, end)),
      tokens: totalTokens(lines),
      turnTokens: lastTokenCount(status.filter((l) => isBusy(l, BUSY) || STATUS.test(l))),
      isReady: ready,
      isComplete: ready && found,
    })
  },
})
