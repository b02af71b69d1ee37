/**
 * Terminal output to plain lines: escape sequences removed, carriage
 * returns, backspaces and (optionally) cursor moves replayed on a line
 * buffer. Pure and linear in the input.
 */

// One token per match, tried in order: CSI (final byte optional, so a
// sequence cut at a chunk boundary is still swallowed), OSC (ended by BEL or
// ST, or by the next ESC), DCS / SOS / PM / APC strings, other escapes
// (charset selects `ESC ( B`, `ESC 7`, `ESC M`, ...), single control
// characters, then a run of text.
const TOKEN =
  // eslint-disable-next-line no-control-regex
  /\x1b\[([0-?]*)[ -/]*([@-~])?|\x9b([0-?]*)[ -/]*([@-~])?|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]?|[\x00-\x1f\x7f]|[^\x00-\x1f\x7f\x9b]+/gy

const SLACK = 1000

const number = (params: string, index: number, fallback: number): number => {
  const n = Number.parseInt(params.split(';')[index] ?? '', 10)
  return Number.isFinite(n) && n > 0 ? Math.min(n, 10_000) : fallback
}

type Move = (at: Screen, n: number, params: string) => readonly [number, number]

/** Cursor moves by CSI final byte: up, down, forward, back, next / previous line, column, row, position. */
const MOVES: Readonly<Record<string, Move>> = {
  A: (at, n) => [at.row - n, at.col],
  B: (at, n) => [at.row + n, at.col],
  C: (at, n) => [at.row, at.col + n],
  D: (at, n) => [at.row, at.col - n],
  E: (at, n) => [at.row + n, 0],
  F: (at, n) => [at.row - n, 0],
  G: (at, n) => [at.row, n - 1],
  d: (at, n) => [at.top + n - 1, at.col],
  H: (at, n, params) => [at.top + n - 1, number(params, 1, 1) - 1],
  f: (at, n, params) => [at.top + n - 1, number(params, 1, 1) - 1],
}

/** The line buffer: rows of text and a cursor. */
class Screen {
  rows: string[] = ['']
  row = 0
  col = 0
  top = 0
  saved: readonly [number, number] = [0, 0]
  /** A `\r` was seen: the next text replaces the line (the overwrite rule). */
  pendingCr = false

  constructor(readonly cursor: boolean) {}

  line(): string {
    while (this.rows.length <= this.row) this.rows.push('')
    return this.rows[this.row]!
  }

  /** Moves the cursor; it goes at most `SLACK` past the text, as a screen has an edge. */
  move(row: number, col: number): void {
    this.row = Math.min(Math.max(0, row), this.rows.length + SLACK)
    this.col = Math.min(Math.max(0, col), (this.rows[this.row]?.length ?? 0) + SLACK)
    this.pendingCr = false
  }

  write(text: string): void {
    let line = this.line()
    if (this.pendingCr) {
      line = ''
      this.pendingCr = false
    }
    if (this.col === line.length) line += text
    else if (this.col > line.length) line = line + ' '.repeat(this.col - line.length) + text
    else line = line.slice(0, this.col) + text + line.slice(this.col + text.length)
    this.rows[this.row] = line
    this.col += text.length
  }

  erase(from: number, to: number): void {
    const line = this.line()
    const end = Math.min(to, line.length)
    if (from >= end) return
    this.rows[this.row] =
      end === line.length
        ? line.slice(0, from)
        : line.slice(0, from) + ' '.repeat(end - from) + line.slice(end)
  }

  control(ch: string, next: string | undefined): void {
    if (ch === '\n') this.move(this.row + 1, 0)
    else if (ch === '\r') {
      if (next !== '\n') {
        this.col = 0
        this.pendingCr = true
      }
    } else if (ch === '\b') this.move(this.row, this.col - 1)
    else if (ch === '\t') this.write(' '.repeat(8 - (this.col % 8)))
  }

