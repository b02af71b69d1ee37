/**
 * How a prompt reaches a program that is read from its screen (an Ink-style
 * TUI): typed, then submitted with the program's own key.
 *
 * @internal
 */
import type { Parser } from '../parsers/ParsedResponse.js'
import type { TerminalScreen } from './screen.js'

/** The longest a submit key waits for the screen to show the typed text. */
const ECHO_WAIT_MS = 1000
/** How long a submitted input may stand in the input box before the submit key is pressed again (a program under load can miss it). */
const RESUBMIT_MS = 750

/** What {@link typeAndSubmit} types into. */
export interface SubmitTarget {
  readonly input: string
  readonly parser: Parser
  readonly screen: TerminalScreen
  readonly write: (data: string) => void
  /** Whether the execute that types is still the one running. */
  readonly live: () => boolean
  /** Told each time the submit key was sent. */
  readonly onSubmit: () => void
}

/**
 * Types `input` (bracketed as a paste when it has several lines and the
 * program asked for bracketed paste), then, once the screen changed (the
 * program took the text) — or, with `submitDelayMs`, once the screen shows
 * the text and that long after — the parser's submit key: sent together, an
 * Ink-style input would read the key as part of a paste. Text left in the
 * box is cleared first (`keys.clear`, when `draft` finds some), and so is
 * text the program puts back late in front of the typed input (then typed
 * again, once); a submitted input still in the box a moment later is
 * submitted again, twice at most.
 *
 * @internal
 */
export const typeAndSubmit = ({
  input,
  parser,
  screen,
  write,
  live,
  onSubmit,
}: SubmitTarget): void => {
  const key = parser.keys?.submit ?? '\r'
  const typed = screen.bracketedPaste && input.includes('\n') ? `\x1b[200~${input}\x1b[201~` : input
  if (typed === '') {
    write(key)
    onSubmit()
    return
  }
  const clear = parser.keys?.clear
  let retyped = false
  // Sent again (twice at most) while the parser still reads the very input in the box.
  const send = (tries = 0): void => {
    if (!live()) return
    // Text the program put back in the box late (a prompt restored after an interrupt) ran
    // into ours: cleared, and ours typed again, once.
    const draft = parser.draft?.(screen.text())
    const wanted = input.trim()
    if (tries === 0 && clear !== undefined && !retyped && draft !== undefined) {
      if (draft !== wanted && draft.endsWith(wanted)) {
        retyped = true
        clearThen(type)
        return
      }
    }
    write(key)
    onSubmit()
    if (parser.draft === undefined || tries >= 2) return
    setTimeout(() => {
      if (parser.draft?.(screen.text()) === input.trim()) send(tries + 1)
    }, RESUBMIT_MS)
  }
  const type = (): void => {
    const from = screen.version
    const delay = parser.keys?.submitDelayMs
    if (delay !== undefined) {
      // Enter once the screen shows the text (its last line), then after the delay.
      const echo = input.split('\n').at(-1)!.trim().slice(-20)
      let waited: ReturnType<typeof setTimeout> | undefined = undefined
      const later = (): void => {
        off()
        clearTimeout(waited)
        setTimeout(() => {
          send()
        }, delay)
      }
      const off = screen.onChange(() => {
        if (screen.version > from && screen.text().includes(echo)) later()
      })
      waited = setTimeout(later, ECHO_WAIT_MS)
      write(typed)
      return
    }
    // Enter once the box shows the text (where the parser reads the box), or a moment later.
    const last = input.split('\n').at(-1)!.trim()
    const echoed = (): boolean => parser.draft?.(screen.text()).endsWith(last) ?? true
    const go = (): void => {
      off()
      clearTimeout(fallback)
      send()
    }
    const off = screen.onChange(() => {
      if (screen.version > from && echoed()) go()
    })
    const fallback = setTimeout(go, ECHO_WAIT_MS)
    write(typed)
  }
  // Clears the input box, then `next` once the parser reads it empty, or a moment later (what
  // stays may be a placeholder the parser does not know).
  function clearThen(next: () => void): void {
    const from = screen.version
    const go = (): void => {
      off()
      clearTimeout(fallback)
      if (live()) next()
    }
    const off = screen.onChange(() => {
      if (screen.version > from && (parser.draft?.(screen.text()) ?? '') === '') go()
    })
    const fallback = setTimeout(go, ECHO_WAIT_MS)
    write(clear!)
  }
  if (clear === undefined || (parser.draft?.(screen.text()) ?? '') === '') type()
  // Text left in the box (a prompt put back after an interrupt): cleared first.
  else clearThen(type)
}
