import * as E from 'fp-ts/lib/Either.js'
import { UsageError } from '../errors.js'

/**
 * The one rule for names: node ids, node kinds, step ids, link handles and
 * session names. A name is 1 to 128 characters, starts with an ASCII letter
 * or digit, and continues with letters, digits, `.`, `_` or `-`. So a name
 * is never empty or blank, needs no quoting in a path, a URL or a shell, and
 * `/` stays free to join names into paths (`outer/inner/step`).
 *
 * @category names
 * @example
 * import { namePattern } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.ok(namePattern.test('fetch-docs_v2.1'))
 * assert.ok(!namePattern.test('has space'))
 */
export const namePattern: RegExp = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/**
 * A value that breaks the name rule ({@link namePattern}), with the reason.
 *
 * @category names
 */
export interface InvalidName {
  readonly _tag: 'InvalidName'
  /** The offending value, as given. */
  readonly name: unknown
  /** Why it is not a name, e.g. `'is blank'`. */
  readonly reason: string
}

const reasonOf = (name: unknown): string => {
  if (typeof name !== 'string') return `is ${name === null ? 'null' : typeof name}, not a string`
  if (name === '') return 'is empty'
  if (name.trim() === '') return 'is blank'
  if (name.length > 128) return `has ${name.length} characters, more than 128`
  if (!/^[A-Za-z0-9]/.test(name)) {
    return `starts with ${JSON.stringify(name[0])}, not a letter or digit`
  }
  const bad = /[^A-Za-z0-9._-]/.exec(name)
  return `contains ${JSON.stringify(bad?.[0] ?? '')}, which is not a letter, digit, ".", "_" or "-"`
}

/**
 * Checks a value against the name rule ({@link namePattern}).
 *
 * @category names
 * @example
 * import { validateName } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(validateName('summarise'), { _tag: 'Right', right: 'summarise' })
 * assert.deepStrictEqual(validateName('  '), {
 *   _tag: 'Left',
 *   left: { _tag: 'InvalidName', name: '  ', reason: 'is blank' },
 * })
 */
export const validateName = (name: unknown): E.Either<InvalidName, string> =>
  typeof name === 'string' && namePattern.test(name)
    ? E.right(name)
    : E.left({ _tag: 'InvalidName', name, reason: reasonOf(name) })

/**
 * Renders an {@link InvalidName} as one line of text.
 *
 * @category names
 */
export const showInvalidName = (e: InvalidName): string =>
  `${typeof e.name === 'string' ? JSON.stringify(e.name) : String(e.name)} is not a valid name: it ${e.reason}`

/**
 * Throws a {@link UsageError} from `api` when `value` breaks the name rule.
 *
 * @internal
 */
export const requireName = (api: string, what: string, value: unknown): string => {
  const checked = validateName(value)
  if (E.isLeft(checked)) throw new UsageError(api, `${what}: ${showInvalidName(checked.left)}`)
  return checked.right
}

/**
 * The placeholders a name template may hold: `{run_id}`, the run's id, and
 * `{timestamp}`, the run's start in epoch milliseconds.
 *
 * @category names
 */
export interface NamePlaceholders {
  readonly run_id: string
  readonly timestamp: string
}

/**
 * Fills the `{run_id}` and `{timestamp}` placeholders of a name template
 * (a fork's target, a step's `nodeRef`). A name without placeholders is
 * returned as it is.
 *
 * @category names
 * @example
 * import { expandName } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.strictEqual(expandName('dev-{run_id}', { run_id: 'r7', timestamp: '0' }), 'dev-r7')
 */
export const expandName = (template: string, values: NamePlaceholders): string =>
  template.includes('{')
    ? template.replace(/\{(run_id|timestamp)\}/g, (_, key: keyof NamePlaceholders) => values[key])
    : template

/**
 * Whether a value is a name, or a name once its placeholders are filled
 * ({@link expandName}).
 *
 * @category names
 */
export const isNameTemplate = (u: unknown): u is string =>
  typeof u === 'string' && namePattern.test(expandName(u, { run_id: 'r', timestamp: '0' }))
