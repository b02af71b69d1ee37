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
import { dedent, isRule } from './screen.js'

/** A prompt line: the composer, or a past prompt in the history (`› text`; older versions `▌ text`). */
const PROMPT = /^[›▌](?:\s+(.*?))?\s*$/
/** A history cell's first line: `• text`, or an approval notice (`✔ You approved …`, `✗ You canceled …`). */
const CELL = /^[•✔✗]\s?(.*)$/
/** A cell that shows a tool's work: a command run, files read or changed, an MCP call. */
const TOOL =
  /^(Ran|Running|Explored|Exploring|Edited|Editing|Added|Deleted|Called|Calling|Exited \(status \d+\))\s*(.*)$/
const RESULT = /^(\s*)└\s?/
/** What ends a turn in the history: the separator (`Worked for 2s • 08:10`) or an error or interrupt (`■ …`). */
const TURN_END = /^(?:\s+Worked for\b|■\s)/
/** The separator Codex draws under a turn once it completed, its answer all drawn above it. */
const WORKED = /^\s+Worked for\b/
/** A cell still being drawn: a command running, a bullet with nothing yet. */
const UNFINISHED = /^[•◦]\s+Running\b|^[•◦]\s*$/
/** The status line while the model thinks: `• Working (3s • esc to interrupt)`. */
const WORKING = /^(?:•|[\u2800-\u28ff])\s+\S.*\(.*esc to interrupt\)/
/** Codex still loading (`loading` under the header while it starts, `Forking session…`): not ready yet. */
const LOADING = /^\s+(?:(?:Forking|Resuming|Loading) (?:session|thread)\b.*…|loading)\s*$/
/**
 * Codex starting its thread (its app-server, and with `daemon_auto_start` the
 * daemon it installs and connects to): the composer is drawn under its
 * animated logo before a prompt can be sent, its footer without the model
 * line (`gpt-5 default · ~/dir`) a started thread shows; a prompt sent then
 * waits under `Waiting for startup`. Not ready yet.
 */
const LOGO = /[\u2800-\u28ff]{8}/
const STARTUP = /^\s+Waiting for startup\b/
/** Lines of a cell that are not its content. */
const CELL_CHROME = [/^\s*└ Tip: /, /^\s+\+ Show details\s*$/, /^\s+… \+\d+ lines?/]
/** A numbered option of a dialog or approval, the selected one marked `›`. */
const OPTION = /^[›▌\s]\s*(\d+)\.\s+(.*?)\s*$/
const PERMISSION = /^\s*Would you like to (run the following command|make the following edits)\?/
const DIALOG_HINT = /^\s*(?:Press enter to confirm|enter continue|enter to confirm)/i

const promptText = (line: string): string | undefined => {
  const m = PROMPT.exec(line)
  return m === null ? undefined : (m[1] ?? '')
}

/**
 * The composer: the last prompt line with nothing under it but blank lines
 * and the footer (lines indented by two spaces: the model and directory, the
 * shortcuts, warnings, context left), or -1.
 */
const composerAt = (lines: readonly string[]): number => {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!
    if (promptText(line) !== undefined) return OPTION.test(line) ? -1 : i
    if (line.trim() !== '' && !/^\s{2}/.test(line)) return -1
  }
  return -1
}

/** The options of a dialog or approval whose first option is at `at`. */
const optionsFrom = (lines: readonly string[], at: number): string[] => {
  const options: string[] = []
  for (let i = at; i < lines.length; i++) {
    const m = OPTION.exec(lines[i]!)
    if (m === null) break
    options.push(m[2]!)
  }
  return options
}

/** The first numbered option marked `›` as selected, from the bottom. */
const selectedOptionAt = (lines: readonly string[]): number => {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^[›▌]\s*\d+\.\s/.test(lines[i]!)) {
      let first = i
      while (first > 0 && OPTION.test(lines[first - 1]!)) first--
      return first
    }
  }
  return -1
}

/** An approval prompt: its question, `$ command` (a command) or the file to edit, its options. */
const permissionOf = (lines: readonly string[], options: number): ScreenState | undefined => {
  let question = -1
  for (let i = options - 1; i >= 0 && question < 0; i--)
    if (PERMISSION.test(lines[i]!)) question = i
  if (question < 0) return undefined
  const body = lines.slice(question + 1, options).map((l) => l.trim())
  const listed = optionsFrom(lines, options)
  if (/command/.test(lines[question]!)) {
    const command = body
      .filter((l) => l.startsWith('$ '))
      .map((l) => l.slice(2))
      .join('\n')
    return screenState.permission('shell', command === '' ? {} : { command }, listed)
  }
  const file = body.map(
    (l) => /^(?:[•]\s*)?(?:Edited|Added|Deleted|Update|Create)?\s*(\S+\.\S+)/.exec(l)?.[1],
  )
  const named = file.find((f) => f !== undefined)
  return screenState.permission('apply_patch', named === undefined ? {} : { file: named }, listed)
}

