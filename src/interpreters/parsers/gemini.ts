import { screenLines } from './ansi.js'
import {
  parsedResponse,
  section,
  type ParseOptions,
  type Parser,
  type ResponseSection,
} from './ParsedResponse.js'
import { pastPrompt } from './pastPrompt.js'
import { screenState, type ScreenState } from './ScreenState.js'
import { dedent, unbox } from './screen.js'

/** The rule over the input box: a full row of `─` (a box's edge has corners). */
const RULE = /^─{8,}$/
/** A prompt line: ` > text` (older versions box it: `│ > text │`). */
const PROMPT = /^\s?[>❯](?:\s+(.*))?$/
/** The status line while a turn runs: `⠋ Thinking... (esc to cancel, 3s)`. */
const BUSY = /\(esc to cancel\b[^)]*\)/
const ANSWER = /^✦\s?(.*)$/
/** A tool's title, boxed or not: a status glyph, the tool's name, its arguments. */
const TOOL = /^\s*(?:│\s+)?([✓✔✗✘x?⊷o-])\s+([A-Z]\w*)\s+(.*)$/
/** A tool title's arguments, without the box's right edge (matched apart: one regex for both backtracks on long blank runs). */
const argsOf = (rest: string): string => rest.trimEnd().replace(/│$/, '').trimEnd()
const STATUS: Readonly<Record<string, string>> = {
  '✓': 'done',
  '✔': 'done',
  '?': 'awaiting',
  '-': 'cancelled',
  '✗': 'error',
  '✘': 'error',
  x: 'error',
  '⊷': 'running',
  o: 'pending',
}
/** Lines that are not content: shortcuts hint, notices, a box's edges. */
const CHROME = [/^\s*\? for shortcuts\s*$/, /^\s*[ℹ⚠]\s/, /^\s*[╭╰][─]+[╮╯]\s*$/, BUSY]
/** A numbered option in a box, the selected one marked `●`. */
const OPTION = /^\s*(?:●\s*)?(\d+)\.\s+(.*)$/
/** The question of a tool asking to run: `Allow execution of [Shell]?`, `Apply this change?`. */
const QUESTION = /^\s*(?:Allow execution\b|Apply this change\?|Do you want to proceed\?)/
const DIALOG_HINT = /\((?:Use Enter to select|Press Enter to submit)/

const promptText = (line: string): string | undefined => {
  const m = PROMPT.exec(unbox(line))
  return m === null ? undefined : (m[1] ?? '').trimEnd()
}

/** The top rule of the input box (a rule, at most two mode lines, the prompt line), or -1. */
const inputBoxAt = (lines: readonly string[]): number => {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!RULE.test(lines[i]!.trim())) continue
    for (let j = i + 1; j <= i + 3 && j < lines.length; j++)
      if (promptText(lines[j]!) !== undefined) return i
    return -1
  }
  return -1
}

/**
 * The lines of the last box on the screen, unboxed, when it offers a choice
 * or asks for input; undefined otherwise. Inner boxes (a command, a diff)
 * are drawn inside its side bars, so only the outer edges start a line.
 */
const lastChoiceBox = (lines: readonly string[]): string[] | undefined => {
  let bottom = lines.length - 1
  while (bottom >= 0 && !/^\s*╰─+╯\s*$/.test(lines[bottom]!)) bottom--
  let top = bottom - 1
  while (top >= 0 && !/^\s*╭─+╮\s*$/.test(lines[top]!)) top--
  if (top < 0) return undefined
  const inner = lines.slice(top + 1, bottom).map((l) => unbox(l))
  const offers = inner.some((l) => /^●\s*\d+\.\s/.test(l.trimStart()) || DIALOG_HINT.test(l))
  return offers ? inner : undefined
}

const optionsOf = (inner: readonly string[]): string[] =>
  inner.flatMap((l) => {
    const m = OPTION.exec(l)
    return m === null ? [] : [m[2]!.trimEnd()]
  })

/** A tool asking to run: `? Shell  touch a`, `? WriteFile  Writing to a.txt`, `? Edit  a.ts: …`. */
const permissionOf = (inner: readonly string[]): ScreenState | undefined => {
  const title = inner.map((l) => TOOL.exec(l)).find((m) => m !== null && m[1] === '?')
  if (title === undefined || title === null || !inner.some((l) => QUESTION.test(l)))
    return undefined
  const tool = title[2]!
  const args = argsOf(title[3]!).trim()
  const options = optionsOf(inner)
  if (/^(Shell|run_shell_command)$/.test(tool))
    return screenState.permission(tool, { command: args }, options)
  const file = /^(?:Writing to\s+)?([^\s:]+)/.exec(args)?.[1]
  return screenState.permission(tool, file === undefined ? {} : { file }, options)
}

