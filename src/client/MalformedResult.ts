/**
 * The client's error for an answer it cannot take: the daemon answered a
 * command with a result its codec does not decode (a daemon of another
 * version, a bug, something else listening on the socket).
 */
import { taggedError } from '../errors.js'
import type * as t from 'io-ts'
import { describeError, errorPath } from '../protocol/index.js'

/**
 * A command's result did not decode with the protocol's result codec.
 * `path` is the JSON pointer into the result of the first problem,
 * `problems` one line per problem (path, what was expected, what came).
 *
 * @category client
 * @example
 * import { MalformedResult } from 'nerve-agents/client'
 * import { resultCodecs } from 'nerve-agents/protocol'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const r = resultCodecs.WRITE_DATA.decode({ written: 'all' })
 * assert.ok(E.isLeft(r))
 * const e = new MalformedResult('WRITE_DATA', r.left)
 * assert.strictEqual(e.path, '/written')
 * assert.deepStrictEqual(e.problems, ['/written: expected number, got "all"'])
 */
export class MalformedResult extends taggedError('MalformedResult', 'failed')<{
  /** The command whose answer it was. */
  readonly method: string
  /** Where in the result the first problem is (a JSON pointer; `''` for the result itself). */
  readonly path: string
  readonly problems: readonly string[]
}> {
  constructor(method: string, errors: readonly t.ValidationError[]) {
    const problems = errors.map(describeError).map((p) => p.replace(/^params:/, '(result):'))
    super(`the daemon answered ${method} with a malformed result: ${problems.join('; ')}`, {
      method,
      path: errors[0] === undefined ? '' : errorPath(errors[0]),
      problems: Object.freeze(problems),
    })
  }
}
