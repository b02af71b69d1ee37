import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'

/** The message of an error for a key the object must not have. */
const UNKNOWN = 'is not a parameter of this command'
/** The message of an error for a required key that is absent (or `undefined`). */
const REQUIRED = 'required, got nothing'
/** The message of an error for a value nested deeper than {@link MAX_DEPTH}. */
const TOO_DEEP = 'nested too deep'

/**
 * 64: how deep objects and arrays may nest in a command's params (the
 * params object counts as one). A deeper value is refused at decode, at the
 * path where it goes too deep, before anything walks it recursively.
 *
 * @category protocol
 */
export const MAX_DEPTH = 64

/**
 * The keys to the first object or array of `value` that is more than `max`
 * levels deep (`value` itself at level `level`), without recursion; or
 * undefined when there is none.
 */
const tooDeep = (value: unknown, level: number, max: number): readonly string[] | undefined => {
  interface Frame {
    readonly value: unknown
    readonly level: number
    readonly key: string
    readonly parent: Frame | undefined
  }
  const stack: Frame[] = [{ value, level, key: '', parent: undefined }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    const v = frame.value
    if (typeof v !== 'object' || v === null) continue
    if (frame.level > max) {
      const keys: string[] = []
      for (let f = frame; f.parent !== undefined; f = f.parent) keys.push(f.key)
      return keys.reverse()
    }
    for (const [key, child] of Object.entries(v)) {
      if (typeof child === 'object' && child !== null)
        stack.push({ value: child, level: frame.level + 1, key, parent: frame })
    }
  }
  return undefined
}

type Props = Record<string, t.Mixed>

/** The decoded type of an object with required props `R` and optional props `O`. */
export type Exact<R extends Props, O extends Props> = {
  readonly [K in keyof R]: t.TypeOf<R[K]>
} & { readonly [K in keyof O]?: t.TypeOf<O[K]> }

/** Builds the codec's validate over its props. */
const validator =
  (required: Props, optional: Props) =>
  (u: unknown, c: t.Context): t.Validation<Record<string, unknown>> => {
    if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c)
    const record = u as Record<string, unknown>
    const errors: t.ValidationError[] = []
    const out: Record<string, unknown> = {}
    const at = (key: string, type: t.Mixed, value: unknown): t.Context => [
      ...c,
      { key, type, actual: value },
    ]
    for (const key of Object.keys(record)) {
      if (!Object.hasOwn(required, key) && !Object.hasOwn(optional, key)) {
        errors.push({
          value: record[key],
          context: at(key, t.unknown, record[key]),
          message: UNKNOWN,
        })
      }
    }
    const check = (key: string, type: t.Mixed, value: unknown, isRequired: boolean): void => {
      const deeper = tooDeep(value, 2, MAX_DEPTH)
      if (deeper !== undefined) {
        const context = deeper.reduce<t.Context>(
          (c, k) => [...c, { key: k, type: t.unknown, actual: undefined }],
          at(key, t.unknown, undefined),
        )
        errors.push({ value: undefined, context, message: TOO_DEEP })
        return
      }
      const r = type.validate(value, at(key, type, value))
      if (E.isLeft(r)) errors.push(...r.left)
      else if (r.right === undefined && isRequired) {
        // A type that takes anything (the input of a command) takes undefined too; a required key may not be missing.
        errors.push({ value, context: at(key, type, value), message: REQUIRED })
      } else out[key] = r.right
    }
    for (const [key, type] of Object.entries(required)) check(key, type, record[key], true)
    for (const [key, type] of Object.entries(optional)) {
      if (record[key] !== undefined) check(key, type, record[key], false)
    }
    return errors.length > 0 ? E.left(errors) : E.right(out)
  }

/**
 * The codec of a params object (see {@link params}): an io-ts type that
 * keeps its `required` and `optional` props, so other views of the same
 * command (its JSON Schema) are derived from it.
 *
 * @category protocol
 */
export class ParamsType<R extends Props, O extends Props> extends t.Type<Exact<R, O>, unknown> {
  readonly _tag = 'ParamsType' as const
  constructor(
    name: string,
    readonly required: R,
    readonly optional: O,
  ) {
    const v = validator(required, optional)
    super(
      name,
      (u): u is Exact<R, O> => E.isRight(v(u, [{ key: '', type: t.unknown, actual: u }])),
      (u, c) => v(u, c) as t.Validation<Exact<R, O>>,
      (a) => a,
    )
  }
}

/**
 * A codec of a params object with `required` and `optional` keys and no
 * others: an unknown key fails at its own path (a typo is an error, not
 * ignored). Each error's io-ts context goes through the key it is about,
 * so its path is the path in `params`.
 *
 * @internal
 */
export const params = <R extends Props, O extends Props>(
  name: string,
  required: R,
  optional: O,
): ParamsType<R, O> => new ParamsType(name, required, optional)

/**
 * A JSON pointer from keys (RFC 6901).
 *
 * @internal
 */
export const pointer = (keys: readonly string[]): string =>
  keys.map((k) => `/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')

const isComposite = (type: t.Decoder<unknown, unknown>): boolean => {
  const tag = (type as { _tag?: unknown })._tag
  // a recursive codec is whatever it resolves to (a union, an intersection, an object)
  if (type instanceof t.RecursiveType) return isComposite((type as t.RecursiveType<t.Mixed>).type)
  // an exact codec validates with its inner codec's context
  if (type instanceof t.ExactType) return isComposite((type as t.ExactType<t.Mixed>).type)
  return tag === 'UnionType' || tag === 'IntersectionType' || tag === 'RefinementType'
}

/**
 * Where an io-ts error is, as a JSON pointer: the keys of its context
 * without the root and without the member indexes of unions and
 * intersections (which are no place in the value).
 *
 * @internal
 */
export const errorPath = (e: t.ValidationError): string => {
  const keys: string[] = []
  for (let i = 1; i < e.context.length; i++) {
    if (isComposite(e.context[i - 1]!.type)) continue
    keys.push(e.context[i]!.key)
  }
  return pointer(keys)
}

const show = (u: unknown): string => {
  if (u === undefined) return 'nothing'
  try {
    const json = JSON.stringify(u) as string | undefined
    if (json === undefined) return typeof u
    return json.length > 80 ? `${json.slice(0, 77)}...` : json
  } catch {
    return typeof u
  }
}

/**
 * One line per io-ts error: the path, then what is wrong.
 *
 * @internal
 */
export const describeError = (e: t.ValidationError): string => {
  const path = errorPath(e)
  const at = path === '' ? 'params' : path
  if (e.message === UNKNOWN || e.message === REQUIRED) return `${at}: ${e.message}`
  if (e.message === TOO_DEEP) return `${at}: nested deeper than ${MAX_DEPTH} levels`
  const expected = e.context[e.context.length - 1]?.type.name ?? 'a value'
  return `${at}: expected ${expected}, got ${show(e.value)}`
}
