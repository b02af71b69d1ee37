/**
 * A terminal's screen as a person sees it: the output of a program fed to a
 * headless terminal emulator (xterm.js), read back as rendered lines.
 * Internal: not exported from the package (its reading is, through
 * `PtyTerminal.screen()`).
 *
 * Full-screen programs (Claude Code, Codex, Gemini CLI: Ink-style TUIs)
 * redraw with cursor moves, absolute rows and erases, and after a prompt may
 * print no line feed at all; only an emulator tells what the screen shows.
 * xterm.js parses what it is given in slices on later turns of the event
 * loop: {@link TerminalScreen.onChange} is called once a write was parsed,
 * so whoever reads the screen reads it on each change, never by polling.
 */
import * as xterm from '@xterm/headless'

// Node's ES module loader gives this CommonJS package's exports as `default` only; a loader that
// turns our modules into CommonJS (tsx in a `"type": "commonjs"` project) gives them by name.
const { Terminal } = (xterm as { readonly default?: typeof xterm }).default ?? xterm

/** Rows kept above the viewport. */
export const SCROLLBACK_ROWS = 5000

/** The geometry of a screen. */
export interface ScreenSize {
  readonly cols: number
  readonly rows: number
  /** Rows kept above the viewport. Default: {@link SCROLLBACK_ROWS}. */
  readonly scrollback?: number
}

/** A terminal screen fed with a program's output. */
export class TerminalScreen {
  private readonly term: InstanceType<typeof Terminal>
  private readonly listeners = new Set<() => void>()
  private pending = 0
  private settled: (() => void)[] = []
  /** Incremented each time a write was parsed: a cheap "did the screen change" test. */
  version = 0

  constructor(size: ScreenSize) {
    this.term = new Terminal({
      cols: size.cols,
      rows: size.rows,
      scrollback: size.scrollback ?? SCROLLBACK_ROWS,
      allowProposedApi: true,
    })
    this.term.onWriteParsed(() => {
      this.version++
      for (const listener of this.listeners) listener()
    })
  }

  get cols(): number {
    return this.term.cols
  }

  get rows(): number {
    return this.term.rows
  }

  /** Whether the program asked for bracketed paste (`CSI ? 2004 h`): a paste is then told apart from typing. */
  get bracketedPaste(): boolean {
    return this.term.modes.bracketedPasteMode
  }

  /** Feeds output; it is parsed on a later turn of the event loop. */
  write(data: string): void {
    if (data === '') return
    this.pending++
    this.term.write(data, () => {
      this.pending--
      if (this.pending === 0) {
        const waiting = this.settled
        this.settled = []
        for (const resolve of waiting) resolve()
      }
    })
  }

  /** Resolves once everything written so far is parsed. */
  flushed(): Promise<void> {
    if (this.pending === 0) return Promise.resolve()
    return new Promise((resolve) => this.settled.push(resolve))
  }

  /** Calls `listener` after each parsed write; returns the function that removes it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * The screen's lines, scrollback first, then the viewport: rows the
   * program wrapped by writing past the edge are joined into one line (a
   * row exactly as wide as the screen is not), trailing blanks dropped, and
   * blank rows under the last written one left out.
   */
  lines(): string[] {
    const buffer = this.term.buffer.active
    const out: string[] = []
    for (let i = 0; i < buffer.length; i++) {
      const line = buffer.getLine(i)
      if (line === undefined) continue
      const text = line.translateToString(true)
      if (line.isWrapped && out.length > 0) out.push(out.pop()! + text)
      else out.push(text)
    }
    let end = out.length
    while (end > 0 && out[end - 1]!.trim() === '') end--
    return out.slice(0, end)
  }

  /** The rows in view (no scrollback), trailing blanks dropped. */
  viewport(): string[] {
    const buffer = this.term.buffer.active
    const out: string[] = []
    for (let i = buffer.viewportY; i < buffer.viewportY + this.term.rows; i++) {
      out.push(buffer.getLine(i)?.translateToString(true) ?? '')
    }
    return out
  }

  /** {@link TerminalScreen.lines}, joined by line feeds. */
  text(): string {
    return this.lines().join('\n')
  }

  /** Empties the screen and its scrollback, as `clear` would. */
  clear(): void {
    this.term.reset()
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows)
  }

  dispose(): void {
    this.listeners.clear()
    this.term.dispose()
  }
}
