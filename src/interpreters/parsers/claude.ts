import { screenLines } from './ansi.js'
import {
  parsedResponse,
  section,
  type ParseOptions,
  type Parser,
  type ResponseSection,
} from './ParsedResponse.js'
import { screenState, type ScreenState } from './ScreenState.js'
import {
  answerStart,
  dedent,
  inputBoxTop,
  isInputBox,
  isRule,
  lastTokenCount,
  promptText,
  trimBlank,
} from './screen.js'

/** The Claude Code versions whose screens this parser was checked against (test/fixtures/claude-code/<version>). */
export const CLAUDE_CHECKED_VERSIONS: readonly string[] = Object.freeze(['2.1.332'])

const BUSY = ['esc to interrupt', 'esc to cancel', 'ctrl+c to interrupt'] as const

/** A spinner line: a glyph, a gerund ending in `…`, maybe `(7s · ↓ 23 tokens)`. */
const SPINNER = /^\s*[·✢✳✶✻✽∗*]\s+\p{Lu}[\p{L}'-]*…/u
/** The line a finished turn leaves: `✻ Baked for 2s · done 6:34 AM`, `✻ Worked for 1s`. */
const DONE = /^\s*[✻✢✳✶✽*]\s+\p{Lu}[\p{L}'-]* for \d+(?:[hms]\s*)+/u
/** A tool group Claude Code collapses: `Ran 1 shell command`, `Read 2 files`, `Did not run 1 call`. */
const GROUP = /^\s{2}((?:Ran|Read|Wrote|Edited|Searched|Listed|Did not run|Fetched)\b.*\S)\s*$/
const INTERRUPTED = /^\s*⎿\s+Interrupted\b/
/** What an empty input box shows after a refused prompt (drawn dim: not text typed). */
const PLACEHOLDER = /^Once fixed, resend your message$/
/** A notice under the prompt, before any answer: the program refused the input (`⎿  Not logged in · Please run /login`). */
const NOTICE = /^\s*⎿\s+(.+?)\s*$/
const TIP = /^\s*⎿\s+Tip:/
const CHROME = [
  /^\s*\? for shortcuts/,
  /^\s*(?:[>❯]\s+)?Try "/,
  /^\s*[⏵⏸]/,
  /shift\+tab to cycle/,
  /^\s*◐ .*\/effort\s*$/,
  /^\s*Context left until auto-compact/,
  /How is Claude doing this session\?/,
  /\b1: Bad\b.*\b2: Fine\b/,
  /^\s*tmux\b.*\b(?:detected|notice)/i,
  /ctrl\+y to paste deleted text/,
]

const shows = (line: string, phrases: readonly string[]): boolean => {
  const lower = line.toLowerCase()
  return phrases.some((p) => lower.includes(p))
}

const isChrome = (line: string): boolean =>
  isRule(line) ||
  SPINNER.test(line) ||
  DONE.test(line) ||
  INTERRUPTED.test(line) ||
  TIP.test(line) ||
  CHROME.some((re) => re.test(line))

const MARKER = /^[⏺●]\s?(.*)$/
const THINKING = /^(?:∴\s?|✻ (?=Thinking…))(.*)$/
const TOOL = /^([A-Za-z][\w.:-]*(?: - [\w.:-]+)?(?: \(MCP\))?)\((.*)$/
const RESULT = /^(\s*)⎿\s?/

interface Block {
  readonly type: ResponseSection['type'] | 'group'
  readonly head: string
  readonly body: string[]
}

const blockOf = (line: string): Block | undefined => {
  const marker = MARKER.exec(line)
  if (marker !== null) {
    const head = marker[1]!
    return { type: TOOL.test(head) ? 'tool_call' : 'text', head, body: [] }
  }
  const group = GROUP.exec(line)
  if (group !== null) return { type: 'group', head: group[1]!, body: [] }
  const thinking = THINKING.exec(line)
  return thinking === null ? undefined : { type: 'thinking', head: thinking[1]!, body: [] }
}

/** The result lines of a tool cell, `⎿` taken off and the indentation kept. */
const resultOf = (lines: readonly string[]): string =>
  dedent(
    lines.map((l) => {
      const r = RESULT.exec(l)
      return r === null ? l : ' '.repeat(r[0].length) + l.slice(r[0].length)
    }),
  ).join('\n')

/** A tool call: its args may wrap onto the lines before the first `⎿`. */
const toolSection = (block: Block): ResponseSection => {
  const m = TOOL.exec(block.head)!
  const firstResult = block.body.findIndex((l) => RESULT.test(l))
  const split = firstResult < 0 ? block.body.length : firstResult
  const args = [m[2]!, ...block.body.slice(0, split).map((l) => l.trim())]
    .join(' ')
    .trim()
    .replace(/\)$/, '')
  return section('tool_call', resultOf(block.body.slice(split)), { tool: m[1]!, args })
}

/** A collapsed group (`Ran 1 shell command`): the tool is told by its words, the `⎿` lines are what shows of it. */
const groupSection = (block: Block): ResponseSection => {
  const shown = resultOf(block.body)
  const command = /^\$ (.*)$/m.exec(shown)?.[1]
  const tool =
    /shell command/.test(block.head) || command !== undefined
      ? 'Bash'
      : /^Read\b/.test(block.head)
        ? 'Read'
        : /^(?:Wrote|Edited)\b/.test(block.head)
          ? 'Edit'
          : 'tools'
  return section('tool_call', shown, {
    tool,
    summary: block.head,
    ...(command === undefined ? {} : { args: command }),
  })
}

const toSection = (block: Block): ResponseSection => {
  if (block.type === 'tool_call') return toolSection(block)
  if (block.type === 'group') return groupSection(block)
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

/** The screen's lines, no-break spaces (Claude Code draws one after `❯`) read as spaces, trailing blanks dropped. */
const linesOf = (screen: string): string[] =>
  screenLines(screen).map((l) => l.replace(/\u00a0/g, ' ').trimEnd())

const SELECTED = /^(\s*)❯\s+(\S.*)$/
const NUMBER = /^\d+\.\s+/

/**
 * The options of a menu: the selected line (`❯ Yes`) and the lines around
 * it whose text starts in the same column, numbers (`1. `) taken off.
 */
const optionsOf = (lines: readonly string[]): string[] => {
  const at = lines.findLastIndex((l, i) => SELECTED.test(l) && !isInputBox(lines, i))
  if (at < 0) return []
  const m = SELECTED.exec(lines[at]!)!
  const col = lines[at]!.length - m[2]!.length
  const inColumn = (l: string): boolean =>
    l.length > col && l.slice(0, col).trim() === '' && l[col] !== ' '
  let from = at
  let to = at + 1
  while (from > 0 && inColumn(lines[from - 1]!)) from--
  while (to < lines.length && inColumn(lines[to]!)) to++
  return lines.slice(from, to).map((l) => l.slice(col).trim().replace(NUMBER, ''))
}

const DASHES = /^\s*╌{3,}/
const EDIT_QUESTION = /Do you want to (?:make this edit to|create|overwrite) (.+?)\?\s*$/

/**
 * A permission prompt: under a rule, the tool's title (`Bash command`, `Edit
 * file`, `Create file`), the command or the diff between dashed rules, the
 * question and numbered options.
 */
const permissionOf = (lines: readonly string[]): ScreenState | undefined => {
  const question = lines.findLastIndex((l) =>
    /Do you want to (?:proceed|make this edit|create|overwrite|allow)/.test(l),
  )
  if (question < 0) return undefined
  const options = optionsOf(lines.slice(question + 1))
  if (options.length === 0) return undefined
  let top = question
  while (top > 0 && !isRule(lines[top]!)) top--
  const title =
    lines
      .slice(top + 1, question)
      .find((l) => l.trim() !== '')
      ?.trim() ?? ''
  const tool = /^Bash\b/.test(title)
    ? 'Bash'
    : /^(?:Edit|Update)\b/.test(title)
      ? 'Edit'
      : /^(?:Create|Write)\b/.test(title)
        ? 'Write'
        : (/^([A-Za-z][\w.:-]*)/.exec(title)?.[1] ?? 'tool')
  const dashes = lines
    .slice(top, question)
    .map((l, i) => (DASHES.test(l) ? top + i : -1))
    .filter((i) => i >= 0)
  const boxed =
    dashes.length >= 2
      ? trimBlank(lines.slice(dashes[0]! + 1, dashes[1]))
          .map((l) => l.trim())
          .join('\n')
      : undefined
  const file = EDIT_QUESTION.exec(lines[question]!)?.[1]
  return screenState.permission(
    tool,
    tool === 'Bash' ? { command: boxed } : { file: file ?? boxed },
    options,
  )
}

const DIALOGS: readonly (readonly [RegExp, string])[] = [
  [/Do you trust the files in this folder\?|trust this folder/i, 'trust this folder'],
  [/Do you want to use this API key\?/i, 'use this API key'],
  [/Unable to connect to Anthropic services/, 'unable to connect to Anthropic (onboarding)'],
  [/Welcome to Claude Code/, 'onboarding'],
  [/Choose the text style|Select login method|Press Enter to continue/i, 'onboarding'],
]

/** Where the last input box is, if it is near the bottom of the screen (the input, a rule and the footer under it). */
const boxAt = (lines: readonly string[]): number | undefined => {
  const top = inputBoxTop(lines)
  return top < lines.length && lines.length - top <= 16 ? top : undefined
}

const classify = (screen: string): ScreenState => {
  const lines = linesOf(screen)
  const top = boxAt(lines)
  if (top !== undefined) {
    // The history since the last prompt line, and the footer under the box.
    let from = top - 1
    while (from > 0 && (promptText(lines[from]!) === undefined || isInputBox(lines, from))) from--
    const around = lines.slice(Math.max(from, 0))
    const busy = around.some(
      (l, i) =>
        (shows(l, BUSY) && (from + i > top || SPINNER.test(l))) ||
        (SPINNER.test(l) && from + i < top),
    )
    return busy ? screenState.busy() : screenState.ready()
  }
  const permission = permissionOf(lines)
  if (permission !== undefined) return permission
  const text = lines.join('\n')
  for (const [re, title] of DIALOGS) {
    if (re.test(text)) return screenState.dialog(title, optionsOf(lines))
  }
  return screenState.unknown()
}

/**
 * The parser for Claude Code's screen, checked against the versions in
 * {@link CLAUDE_CHECKED_VERSIONS} (screens kept under
 * `test/fixtures/claude-code/<version>/`). It reads the screen, not the
 * byte stream (`reads: 'screen'`), submits with Enter, interrupts with
 * Escape (Ctrl+C twice would end the program) and clears a prompt left in
 * the box (Claude Code puts an interrupted prompt back) with Ctrl+U.
 *
 * `finished`: the line a finished turn leaves (`✻ Sautéed for 0s · done
 * 8:32 AM`) stands under the input's prompt line and the screen is ready:
 * the turn is over for certain, with no quiet window to wait.
 *
 * `classify`: `busy` while a spinner line (`✶ Befuddling… (7s · ↓ 23
 * tokens)`) stands above the input box or the footer under it says "esc to
 * interrupt"; `ready` when the input box (a `❯` line under a rule, near the
 * bottom) is back and neither shows; `permission` for a tool prompt ("Do
 * you want to proceed?" with numbered options: the tool from its title,
 * the command or file it names); `dialog` for folder trust, "use this API
 * key?", onboarding, or the offline onboarding error; anything else is
 * `unknown`.
 *
 * `parse`: the answer starts after the last prompt line carrying `input`
 * and ends at the input box. Sections: `text` (`●`/`⏺` prose), `tool_call`
 * (`● Name(args)` with its `⎿` result; a collapsed group such as `Ran 1
 * shell command` as tool `Bash` with `summary`) and `thinking`. Not
 * content: the line a finished turn leaves (`✻ Baked for 2s · done 6:34
 * AM`), `⎿ Interrupted · …`, tips, spinners, the effort line, rules, the box
 * and its footer. A `⎿` notice right under the prompt, before any answer
 * (`Not logged in · Please run /login`, `API Error: …`), is the `error`. `turnTokens` is the spinner's count (an estimate: exact
 * usage comes from the model proxy); `tokens` is not shown by these
 * versions.
 *
 * @category parsers
 * @example
 * import { claudeParser } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const rule = '─'.repeat(20)
 * const screen = ['❯ hi', '● Hello!', '✻ Baked for 2s · done 6:34 AM', rule, '❯ ', rule, '  ? for shortcuts']
 * const r = claudeParser.parse(screen.join('\n'), { input: 'hi' })
 * assert.strictEqual(r.isComplete, true)
 * assert.strictEqual(r.text, 'Hello!')
 * assert.strictEqual(claudeParser.classify?.(screen.join('\n'))._tag, 'ready')
 */
export const claudeParser: Parser = Object.freeze({
  name: 'claude',
  reads: 'screen' as const,
  checkedVersions: CLAUDE_CHECKED_VERSIONS,
  keys: Object.freeze({ submit: '\r', interrupt: '\x1b', clear: '\x15' }),
  classify,
  draft: (screen: string): string => {
    const lines = linesOf(screen)
    const top = boxAt(lines)
    const text = top === undefined ? '' : (promptText(lines[top + 1]!) ?? '').trim()
    return PLACEHOLDER.test(text) ? '' : text
  },
  isReady: (screen: string) => classify(screen)._tag === 'ready',
  finished: (screen: string, input: string): boolean => {
    const lines = linesOf(screen)
    const top = boxAt(lines)
    if (top === undefined || classify(screen)._tag !== 'ready') return false
    const { start, found } = answerStart(lines, top, input)
    return found && lines.slice(start, top).some((l) => DONE.test(l))
  },
  parse(screen: string, options: ParseOptions = {}) {
    const lines = linesOf(screen)
    const ready = classify(screen)._tag === 'ready'
    const top = boxAt(lines) ?? lines.length
    const { start, found } = answerStart(lines, top, options.input)
    // A prompt of several lines goes on, indented, under its `❯` line.
    let from = start
    while (from < top && /^ {2}[^\s⎿]/.test(lines[from]!) && !GROUP.test(lines[from]!)) from++
    const answer = lines.slice(from, top)
    const first = answer.find((l) => l.trim() !== '') ?? ''
    const notice = INTERRUPTED.test(first) ? undefined : NOTICE.exec(first)?.[1]
    return parsedResponse({
      raw: screen,
      sections: sectionsOf(answer),
      error: found ? notice : undefined,
      turnTokens: lastTokenCount(answer.filter((l) => SPINNER.test(l))),
      isReady: ready,
      isComplete: ready && found,
    })
  },
})
