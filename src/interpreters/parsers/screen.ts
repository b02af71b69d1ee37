/**
 * Line helpers shared by the agent parsers (Claude Code, Gemini CLI): both
 * draw an input box between rule lines at the bottom of the screen, echo
 * past prompts as `> text` lines, and indent the continuation of a block.
 * Internal: not exported from the package.
 */

const RULE_CHARS = /^[\s─━═╭╮╰╯┌┐└┘│]+$/
const RULE_RUN = /[─━═]{3}/

/** A horizontal rule or a box's top or bottom edge. */
export const isRule = (line: string): boolean => RULE_CHARS.test(line) && RULE_RUN.test(line)

/** The line without a box's side bars (`│ text │` → `text`). */
export const unbox = (line: string): string => {
  if (!/^\s*│/.test(line)) return line
  const inner = line.replace(/^\s*│ ?/, '')
  const end = inner.trimEnd()
  return end.endsWith('│') ? end.slice(0, -1).trimEnd() : inner
}

const PROMPT = /^[>❯](?:\s+(.*))?$/

/** The text after a prompt marker (`> text`, `❯ text`, `│ > text │`), or undefined. */
export const promptText = (line: string): string | undefined => {
  const m = PROMPT.exec(unbox(line).trimEnd())
  return m === null ? undefined : (m[1] ?? '')
}

/** Whether line `i` is the prompt line of an input box: a rule right above it. */
export const isInputBox = (lines: readonly string[], i: number): boolean =>
  i > 0 && isRule(lines[i - 1]!) && promptText(lines[i]!) !== undefined

/** The index of the top rule of the last input box, or `lines.length`. */
export const inputBoxTop = (lines: readonly string[]): number => {
  for (let i = lines.length - 1; i > 0; i--) if (isInputBox(lines, i)) return i - 1
  return lines.length
}

const squash = (s: string): string => s.replace(/\s+/g, ' ').replace(/\s*…$/, '').trim()

/**
 * Where the answer starts: after the last prompt line above `end` that
 * carries `input` (its first line, or a start of 40 characters or cut with
 * `…`, may be all the screen shows of a long input; a shorter start is not
 * taken: `ping 1` does not carry `ping 10`), else after the last prompt
 * line with any text, else at 0.
 * `found` says the input's own line was found (always, without an input).
 */
export const answerStart = (
  lines: readonly string[],
  end: number,
  input: string | undefined,
): { readonly start: number; readonly found: boolean } => {
  const wanted = input === undefined ? '' : squash(input)
  const firstLine = input === undefined ? '' : squash(input.split('\n')[0]!)
  let fallback = -1
  for (let i = Math.min(end, lines.length) - 1; i >= 0; i--) {
    const text = promptText(lines[i]!)
    if (text === undefined || isInputBox(lines, i)) continue
    const said = squash(text)
    if (said === '') continue
    if (wanted === '') return { start: i + 1, found: true }
    // The line may show only the start of the input: its first line, or a cut long one (not `ping 1` for `ping 10`).
    const cut = said.length >= 40 || /…\s*$/.test(text) || said === firstLine
    if (said === wanted || said.startsWith(wanted) || (cut && wanted.startsWith(said))) {
      return { start: i + 1, found: true }
    }
    if (fallback < 0) fallback = i + 1
  }
  return { start: Math.max(fallback, 0), found: wanted === '' }
}

/** `lines` without blank lines at either end. */
export const trimBlank = (lines: readonly string[]): string[] => {
  let from = 0
  let to = lines.length
  while (from < to && lines[from]!.trim() === '') from++
  while (to > from && lines[to - 1]!.trim() === '') to--
  return lines.slice(from, to)
}

/** `lines` with their common indentation removed, blank lines at the ends dropped. */
export const dedent = (lines: readonly string[]): string[] => {
  const kept = trimBlank(lines)
  const indents = kept.filter((l) => l.trim() !== '').map((l) => /^\s*/.exec(l)![0].length)
  const cut = indents.length === 0 ? 0 : Math.min(...indents)
  return kept.map((l) => l.slice(cut))
}

/** Whether a line shows one of `phrases` (lower case). */
const shows = (line: string, phrases: readonly string[]): boolean => {
  const lower = line.toLowerCase()
  return phrases.some((p) => lower.includes(p))
}

/** A spinner glyph: Claude Code's stars and dots, the braille dots of cli-spinners. */
export const SPINNER = /^\s*[·✢✳✶✻✽∗*\u2800-\u28ff]/

/**
 * Whether a line is a status line showing one of `phrases` ("esc to
 * interrupt"), not answer content that happens to mention it: content is a
 * `⏺` / `●` / `⎿` line or a line indented by two spaces (unless it starts
 * with a spinner glyph).
 */
export const isBusy = (line: string, phrases: readonly string[]): boolean =>
  shows(line, phrases) && !/^\s*[⏺●⎿✦]/.test(line) && (!/^\s{2}/.test(line) || SPINNER.test(line))

const COUNT = /(\d+(?:[.,]\d+)*)\s*([kKmM])?\s+tokens?\b/g

/**
 * The token count of the last of `lines` that shows one (`↓ 1.2k tokens`,
 * `· 345 tokens`, `3.4M tokens`), or undefined.
 */
export const lastTokenCount = (lines: readonly string[]): number | undefined => {
  for (let i = lines.length - 1; i >= 0; i--) {
    const matches = [...lines[i]!.matchAll(COUNT)]
    const m = matches[matches.length - 1]
    if (m === undefined) continue
    const digits = m[1]!
    const scale = { k: 1e3, K: 1e3, m: 1e6, M: 1e6 }[m[2] ?? ''] ?? 1
    const value = Number.parseFloat(
      scale === 1 ? digits.replace(/[.,]/g, '') : digits.replace(/,/g, '.'),
    )
    const count = Math.round(value * scale)
    if (Number.isSafeInteger(count)) return count
  }
  return undefined
}
