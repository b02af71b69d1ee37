/**
 * Event-driven readiness of a terminal's program, for one execute (or a
 * start, or the drain after an interrupt). Internal: not exported from the
 * package.
 *
 * The watcher is fed each output chunk. It keeps only a short tail, asks the
 * parser's `isReady` on that tail (never on the whole output), and when the
 * answer is yes waits for a quiet window with no new output before it
 * confirms; any new chunk cancels the window and the question is asked again.
 * Nothing sleeps or polls.
 *
 * The quiet window adapts: when the tail ends with the very prompt line that
 * stood before the input was written (the shell or REPL came back to where it
 * was), the window is one idle turn of the event loop, during which any output
 * already waiting in the pty would have been read. Otherwise it is `quietMs`.
 */
import { screenLines, tail } from '../parsers/ansi.js'
import type { Parser } from '../parsers/ParsedResponse.js'

/** Characters of the output kept to ask readiness on: enough for a prompt and a status line. */
export const TAIL_CHARS = 4096

/** The last non-blank line of a tail, as a screen shows it (no ANSI, trailing blanks dropped). */
export const lastLine = (text: string): string => {
  const lines = screenLines(tail(text, TAIL_CHARS))
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim() !== '') return lines[i]!
  return ''
}

/** Appends a chunk to a tail without copying more than the tail's size. */
export const appendTail = (before: string, chunk: string): string =>
  chunk.length >= TAIL_CHARS
    ? chunk.slice(chunk.length - TAIL_CHARS)
    : (before + chunk).slice(-TAIL_CHARS)

export interface WatchOptions {
  readonly parser: Parser
  readonly quietMs: number
  /** Readiness counts only once a line end came (the echo of the input). */
  readonly afterLineEnd: boolean
  /** The prompt line that stood before the input, for the fast path. */
  readonly prompt: string | undefined
  /** Called once, when readiness held through its quiet window. */
  readonly onReady: () => void
}

/** Watches the output of one execute for readiness. */
export class ReadyWatcher {
  /** The output since the watch began, in chunks. */
  readonly chunks: string[] = []
  private tailText = ''
  private sawLineEnd: boolean
  private timer: ReturnType<typeof setTimeout> | undefined
  private idle: ReturnType<typeof setImmediate> | undefined
  private done = false

  constructor(private readonly options: WatchOptions) {
    this.sawLineEnd = !options.afterLineEnd
  }

  /** The output since the watch began. */
  text(): string {
    if (this.chunks.length > 1) this.chunks.splice(0, this.chunks.length, this.chunks.join(''))
    return this.chunks[0] ?? ''
  }

  /** Feeds one chunk of output. */
  feed(chunk: string): void {
    if (this.done) return
    this.chunks.push(chunk)
    this.tailText = appendTail(this.tailText, chunk)
    if (!this.sawLineEnd && chunk.includes('\n')) this.sawLineEnd = true
    this.cancelWindow()
    this.check()
  }

  /** Asks again without new output (e.g. right after the watch began). */
  check(): void {
    if (this.done || !this.sawLineEnd || !this.options.parser.isReady(this.tailText)) return
    const { prompt, quietMs } = this.options
    if (quietMs === 0 || (prompt !== undefined && lastLine(this.tailText) === prompt)) {
      this.idle = setImmediate(this.confirm)
    } else {
      this.timer = setTimeout(this.confirm, quietMs)
    }
  }

  /** Stops watching; `onReady` will not be called. */
  close(): void {
    this.done = true
    this.cancelWindow()
  }

  private readonly confirm = (): void => {
    this.timer = undefined
    this.idle = undefined
    if (this.done) return
    this.done = true
    this.options.onReady()
  }

  private cancelWindow(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    if (this.idle !== undefined) clearImmediate(this.idle)
    this.timer = undefined
    this.idle = undefined
  }
}
