import { screenLines, tail } from './ansi.js'
import { parsedResponse, section, type ParseOptions, type Parser } from './ParsedResponse.js'
import { trimBlank } from './screen.js'

/** A shell or REPL prompt at the end of a line: `$ # % > >>> ❯` (bash, root, zsh, node, python, starship). */
const PROMPT = /[$#%>❯]$/
const CONTINUATION = /^\s*(?:\.\.\.|>)$/

const lastNonEmpty = (lines: readonly string[]): number => {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim() !== '') return i
  return -1
}

const promptAt = (lines: readonly string[]): number => {
  const i = lastNonEmpty(lines)
  return i >= 0 && PROMPT.test(lines[i]!) ? i : -1
}

const isReady = (raw: string): boolean => promptAt(screenLines(tail(raw, 2048))) >= 0

/**
 * Where the output of `input` lies: after the echo of its lines (each found
 * on a later line), up to the next line that starts with the echo's prompt
 * (a later command on the same screen) or `end`. Undefined when the echo is
 * not there.
 */
const outputOf = (
  lines: readonly string[],
  end: number,
  input: string,
): { readonly start: number; readonly end: number } | undefined => {
  const wanted = input
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
  let at = 0
  let prompt = ''
  for (const [n, want] of wanted.entries()) {
    let i = at
    while (i < end && !lines[i]!.endsWith(want)) i++
    if (i === end) {
      if (n === 0) return undefined
      break
    }
    if (n === 0) prompt = lines[i]!.slice(0, lines[i]!.length - want.length).trimEnd()
    at = i + 1
  }
  while (at < end && CONTINUATION.test(lines[at]!)) at++
  const isPrompt = (line: string): boolean =>
    prompt !== '' && line.startsWith(prompt) && (line[prompt.length] ?? ' ') === ' '
  let stop = at
  while (stop < end && !isPrompt(lines[stop]!)) stop++
  return { start: at, end: stop }
}

/**
 * The parser for shells and REPLs (and any program without a parser of its
 * own): ready when the last non-empty line ends in a prompt (`$`, `#`, `%`,
 * `>`, `>>>`, `❯`, a trailing space optional); one `text` section with the
 * output. Given the `input`, the output is what follows its echo up to the
 * next prompt (the lines before the echo, the trailing prompt and any later
 * command are left out). Reads a raw stream or a rendered screen.
 *
 * @category parsers
 * @example
 * import { noneParser } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const raw = '\x1b[?2004h$ echo hi\r\n\x1b[?2004lhi\r\n\x1b[?2004h$ '
 * assert.strictEqual(noneParser.isReady(raw), true)
 * assert.strictEqual(noneParser.parse(raw, { input: 'echo hi' }).text, 'hi')
 */
export const noneParser: Parser = Object.freeze({
  name: 'none',
  isReady,
  parse(raw: string, options: ParseOptions = {}) {
    const lines = screenLines(raw)
    const ready = isReady(raw)
    const prompt = ready ? promptAt(lines) : -1
    let body = lines
    let found = true
    if (options.input !== undefined) {
      const end = prompt >= 0 ? prompt : lines.length
      const output = outputOf(lines, end, options.input)
      found = output !== undefined
      body = output === undefined ? lines.slice(0, end) : lines.slice(output.start, output.end)
    }
    const text = trimBlank(body).join('\n')
    return parsedResponse({
      raw,
      sections: [section('text', text)],
      isReady: ready,
      isComplete: ready && found,
    })
  },
})
