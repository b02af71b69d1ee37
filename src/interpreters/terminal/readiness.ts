/**
 * Event-driven readiness of a terminal's program, for one execute (or a
 * start, or the drain after an interrupt). Internal: not exported from the
 * package.
 *
 * The watcher is fed each output chunk. Once per turn of the event loop in
 * which output came (in a flood, past 64 K characters, at most once a
 * millisecond), it asks the parser's `isReady` on the tail of the output
 * (never on the whole of it),
 * and when the answer is yes waits for a quiet window with no new output
 * before it confirms; any new chunk cancels the window and the question is
 * asked again. Nothing sleeps or polls.
 *
 * The quiet window adapts: when the tail ends with the very prompt line that
 * stood before the input was written (the shell or REPL came back to where it
 * was), the window is one idle turn of the event loop, during which any output
 * already waiting in the pty would have been read. Otherwise it is `quietMs`.
 */
import { screenLines, tail } from '../parsers/ansi.js'
import type { Parser } from '../parsers/ParsedResponse.js'
import { OutputBuffer } from './outputBuffer.js'

/** Characters of the output kept to ask readiness on: enough for a prompt and a status line. */
export const TAIL_CHARS = 4096

/** Output past which a watch is in a flood: it asks readiness at most once per {@link FLOOD_ASK_MS}. */
const FLOOD_CHARS = 64 * 1024
const FLOOD_ASK_MS = 1

/** The last non-blank line of a tail, as a screen shows it (no ANSI, trailing blanks dropped). */
export const lastLine = (text: string): string => {
  const lines = screenLines(tail(text, TAIL_CHARS))
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim() !== '') return lines[i]!
  return ''
}

export interface WatchOptions {
  readonly parser: Parser
  readonly quietMs: number
  /** Readiness counts only once a line end came (the echo of the input). */
  readonly afterLineEnd: boolean
  /** The prompt line that stood before the input, for the fast path. */
  readonly prompt: string | undefined
  /** Called once, when readiness held through its quiet window. */
  readonly onReady: () => void
  /** Characters of the output kept (the newest); default: all. */
  readonly maxChars?: number
}

/** Watches the output of one execute for readiness. */
export class ReadyWatcher {
  /** The output since the watch began (the newest `maxChars` of it). */
  private readonly output: OutputBuffer
  private sawLineEnd: boolean
  private timer: ReturnType<typeof setTimeout> | undefined
  private idle: ReturnType<typeof setImmediate> | undefined
  /** The readiness question, asked once for all the chunks read in one turn of the event loop. */
  private asking: ReturnType<typeof setImmediate> | undefined
  /** In a flood, the question put off to the next millisecond. */
  private later: ReturnType<typeof setTimeout> | undefined
  private askedAt = -Infinity
  private done = false

  constructor(private readonly options: WatchOptions) {
    this.output = new OutputBuffer(options.maxChars)
    this.sawLineEnd = !options.afterLineEnd
  }

  /** The output since the watch began (the newest `maxChars` of it). */
  text(): string {
    return this.output.text()
  }

  /** Feeds one chunk of output. */
  feed(chunk: string): void {
    if (this.done) return
    this.output.push(chunk)
    if (!this.sawLineEnd && chunk.includes('\n')) this.sawLineEnd = true
    this.cancelWindow()
    if (this.later === undefined) this.asking ??= setImmediate(this.ask)
  }

  private readonly ask = (): void => {
    this.asking = undefined
    this.later = undefined
    const now = performance.now()
    if (this.output.size > FLOOD_CHARS && now - this.askedAt < FLOOD_ASK_MS) {
      this.later = setTimeout(this.ask, FLOOD_ASK_MS)
      return
    }
    this.askedAt = now
    this.check()
  }

  /** Asks again without new output (e.g. right after the watch began). */
  check(): void {
    if (this.done || !this.sawLineEnd) return
    const tailText = this.output.tail(TAIL_CHARS)
    if (!this.options.parser.isReady(tailText)) return
    const { prompt, quietMs } = this.options
    this.cancelWindow()
    if (quietMs === 0 || (prompt !== undefined && lastLine(tailText) === prompt)) {
      this.idle = setImmediate(this.confirm)
    } else {
      this.timer = setTimeout(this.confirm, quietMs)
    }
  }

  /** Stops watching; `onReady` will not be called. */
  close(): void {
    this.done = true
    this.cancelWindow()
    if (this.asking !== undefined) clearImmediate(this.asking)
    clearTimeout(this.later)
    this.asking = undefined
    this.later = undefined
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