const classify = (screen: string): ScreenState => {
  const lines = screenLines(screen)
  const box = inputBoxAt(lines)
  if (box < 0) {
    const inner = lastChoiceBox(lines)
    if (inner === undefined) return screenState.unknown()
    const asked = permissionOf(inner)
    if (asked !== undefined) return asked
    const title = inner.find((l) => l.trim() !== '')?.trim() ?? ''
    return screenState.dialog(title, optionsOf(inner))
  }
  return lines.slice(0, box).some((l) => BUSY.test(l)) ? screenState.busy() : screenState.ready()
}

/** A prompt line's text; a line inside a box (a tool's output) is none. */
const pastPromptText = (line: string): string | undefined =>
  /^\s*│/.test(line) ? undefined : promptText(line)

interface Block {
  readonly type: 'text' | 'tool_call'
  readonly meta: Record<string, string>
  readonly body: string[]
}

const sectionsOf = (lines: readonly string[]): ResponseSection[] => {
  const blocks: Block[] = []
  for (const line of lines) {
    if (CHROME.some((re) => re.test(line))) continue
    const answer = ANSWER.exec(line)
    const tool = answer === null ? TOOL.exec(line) : null
    if (answer !== null) blocks.push({ type: 'text', meta: {}, body: [`  ${answer[1]!}`] })
    else if (tool !== null) {
      const meta = { tool: tool[2]!, args: argsOf(tool[3]!), status: STATUS[tool[1]!] ?? tool[1]! }
      blocks.push({ type: 'tool_call', meta, body: [] })
    } else blocks[blocks.length - 1]?.body.push(unbox(line))
  }
  return blocks.map((b) => section(b.type, dedent(b.body).join('\n'), b.meta))
}

/**
 * The parser for Gemini CLI's screen (checked against 0.61.0). Its input
 * box is a rule, a mode line or two (`Shift+Tab to accept edits`) and the
 * prompt line (` >   Type your message…`), with a footer under it; past
 * prompts show as ` > text`. The screen is:
 *
 * - `busy` while a status line shows `(esc to cancel, 3s)`;
 * - `permission` while a tool asks to run (`? Shell  touch a` with tool and
 *   `command`; `? WriteFile  Writing to a.txt` with `file`), with its options;
 * - `dialog` for another box offering a choice or asking for input (folder
 *   trust, the auth choice, the API key), titled by its first line;
 * - `ready` when the input box shows and nothing runs;
 * - `unknown` for anything else (a blank screen while it starts).
 *
 * The answer runs from the past prompt carrying `input` to the next prompt
 * or the input box; each `✦` block is a `text` section, each tool (boxed
 * `│ ✓  Shell ls -la │`, or a line `✓  WriteFile  a.txt → Accepted`) a
 * `tool_call` with `metadata: { tool, args, status }` (`done`, `cancelled`,
 * `error`, …) and its output as content. Notices (`ℹ Request cancelled.`)
 * and the shortcuts hint are not content. Gemini shows no token count.
 *
 * No `finished`: a turn's end draws nothing on the screen but the status
 * line going away (an absence, which is what `ready` already reads), so the
 * quiet window holds. The window title's `◇  Ready` is written by an effect
 * apart from the frames, which are throttled to 30 per second: it may come
 * before the answer's last frame.
 *
 * Submit with Enter more than 30 ms after the text (an Enter that soon is a
 * newline); interrupt with Esc.
 *
 * @category parsers
 * @example
 * import { geminiParser } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const box = ['─'.repeat(40), ' Shift+Tab to accept edits', ' >   Type your message', ' ~/p   no sandbox']
 * const screen = [' > hi', '✦ Hello!', ...box].join('\n')
 * const r = geminiParser.parse(screen, { input: 'hi' })
 * assert.strictEqual(r.isComplete, true)
 * assert.strictEqual(r.text, 'Hello!')
 * assert.strictEqual(geminiParser.classify?.(` ⠋ Thinking... (esc to cancel, 1s)\n${screen}`)._tag, 'busy')
 */
export const geminiParser: Parser = Object.freeze({
  name: 'gemini',
  reads: 'screen' as const,
  checkedVersions: Object.freeze(['0.61.0']),
  keys: Object.freeze({ submit: '\r', interrupt: '\x1b', submitDelayMs: 50 }),
  classify,
  isReady: (screen: string) => classify(screen)._tag === 'ready',
  parse(raw: string, options: ParseOptions = {}) {
    const lines = screenLines(raw)
    const ready = classify(raw)._tag === 'ready'
    const box = inputBoxAt(lines)
    const end = box < 0 ? lines.length : box
    const prompt = pastPrompt(lines, end, options.input, pastPromptText)
    let stop = prompt + 1
    while (stop < end && (promptText(lines[stop]!) ?? '') === '') stop++
    return parsedResponse({
      raw,
      sections: sectionsOf(lines.slice(prompt + 1, stop)),
      isReady: ready,
      isComplete: ready && (prompt >= 0 || options.input === undefined),
    })
  },
})
