/**
 * The last command of the page that failed, shown to the person; commands
 * go through {@link attempt} so that a failure is shown, never thrown.
 */
import { signal } from '@preact/signals'
import { ProtocolError } from '../protocol/index.js'

/** The last failed command's message: the daemon's error as `Tag: message`. */
export const problem = signal<string | undefined>(undefined)

/** Runs a command of the page; a failure becomes {@link problem}. */
export const attempt = (f: () => Promise<unknown>): void => {
  problem.value = undefined
  f().catch((e: unknown) => {
    problem.value =
      e instanceof ProtocolError
        ? `${e.tag}: ${e.message}`
        : e instanceof Error
          ? e.message
          : String(e)
  })
}
