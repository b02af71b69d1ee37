/**
 * The exit code of a failed command: a function of its error's category,
 * the one table below (documented in docs/cli.md). The command line never
 * looks at an error's tag to choose it.
 */
import { isTagged, type ErrorCategory } from '../errors/TaggedError.js'

/**
 * The exit code of each error category. 1 is the work failing, and what
 * Nerve did not expect (`internal`, or an error that has no category); 2
 * is input that is wrong, as for a command line the parser refuses.
 *
 * @category cli
 */
export const exitCodes: Readonly<Record<ErrorCategory, number>> = Object.freeze({
  failed: 1,
  internal: 1,
  invalidInput: 2,
  invalidGraph: 2,
  notFound: 3,
  conflict: 4,
  invalidState: 5,
  unsupported: 5,
  unavailable: 6,
  timeout: 7,
  cancelled: 8,
  limitExceeded: 9,
  storage: 10,
})

/**
 * The category of what a command threw: a tagged error's own, else
 * `internal` (a bug, or a failure nothing classified).
 *
 * @category cli
 */
export const categoryOf = (e: unknown): ErrorCategory => (isTagged(e) ? e.category : 'internal')

/**
 * The exit code a command that threw `e` ends with.
 *
 * @category cli
 */
export const exitCodeOf = (e: unknown): number => exitCodes[categoryOf(e)]

/**
 * The exit code of a run (or a network) that did not complete: `cancelled`
 * for one that was cancelled, else `failed`.
 *
 * @category cli
 */
export const runExitCode = (state: string): number =>
  state === 'cancelled' ? exitCodes.cancelled : exitCodes.failed
