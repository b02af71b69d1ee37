/**
 * How an error is shown, the same in every face: one line of text
 * (`Tag at /path: message`) and one JSON value (`{ tag, message, path?,
 * ...details }`). The command line prints them, the MCP server answers a
 * failed tool call with the text, and the wire's `error.data` is the JSON
 * value without its message.
 */
import { isTagged, type ErrorCategory } from './TaggedError.js'

/** The errors JavaScript itself throws: a bug or an exhausted resource, never a failure of the work. */
const BUILT_IN: ReadonlySet<string> = new Set([
  'Error',
  'RangeError',
  'TypeError',
  'ReferenceError',
  'SyntaxError',
  'EvalError',
  'URIError',
  'AggregateError',
])

/** The longest string detail shown: longer ones keep their end (the latest output). */
const MAX_DETAIL = 4000

const stringField = (e: unknown, key: string): string | undefined => {
  const v = typeof e === 'object' && e !== null ? (e as Record<string, unknown>)[key] : undefined
  return typeof v === 'string' ? v : undefined
}

/**
 * The tag an error is shown with: the `tag` of an error that stands for
 * another (a daemon's error rebuilt by the client), else its `_tag`, else
 * its `name`, else `Error`.
 *
 * @category errors
 */
export const errorTag = (e: unknown): string =>
  stringField(e, 'tag') ??
  stringField(e, '_tag') ??
  (e instanceof Error && e.name !== '' ? e.name : 'Error')

/**
 * The category of any thrown value: a tagged error's own; `internal` for a
 * plain `Error`, a JavaScript error (`RangeError`, `TypeError`, …) or a
 * value that is not an error; `failed` for another error class (a user's
 * own failure).
 *
 * @category errors
 */
export const errorCategory = (e: unknown): ErrorCategory => {
  if (isTagged(e)) return e.category
  if (!(e instanceof Error)) return 'internal'
  return BUILT_IN.has(errorTag(e)) ? 'internal' : 'failed'
}

const messageOf = (e: unknown): string => {
  if (e instanceof Error) return e.message
  if (typeof e === 'string') return e
  try {
    const text: unknown = JSON.stringify(e)
    return typeof text === 'string' ? text : String(e)
  } catch {
    return String(e)
  }
}

/** A detail as shown: a long string cut, an error as its tag and message. */
const shown = (v: unknown): unknown => {
  if (typeof v === 'string' && v.length > MAX_DETAIL) return v.slice(-MAX_DETAIL)
  if (v instanceof Error) return { tag: errorTag(v), message: v.message }
  return v
}

/**
 * An error as a JSON value: its tag, message, `path` (when it has one as a
 * string) and its public details (string details cut to their last 4 000
 * characters, an error as its `{ tag, message }`). A daemon's error rebuilt by the client shows the daemon's.
 *
 * @category errors
 * @example
 * import { errorJson, UsageError } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(errorJson(new UsageError('user', 'no text')), {
 *   tag: 'UsageError',
 *   message: 'user(): no text',
 *   api: 'user',
 * })
 */
export const errorJson = (e: unknown): ErrorJson => {
  const details = isTagged(e) ? e.details : {}
  const path = stringField(e, 'path')
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(details)) if (v !== undefined) out[k] = shown(v)
  return { ...out, tag: errorTag(e), message: messageOf(e), ...(path !== undefined && { path }) }
}

/**
 * What {@link errorJson} returns.
 *
 * @category errors
 */
export interface ErrorJson {
  readonly tag: string
  readonly message: string
  readonly path?: string
  readonly [detail: string]: unknown
}

/**
 * An error as text: `Tag at /path: message` (no `at` without a path).
 *
 * @category errors
 * @example
 * import { errorText, UsageError } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.strictEqual(errorText(new UsageError('user', 'no text')), 'UsageError: user(): no text')
 */
export const errorText = (e: unknown): string => {
  const { tag, message, path } = errorJson(e)
  return `${tag}${path === undefined || path === '' ? '' : ` at ${path}`}: ${message}`
}
