/**
 * Errors: made by one factory ({@link taggedError}) with a category, shown
 * by one renderer ({@link errorText}, {@link errorJson}). Errors thrown for
 * programmer misuse are {@link UsageError}s; errors that come from data (a
 * file, a wire message) are returned as tagged values where the caller
 * collects them (see each module's error union).
 */
import { taggedError } from './errors/TaggedError.js'

export {
  errorCategories,
  errorClasses,
  isTagged,
  taggedError,
  type ErrorCategory,
  type Tagged,
  type TaggedErrorClass,
} from './errors/TaggedError.js'
export { errorCategory, errorJson, errorTag, errorText, type ErrorJson } from './errors/render.js'

/**
 * Errors thrown for programmer misuse: a wrong argument to a public
 * function. A `TypeError`, category `invalidInput`.
 *
 * @category errors
 * @example
 * import { UsageError, user } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.throws(() => user(['hi', { type: 'text', text: 'there' }] as never), UsageError)
 */
export class UsageError extends taggedError('UsageError', 'invalidInput', TypeError)<{
  /** The public function that was misused, e.g. `'user'`. */
  readonly api: string
}> {
  constructor(api: string, message: string) {
    super(`${api}(): ${message}`, { api })
  }
}

/**
 * Work stopped on purpose where no more specific error says why: the
 * reason an abort carries when a chat turn is cancelled, a reader closes a
 * stream, a network is cancelled or a client hangs up. Category
 * `cancelled`.
 *
 * @category errors
 * @example
 * import { Stopped } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const c = new AbortController()
 * c.abort(new Stopped('the reader closed the stream'))
 * assert.strictEqual((c.signal.reason as Stopped).category, 'cancelled')
 */
export class Stopped extends taggedError('Stopped', 'cancelled')<{
  /** What stopped it. */
  readonly why: string
}> {
  constructor(why: string) {
    super(why, { why })
  }
}