  csi(params: string, final: string): void {
    if (!this.cursor || params.startsWith('?') || params.startsWith('>')) return
    const move = MOVES[final]
    if (move !== undefined) {
      const [row, col] = move(this, number(params, 0, 1), params)
      this.move(row, col)
      return
    }
    const { row, col } = this
    switch (final) {
      case 's':
        this.saved = [row, col]
        return
      case 'u':
        this.move(this.saved[0], this.saved[1])
        return
      case 'K': {
        const mode = number(params, 0, 0)
        if (mode === 0) this.erase(col, Infinity)
        else if (mode === 1) this.erase(0, col + 1)
        else this.erase(0, Infinity)
        return
      }
      case 'J': {
        const mode = number(params, 0, 0)
        if (mode === 0) {
          this.erase(col, Infinity)
          this.rows.length = Math.min(this.rows.length, row + 1)
        } else if (mode === 1) {
          for (let r = 0; r < row && r < this.rows.length; r++) this.rows[r] = ''
          this.erase(0, col + 1)
        } else {
          this.rows = ['']
          this.top = 0
          this.move(0, 0)
        }
        return
      }
    }
  }

  escape(seq: string): void {
    if (!this.cursor) return
    const { row, col } = this
    if (seq === '\x1b7') this.saved = [row, col]
    else if (seq === '\x1b8') this.move(this.saved[0], this.saved[1])
    else if (seq === '\x1bM') this.move(row - 1, col)
    else if (seq === '\x1bD') this.move(row + 1, col)
    else if (seq === '\x1bE') this.move(row + 1, 0)
  }
}

const replay = (text: string, cursor: boolean): string[] => {
  const screen = new Screen(cursor)
  TOKEN.lastIndex = 0
  let m: RegExpExecArray | null
  while (TOKEN.lastIndex < text.length && (m = TOKEN.exec(text)) !== null) {
    const token = m[0]
    const first = token.charCodeAt(0)
    if (first === 0x1b || first === 0x9b) {
      const final = m[2] ?? m[4]
      if (final !== undefined) screen.csi(m[1] ?? m[3] ?? '', final)
      else if (token.length === 2) screen.escape(token)
    } else if (token.length === 1 && (first < 0x20 || first === 0x7f)) {
      screen.control(token, text[TOKEN.lastIndex])
    } else {
      screen.write(token)
    }
  }
  screen.line() // the cursor's row exists: 'a\n' is two lines
  return screen.rows.map((r) => r.trimEnd())
}

/**
 * `text` without terminal escapes (CSI incl. private modes such as the
 * bracketed-paste `ESC[?2004h`, OSC, DCS, charset selects), with carriage
 * returns and backspaces applied: on a line, the text after its last `\r`
 * replaces what came before (`\r\n` is a plain line end), and a backspace
 * steps back one character. Cursor moves are dropped, not replayed. Trailing
 * spaces are trimmed from each line.
 *
 * @category parsers
 * @example
 * import { stripAnsi } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * assert.strictEqual(stripAnsi('\x1b[?2004h\x1b[1;32mok\x1b[0m\r\n50%\r100%'), 'ok\n100%')
 */
export const stripAnsi = (text: string): string => replay(text, false).join('\n')

/**
 * The lines a terminal would show for `text`: like {@link stripAnsi}, and
 * cursor moves (`CSI A/B/C/D/E/F/G`, `CSI H` from the last clear), erases
 * (`CSI K`, `CSI J`, `CSI 2J`) and cursor save / restore replayed on an
 * unbounded line buffer. Lines are not wrapped (the width is unknown), and
 * a wide character counts as one column.
 *
 * @category parsers
 * @example
 * import { screenLines } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * // a spinner line drawn, then erased and replaced (as Ink apps redraw)
 * const raw = 'answer\r\n⠋ working\r\n\x1b[1A\x1b[2K\x1b[Gdone\r\n'
 * assert.deepStrictEqual(screenLines(raw), ['answer', 'done', ''])
 */
export const screenLines = (text: string): string[] => replay(text, true)

/**
 * The last `size` characters of `text`, so a readiness check costs the same
 * on a long buffer as on a short one. A cut escape sequence at the start is
 * harmless: its remains are read as text on the first line.
 *
 * @category parsers
 */
export const tail = (text: string, size: number): string =>
  text.length <= size ? text : text.slice(text.length - size)
