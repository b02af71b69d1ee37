/**
 * Event-driven readiness of a full-screen program, read from its screen
 * (see screen.ts), for one execute, a start or the drain after an
 * interrupt. Internal: not exported from the package.
 *
 * On each change of the screen the parser classifies it
 * ({@link ScreenState}). `ready` counts only once the screen changed since
 * the watch began and, for an execute, once the parser finds the input in
 * the history (the program took it: a prompt still in the input box is not
 * an answer); it must then hold through a quiet window in which the state
 * and the parsed answer stay as they are (a change elsewhere, such as an
 * animated logo, does not restart it), unless the parser's `finished` says
 * the turn ended for certain: then the next turn of the event loop
 * confirms it, and a window already running for that answer is cut short.
 * `finished` is asked only once the watch saw the turn run (a `busy` or
 * `permission` screen): before that, a mark on the screen may be an
 * earlier turn's with the same input. Any other state is reported to
 * `onState` when it first shows (a permission prompt, a dialog); `unknown`
 * is never ready. Nothing sleeps or polls.
 */
import type { Parser } from '../parsers/ParsedResponse.js'
import { screenState, type ScreenState } from '../parsers/ScreenState.js'
import type { TerminalScreen } from './screen.js'

export interface ScreenWatchOptions {
  readonly parser: Parser
  readonly screen: TerminalScreen
  readonly quietMs: number
  /** The input of the execute, looked for in the history; undefined for a start or a drain. */
  readonly input: string | undefined
  /** Readiness counts only once the screen changed after this version. */
  readonly since: number
  /** Called once, when readiness held through its quiet window. */
  readonly onReady: () => void
  /** Called when the state changes (each new state, once). */
  readonly onState?: (state: ScreenState) => void
  /** Called once when a `dialog` held through the quiet window (the watch then ends). */
  readonly onDialog?: (state: ScreenState) => void
}

const sameState = (a: ScreenState, b: ScreenState): boolean =>
  a._tag === b._tag && JSON.stringify(a) === JSON.stringify(b)

/** The state of a screen as `parser` reads it: its `classify`, else ready or unknown. */
export const classifyScreen = (parser: Parser, text: string): ScreenState =>
  parser.classify?.(text) ?? (parser.isReady(text) ? screenState.ready() : screenState.unknown())

/** Watches a screen for readiness. */
export class ScreenWatcher {
  private timer: ReturnType<typeof setTimeout> | undefined
  private done = false
  private last: ScreenState = screenState.unknown()
  /** The answer the running quiet window would confirm. */
  private pending: string | undefined
  /** Whether the running window is the 0 ms one of a turn `finished` says ended. */
  private pendingCertain = false
  /** Whether the turn was seen running (busy, or asking permission) since the watch began. */
  private ran = false
  private readonly unsubscribe: () => void

  constructor(private readonly options: ScreenWatchOptions) {
    this.unsubscribe = options.screen.onChange(this.check)
  }

  /** The screen is fed by the terminal, not by the watch. */
  feed(): void {}

  /** The screen as it stands. */
  text(): string {
    return this.options.screen.text()
  }

  /** The last state read. */
  state(): ScreenState {
    return this.last
  }

  /** Reads the screen again (on each change; once right after the watch began). */
  readonly check = (): void => {
    if (this.done) return
    const { parser, screen, input, since } = this.options
    const text = screen.text()
    const state = classifyScreen(parser, text)
    if (!sameState(state, this.last)) {
      this.last = state
      this.options.onState?.(state)
    }
    if (state._tag === 'dialog' && this.options.onDialog !== undefined) {
      this.cancelWindow()
      this.timer = setTimeout(this.blocked, this.options.quietMs)
      return
    }
    if ((state._tag === 'busy' || state._tag === 'permission') && screen.version > since) {
      this.ran = true
    }
    let answer: string | undefined
    if (state._tag === 'ready' && screen.version > since) {
      const parsed = input === undefined ? undefined : parser.parse(text, { input })
      // The draft too: a prompt put back in the box after an interrupt is a change that counts.
      if (parsed === undefined || parsed.isComplete) {
        answer = `${parsed?.text ?? ''}\u0000${parser.draft?.(text) ?? ''}`
      }
    }
    // A turn the screen shows ended for certain waits one turn of the event loop, not the window.
    const certain =
      answer !== undefined &&
      input !== undefined &&
      this.ran &&
      parser.finished?.(text, input) === true
    // A change that leaves the answer as it was (an animated logo, a clock) does not restart the
    // window; one that shows the turn ended (a done line drawn after the answer) cuts it short.
    const same = answer !== undefined && this.timer !== undefined && answer === this.pending
    if (same && (this.pendingCertain || !certain)) return
    this.cancelWindow()
    this.pending = answer
    this.pendingCertain = certain
    if (answer === undefined) return
    this.timer = setTimeout(this.confirm, certain ? 0 : this.options.quietMs)
  }

  /** Stops watching; `onReady` will not be called. */
  close(): void {
    this.done = true
    this.cancelWindow()
    this.unsubscribe()
  }

  private readonly confirm = (): void => {
    this.timer = undefined
    if (this.done) return
    this.close()
    this.options.onReady()
  }

  private readonly blocked = (): void => {
    this.timer = undefined
    if (this.done) return
    this.close()
    this.options.onDialog?.(this.last)
  }

  private cancelWindow(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }
}
