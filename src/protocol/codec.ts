import type * as t from 'io-ts'
import {
  errorPath,
  expectedOf,
  isTooDeep,
  isUnknownKey,
  keyHint,
  showValue,
  strict,
  StrictType,
  type Props,
  type Struct,
} from '../codec/index.js'

export { errorPath }

/**
 * 64: how deep objects and arrays may nest in a command's params (the
 * params object counts as one). A deeper value is refused at decode, at the
 * path where it goes too deep, before anything walks it recursively.
 *
 * @category protocol
 */
export const MAX_DEPTH = 64

/** The decoded type of an object with required props `R` and optional props `O`. */
export type Exact<R extends Props, O extends Props> = Struct<R, O>

/**
 * The codec of a params object (see {@link params}): a strict object of the
 * codec kit, which keeps its `required` and `optional` props, so other
 * views of the same command (its JSON Schema) are derived from it.
 *
 * @category protocol
 */
export type ParamsType<R extends Props, O extends Props> = StrictType<R, O>

/**
 * The class of params codecs ({@link StrictType}).
 *
 * @category protocol
 */
export const ParamsType = StrictType

/**
 * A codec of a params object with `required` and `optional` keys and no
 * others (a strict object of the codec kit): an unknown key fails at its
 * own path (a typo is an error, not ignored), a value nested deeper than
 * {@link MAX_DEPTH} at the path where it goes too deep. Each error's path
 * is its path in `params`.
 *
 * @internal
 */
export const params = <R extends Props, O extends Props>(
  name: string,
  required: R,
  optional: O,
): ParamsType<R, O> => strict(name, required, optional, { maxDepth: MAX_DEPTH })

/**
 * One line per io-ts error: the path, then what is wrong.
 *
 * @internal
 */
export const describeError = (e: t.ValidationError): string => {
  const path = errorPath(e)
  const at = path === '' ? 'params' : path
  if (isUnknownKey(e)) {
    const hint = keyHint(e)
    return `${at}: is not a parameter of this command${hint === undefined ? '' : `; did you mean "${hint}"?`}`
  }
  if (isTooDeep(e)) return `${at}: nested deeper than ${MAX_DEPTH} levels`
  if (e.message !== undefined) return `${at}: ${e.message}`
  return `${at}: expected ${expectedOf(e)}, got ${showValue(e.value)}`
}
