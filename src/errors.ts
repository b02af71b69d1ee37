/**
 * Errors thrown for programmer misuse: a wrong argument to a public function.
 * Errors that come from data (a file, a wire message) are returned as tagged
 * values instead; see each module's error union.
 *
 * @category errors
 * @example
 * import { UsageError, user } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.throws(() => user(['hi', { type: 'text', text: 'there' }] as never), UsageError)
 */
export class UsageError extends TypeError {
  readonly _tag = 'UsageError'
  /** The public function that was misused, e.g. `'user'`. */
  readonly api: string
  constructor(api: string, message: string) {
    super(`${api}(): ${message}`)
    this.name = 'UsageError'
    this.api = api
  }
}
