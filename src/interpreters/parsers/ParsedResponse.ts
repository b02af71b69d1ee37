import type { ScreenState } from './ScreenState.js'

/**
 * The kinds of {@link ResponseSection}: prose, the model's visible
 * reasoning, or a tool call with its result.
 *
 * @category parsers
 */
export type SectionType = 'text' | 'thinking' | 'tool_call'

/**
 * One part of an answer. A `tool_call` carries `{ tool, args }` in
 * `metadata` and its result in `content`.
 *
 * @category parsers
 */
export interface ResponseSection {
  readonly type: SectionType
  readonly content: string
  readonly metadata: Readonly<Record<string, string>>
}

/**
 * A parser's reading of a terminal's output. `raw` is the input as given;
 * `text` is the prose of the answer (the `text` sections, blank-line
 * separated); `tokens` is the total token count the program shows (Claude
 * Code: on the status line under its input box), `turnTokens` the count of
 * the turn in progress (a spinner's `↑ 15.8k tokens`), each set only when
 * shown; `isReady` says the program waits for input; `isComplete` says it is ready
 * and the whole answer is in view (the line that carried the input was
 * found, when an input was given); `error` is what the program said
 * instead of an answer, when it refused the input itself (Claude Code's
 * `Not logged in · Please run /login`, `API Error: …`): a terminal's
 * execute then rejects with `TerminalAnswerError`.
 *
 * @category parsers
 */
export interface ParsedResponse {
  readonly raw: string
  readonly sections: readonly ResponseSection[]
  readonly text: string
  readonly tokens?: number
  readonly turnTokens?: number
  readonly error?: string
  readonly isReady: boolean
  readonly isComplete: boolean
}

/**
 * What {@link Parser.parse} takes besides the output: the `input` that was
 * sent, so the parser can find where the answer to it starts.
 *
 * @category parsers
 */
export interface ParseOptions {
  readonly input?: string
}

/**
 * Reads one program's terminal output. Both functions are pure and never
 * throw. `isReady` is called on every output chunk, so it looks only at the
 * tail of the buffer (the last 2–4 KB); `parse` reads the whole of it.
 *
 * Every shipped parser accepts both kinds of input a terminal node has:
 *
 * - a **rendered screen**: a pane's `get-text` / tmux `capture-pane` output,
 *   plain lines (colours allowed);
 * - a **raw stream** from a PTY: colours, `\r` redraws, backspaces and the
 *   relative cursor moves and erases (`CSI n A/B/C/D/G`, `CSI K`, `CSI J`)
 *   that line editors, spinners and Ink apps (Claude Code, Gemini CLI) use.
 *   The parsers replay those on a line buffer ({@link screenLines}).
 *
 * What a line buffer cannot replay is a full-screen program that addresses
 * absolute rows, sets scroll regions or uses the alternate screen: a parser
 * for such a program says `reads: 'screen'`, and a PTY terminal then gives
 * it the screen of a headless terminal emulator, asks `classify` on each
 * change, and types with its `keys`.
 *
 * @category parsers
 */
export interface Parser {
  readonly name: string
  parse(raw: string, options?: ParseOptions): ParsedResponse
  isReady(raw: string): boolean
  /**
   * What a PTY terminal gives this parser: `'stream'` (the default) the
   * output of the answer as it came, for line-oriented programs (shells,
   * REPLs) whose answer may be longer than a screen holds; `'screen'` the
   * rendered lines of a headless terminal emulator, scrollback first, for
   * full-screen programs. A screen parser's readiness is decided from the
   * screen on each change (and a quiet window), never by waiting for a line
   * feed.
   */
  readonly reads?: 'stream' | 'screen'
  /** What the screen shows (see {@link ScreenState}); a screen parser's `isReady` is `classify(screen)._tag === 'ready'`. */
  classify?(screen: string): ScreenState
  /**
   * Whether the screen shows, beyond doubt, that the turn answering
   * `input` has ended (a mark the program prints only then, under the
   * input's own prompt line and the whole answer): its readiness is then
   * confirmed at once, without holding through the quiet window. A screen
   * alone cannot tell an earlier turn with the same input from this one, so
   * a PTY terminal asks only once it saw the turn run (a `busy` or
   * `permission` screen). A program that draws no such mark has none.
   */
  finished?(screen: string, input: string): boolean
  /** The versions of the program this parser was checked against (e.g. `['2.1.332']`). */
  readonly checkedVersions?: readonly string[]
  /**
   * The keys the program expects: `submit` ends an input (default `\r`),
   * `interrupt` stops the turn in progress (default Ctrl+C). `submitDelayMs`:
   * the submit key waits until the screen shows the typed text (at most a
   * second) and then this long, for programs that read an Enter coming soon
   * after the text as a newline (Codex's paste burst, Gemini CLI's 30 ms
   * fast-return rule).
   */
  readonly keys?: {
    readonly submit?: string
    readonly interrupt?: string
    readonly submitDelayMs?: number
    /** Empties the input box (e.g. Ctrl+U), sent before typing when `draft` finds text left in it. */
    readonly clear?: string
  }
  /**
   * The text in the program's input box, or `''`: text left there (after an
   * interrupt some programs put the prompt back) is cleared before typing,
   * and a submitted input still there a moment later is submitted again.
   */
  draft?(screen: string): string
}

/**
 * A frozen {@link ResponseSection}.
 *
 * @category parsers
 * @example
 * import { section } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const call = section('tool_call', 'a.txt', { tool: 'Bash', args: 'ls' })
 * assert.strictEqual(call.metadata['tool'], 'Bash')
 * assert.ok(Object.isFrozen(call))
 */
export const section = (
  type: SectionType,
  content: string,
  metadata: Readonly<Record<string, string>> = {},
): ResponseSection => Object.freeze({ type, content, metadata: Object.freeze({ ...metadata }) })

/**
 * A frozen {@link ParsedResponse}; `text` defaults to the `text` sections
 * joined by a blank line, `isComplete` to `isReady`.
 *
 * @category parsers
 * @example
 * import { parsedResponse, section } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const r = parsedResponse({ raw: 'hi\n$ ', sections: [section('text', 'hi')], isReady: true })
 * assert.strictEqual(r.text, 'hi')
 * assert.strictEqual(r.isComplete, true)
 * assert.strictEqual(r.tokens, undefined)
 */
export const parsedResponse = (fields: {
  readonly raw: string
  readonly sections: readonly ResponseSection[]
  readonly isReady: boolean
  readonly text?: string
  readonly tokens?: number | undefined
  readonly turnTokens?: number | undefined
  readonly isComplete?: boolean
  readonly error?: string | undefined
}): ParsedResponse => {
  const sections = Object.freeze([...fields.sections])
  const text =
    fields.text ??
    sections
      .filter((s) => s.type === 'text')
      .map((s) => s.content)
      .join('\n\n')
  const base = {
    raw: fields.raw,
    sections,
    text,
    isReady: fields.isReady,
    isComplete: fields.isComplete ?? fields.isReady,
  }
  return Object.freeze({
    ...base,
    ...(fields.tokens === undefined ? {} : { tokens: fields.tokens }),
    ...(fields.turnTokens === undefined ? {} : { turnTokens: fields.turnTokens }),
    ...(fields.error === undefined ? {} : { error: fields.error }),
  })
}
