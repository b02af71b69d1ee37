/**
 * The errors of a file's shape — a value of the wrong type, a missing key,
 * an unknown key — as tagged values with a JSON pointer, the part every
 * file format's errors share; and their one-line rendering. Pure.
 */
import type * as t from 'io-ts'
import { errorPath, expectedOf } from './path.js'
import { isUnknownKey, keyHint } from './strict.js'

/**
 * What is wrong with the shape of a decoded value. `path` is a JSON pointer
 * into it (`''` is the value itself).
 *
 * - `WrongType`: a value of the wrong type (`expected` names the type).
 * - `MissingKey`: a required key is absent.
 * - `UnknownKey`: a key the format does not have (a typo, usually), with the
 *   known key it most likely meant as `hint` when one is close.
 *
 * @category codecs
 */
export type ShapeError =
  | {
      readonly _tag: 'WrongType'
      readonly path: string
      readonly expected: string
      readonly actual: unknown
    }
  | { readonly _tag: 'MissingKey'; readonly path: string }
  | { readonly _tag: 'UnknownKey'; readonly path: string; readonly hint?: string }

/**
 * io-ts errors as {@link ShapeError}s, with `prefix` (a JSON pointer) in
 * front of their paths.
 *
 * @category codecs
 */
export const shapeErrors = (errors: t.Errors, prefix = ''): ShapeError[] =>
  errors.map((e): ShapeError => {
    const path = prefix + errorPath(e)
    if (isUnknownKey(e)) {
      const hint = keyHint(e)
      return hint === undefined ? { _tag: 'UnknownKey', path } : { _tag: 'UnknownKey', path, hint }
    }
    const parent = e.context.at(-2)
    if (e.value === undefined && parent !== undefined && typeof parent.actual === 'object') {
      return { _tag: 'MissingKey', path }
    }
    return { _tag: 'WrongType', path, expected: expectedOf(e), actual: e.value }
  })

/**
 * A value as a file's error shows it: its JSON, else its string.
 *
 * @category codecs
 */
export const showJson = (u: unknown): string => {
  try {
    const json = JSON.stringify(u) as unknown // undefined for undefined and functions
    return typeof json === 'string' ? json : String(u)
  } catch {
    return String(u)
  }
}

/**
 * Where a file's error is, for its one-line rendering: its path, or
 * `(file)` for the whole file.
 *
 * @category codecs
 */
export const whereIn = (path: string): string => (path === '' ? '(file)' : path)

/**
 * Renders a {@link ShapeError} as one line: the path, then what is wrong.
 *
 * @category codecs
 * @example
 * import { showShapeError } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.strictEqual(
 *   showShapeError({ _tag: 'UnknownKey', path: '/steps/0/after', hint: 'dependsOn' }),
 *   '/steps/0/after: is not a known key; did you mean "dependsOn"?',
 * )
 */
export const showShapeError = (e: ShapeError): string => {
  const at = whereIn(e.path)
  switch (e._tag) {
    case 'WrongType':
      return `${at}: expected ${e.expected}, got ${showJson(e.actual)}`
    case 'MissingKey':
      return `${at}: is required`
    case 'UnknownKey':
      return `${at}: is not a known key${e.hint === undefined ? '' : `; did you mean "${e.hint}"?`}`
  }
}