/** The first non-blank line above the options, up to a blank gap: a dialog's title. */
const dialogTitle = (lines: readonly string[], options: number): string => {
  let i = options - 1
  while (i >= 0 && lines[i]!.trim() === '') i--
  let top = i
  while (top > 0 && lines[top - 1]!.trim() !== '') top--
  let title = top
  // A heading (`Folder access`) stands alone above the question.
  for (let j = top; j >= 0 && j >= top - 3; j--) if (lines[j]!.trim() !== '') title = j
  return lines[title]?.trim() ?? ''
}

/** The index of the last past prompt above `end` (a `› text` line), or -1. */
const lastPromptAt = (lines: readonly string[], end: number): number => {
  for (let i = end - 1; i >= 0; i--) if ((promptText(lines[i]!) ?? '') !== '') return i
  return -1
}

/**
 * Whether Codex is still starting: a prompt waits for startup, or the logo
 * shows over an empty history with no model line (nor any `·` line) in the
 * footer yet.
 */
const starting = (lines: readonly string[], composer: number): boolean => {
  const footer = lines.slice(composer + 1)
  if (footer.some((l) => STARTUP.test(l))) return true
  const above = lines.slice(0, composer)
  return (
    !footer.some((l) => l.includes(' · ')) &&
    above.some((l) => LOGO.test(l)) &&
    !above.some((l) => CELL.test(l) || (promptText(l) ?? '') !== '')
  )
}

/** Whether a turn runs: its prompt has no end below it, or a cell shows with no prompt and no end. */
const turnRuns = (lines: readonly string[], composer: number): boolean => {
  if (lines.slice(0, composer).some((l) => WORKING.test(l) || LOADING.test(l))) return true
  const prompt = lastPromptAt(lines, composer)
  const from = Math.max(prompt, 0)
  const ended = lines.slice(from, composer).some((l) => TURN_END.test(l))
  if (ended) return false
  return prompt >= 0 || lines.slice(0, composer).some((l) => /^•\s/.test(l))
}

const classify = (screen: string): ScreenState => {
  const lines = screenLines(screen)
  const selected = selectedOptionAt(lines)
  if (selected >= 0 && composerAt(lines) < 0) {
    const asked = permissionOf(lines, selected)
    if (asked !== undefined) return asked
    if (lines.slice(selected).some((l) => DIALOG_HINT.test(l)))
      return screenState.dialog(dialogTitle(lines, selected), optionsFrom(lines, selected))
  }
  const composer = composerAt(lines)
  if (composer < 0) return screenState.unknown()
  return starting(lines, composer) || turnRuns(lines, composer)
    ? screenState.busy()
    : screenState.ready()
}

/** The end of the answer that starts at `start`: its turn's end, else the composer. */
const answerEnd = (lines: readonly string[], start: number, composer: number): number => {
  for (let i = start; i < composer; i++) {
    if (TURN_END.test(lines[i]!) || (promptText(lines[i]!) ?? '') !== '') return i
  }
  return composer
}

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim()

/**
 * Whether the turn answering `input` completed: its past prompt (the input
 * whole on it; the newest prompt of the history) is closed by the `Worked
 * for` separator, the composer does not hold the input (not sent yet), and
 * the screen is ready.
 */
const finished = (screen: string, input: string): boolean => {
  const lines = screenLines(screen)
  const composer = composerAt(lines)
  if (composer < 0 || classify(screen)._tag !== 'ready') return false
  const wanted = squash(input)
  if (squash(promptText(lines[composer]!) ?? '') === wanted) return false
  const prompt = lastPromptAt(lines, composer)
  if (prompt < 0 || squash(promptText(lines[prompt]!) ?? '') !== wanted) return false
  const end = answerEnd(lines, prompt + 1, composer)
  // A frame caught mid-redraw can show an earlier turn's line under this prompt, under cells
  // still running: that is no finished turn.
  return (
    end < composer &&
    WORKED.test(lines[end]!) &&
    !lines.slice(prompt + 1, end).some((l) => UNFINISHED.test(l))
  )
}

const isChrome = (line: string): boolean =>
  isRule(line) || CELL_CHROME.some((re) => re.test(line)) || WORKING.test(line)

