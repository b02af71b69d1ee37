import type { Parser } from '../parsers/ParsedResponse.js'
import type { ScreenState } from '../parsers/ScreenState.js'
import { ReadyWatcher } from './readiness.js'
import type { TerminalScreen } from './screen.js'
import { ScreenWatcher } from './screenWatch.js'
import { TerminalTimeout } from './Terminal.js'

/**
 * What a PTY terminal's execute, start or drain waits on: a watch of the
 * output stream, or of the screen.
 *
 * @internal
 */
export interface Watch {
  feed(chunk: string): void
  check(): void
  close(): void
  text(): string
  /** What the screen shows, for a screen watch. */
  state?(): ScreenState
  /** A key that changes the screen (the input's submit, an interrupt) was just sent: a screen watch counts only what comes after it. */
  sent?(): void
}

/** What one wait is for: the input it answers (none at start), the prompt it was typed at, the quiet window. @internal */
export interface WatchFields {
  readonly input: string | undefined
  readonly prompt: string | undefined
  readonly quietMs: number
  readonly onReady: () => void
  readonly onDialog?: (state: ScreenState) => void
}

/**
 * A watch of readiness for `parser`: of the terminal's screen (made on
 * first need) for a screen parser, else of the stream, keeping at most
 * `maxChars` of it.
 *
 * @internal
 */
export const watchFor = (
  parser: Parser,
  fields: WatchFields,
  terminal: {
    readonly screen: () => TerminalScreen
    readonly maxChars: number
    readonly onScreenState: ((state: ScreenState) => void) | undefined
  },
): Watch => {
  if (parser.reads === 'screen') {
    const screen = terminal.screen()
    return new ScreenWatcher({
      parser,
      screen,
      quietMs: fields.quietMs,
      input: fields.input,
      // An execute's answer counts once its input was submitted (see `sent`).
      since: fields.input === undefined ? -1 : Number.POSITIVE_INFINITY,
      onReady: fields.onReady,
      ...(terminal.onScreenState === undefined ? {} : { onState: terminal.onScreenState }),
      ...(fields.onDialog === undefined ? {} : { onDialog: fields.onDialog }),
    })
  }
  return new ReadyWatcher({
    parser,
    quietMs: fields.quietMs,
    afterLineEnd: fields.input !== undefined,
    prompt: fields.prompt,
    maxChars: terminal.maxChars,
    onReady: fields.onReady,
  })
}

/**
 * The timeout of a watch: the screen and its state in the error, for a screen watch.
 *
 * @internal
 */
export const timeoutOf = (nodeId: string, ms: number, watch: Watch): TerminalTimeout =>
  new TerminalTimeout(nodeId, ms, watch.text(), watch.state?.()._tag)