const sectionsOf = (lines: readonly string[]): ResponseSection[] => {
  const cells: { head: string; notice: boolean; body: string[] }[] = []
  for (const line of lines) {
    if (isChrome(line)) continue
    const cell = CELL.exec(line)
    if (cell !== null) cells.push({ head: cell[1]!, notice: !line.startsWith('•'), body: [] })
    else cells[cells.length - 1]?.body.push(line)
  }
  return cells
    .filter((c) => !c.notice)
    .map(({ head, body }) => {
      const tool = TOOL.exec(head)
      if (tool === null) return section('text', dedent([`  ${head}`, ...body]).join('\n'))
      const result = body.map((l) => l.replace(RESULT, (_, indent: string) => indent + '  '))
      const name = tool[1]!.startsWith('Exited') ? 'Ran' : tool[1]!
      const status = tool[1]!.startsWith('Exited') ? { status: tool[1]! } : {}
      return section('tool_call', dedent(result).join('\n'), {
        tool: name,
        args: tool[2]!,
        ...status,
      })
    })
}

/**
 * The parser for Codex CLI's screen (checked against 0.171.0). Codex draws
 * its history inline, above a composer (`› `) and a footer of lines
 * indented by two spaces; a turn ends with a separator (`Worked for 2s •
 * 08:10`) or a `■` line (interrupted, an error). The screen is:
 *
 * - `busy` while it starts (its animated logo over an empty history, or a
 *   prompt sent meanwhile `Waiting for startup`: the thread is not there
 *   yet, and a prompt would only wait), while the status line shows
 *   `Working (… esc to interrupt)`, and
 *   while the answer streams (the last prompt has no end under it: Codex
 *   shows no status then);
 * - `permission` for an approval (`Would you like to run the following
 *   command?`, tool `shell` with the `$` command; edits: tool `apply_patch`);
 * - `dialog` for another numbered choice (`Trust this folder?`);
 * - `ready` when the composer is the last prompt and no turn runs;
 * - `unknown` for anything else (a blank screen while it starts).
 *
 * The answer runs from the past prompt carrying `input` to its turn's end;
 * each `•` cell is a `text` section, or a `tool_call` for the cells that
 * show a tool's work (`• Ran npm test`, `• Explored`, `• Edited src/a.ts`,
 * `• Exited (status 1) cmd`) with `metadata: { tool, args }` and the `└`
 * lines as its result. Tips, approval notices and "Show details" are not
 * content. Codex shows no token count.
 *
 * `finished`: `Worked for 1s • 08:10` closes the turn of the newest past
 * prompt, which carries `input` whole, and the screen is ready: Codex draws
 * that separator only once the turn completed, under its whole answer (an
 * interrupt or an error ends with `■` instead, and waits the quiet window).
 * A long input that wraps is not matched whole, so its turn waits the
 * window too.
 *
 * Submit with Enter sent apart from
 * the text (typed and Enter in one write is a paste, whose Enter is a
 * newline); interrupt with Esc.
 *
 * @category parsers
 * @example
 * import { codexParser } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const history = ['› hi', '', '• Ran ls', '  └ a.txt', '', '• Hello!', '', '  Worked for 1s • 08:10']
 * const screen = [...history, '', '› Ask Codex to do anything', '', '  gpt-5 default · ~/p'].join('\n')
 * const r = codexParser.parse(screen, { input: 'hi' })
 * assert.strictEqual(r.isComplete, true)
 * assert.strictEqual(r.text, 'Hello!')
 * assert.deepStrictEqual(r.sections[0]?.metadata, { tool: 'Ran', args: 'ls' })
 * assert.strictEqual(codexParser.finished?.(screen, 'hi'), true)
 * assert.strictEqual(codexParser.classify?.(screen.replace(/\n {2}Worked.*\n/, '\n'))._tag, 'busy')
 */
export const codexParser: Parser = Object.freeze({
  name: 'codex',
  reads: 'screen' as const,
  checkedVersions: Object.freeze(['0.171.0']),
  keys: Object.freeze({ submit: '\r', interrupt: '\x1b', submitDelayMs: 50 }),
  classify,
  draft: (screen: string): string => {
    const lines = screenLines(screen)
    const at = composerAt(lines)
    return at < 0 ? '' : (promptText(lines[at]!) ?? '').trim()
  },
  isReady: (screen: string) => classify(screen)._tag === 'ready',
  finished,
  parse(raw: string, options: ParseOptions = {}) {
    const lines = screenLines(raw)
    const ready = classify(raw)._tag === 'ready'
    const composer = composerAt(lines)
    const end = composer < 0 ? lines.length : composer
    const prompt = pastPrompt(lines, end, options.input, promptText)
    const start = prompt + 1
    return parsedResponse({
      raw,
      sections: sectionsOf(lines.slice(start, answerEnd(lines, start, end))),
      isReady: ready,
      isComplete: ready && (prompt >= 0 || options.input === undefined),
    })
  },
})
