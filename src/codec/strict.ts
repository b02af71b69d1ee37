/**
 * Strict objects: the one codec of an object with known keys and no other,
 * used by every boundary (graph and network files, wire params, node
 * options). An unknown key is an error at its own path, naming the key it
 * most likely meant; a required key may not be missing; every error is
 * collected. Pure.
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { didYouMean } from './didYouMean.js'
import { objectSchema, withJsonSchema } from './jsonSchema.js'

/**
 * The codecs of an object's keys, by key.
 *
 * @category codecs
 */
export type Props = Readonly<Record<string, t.Mixed>>

/**
 * The decoded type of an object with required props `R` and optional props `O`.
 *
 * @category codecs
 */
export type Struct<R extends Props, O extends Props> = {
  readonly [K in keyof R]: t.TypeOf<R[K]>
} & { readonly [K in keyof O]?: t.TypeOf<O[K]> }

/**
 * The message of an error for a key the object does not have; a hint
 * follows it when a known key is near (`unknown key; did you mean "x"?`).
 *
 * @category codecs
 */
export const UNKNOWN_KEY = 'unknown key'

/**
 * The message of an error for a required key that is absent (or
 * `undefined`) where its codec would take `undefined`.
 *
 * @category codecs
 */
export const REQUIRED_KEY = 'required, got nothing'

/** The message of an error for a value nested deeper than a strict object allows. */
const TOO_DEEP = 'nested too deep'

/** Stands in the context of an unknown key: what is there should be nothing. */
const UnknownKeyType = new t.Type<never>(
  'nothing (unknown key)',
  (_u): _u is never => false,
  (u, c) => t.failure(u, c, UNKNOWN_KEY),
  () => undefined as never,
)

/** Stands in the context of a value nested too deep. */
const TooDeepType = new t.Type<never>(
  'a value nested less deep',
  (_u): _u is never => false,
  (u, c) => t.failure(u, c, TOO_DEEP),
  () => undefined as never,
)

/**
 * Whether an io-ts error is an unknown key of a strict object (the key is
 * the last of its path).
 *
 * @category codecs
 */
export const isUnknownKey = (e: t.ValidationError): boolean =>
  e.context.at(-1)?.type === UnknownKeyType

/**
 * Whether an io-ts error is a value nested deeper than a strict object's
 * `maxDepth` (its path is where it goes too deep).
 *
 * @category codecs
 */
export const isTooDeep = (e: t.ValidationError): boolean => e.context.at(-1)?.type === TooDeepType

/**
 * The known key an unknown key most likely meant, when one is near.
 *
 * @category codecs
 */
export const keyHint = (e: t.ValidationError): string | undefined =>
  isUnknownKey(e) ? /did you mean "(.+)"\?$/.exec(e.message ?? '')?.[1] : undefined

/**
 * How a strict object checks more than its keys.
 *
 * - `aliases`: words other tools use for its keys, and the key each means
 *   here (`after` → `dependsOn`): an unknown key's hint.
 * - `rules`: cross-key checks of the decoded object, run when every key
 *   decoded; each answers a problem (the error's message) or nothing.
 * - `notObject`: the message of the error for a value that is no object
 *   (`options must be an object, got array`); without it the error has
 *   no message and says what was expected by the codec's name.
 * - `maxDepth`: how deep objects and arrays may nest in it (the object
 *   counts as one); a deeper value is refused at the path where it goes
 *   too deep, before any codec walks it.
 *
 * @category codecs
 */
export interface StrictOptions<A> {
  readonly aliases?: Readonly<Record<string, string>>
  readonly rules?: readonly ((a: A) => string | undefined)[]
  readonly notObject?: (u: unknown) => string
  readonly maxDepth?: number
}

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

const validator = <A>(
  required: Props,
  optional: Props,
  options: StrictOptions<A>,
): t.Validate<unknown, A> => {
  const known = [...Object.keys(required), ...Object.keys(optional)].filter((k) => k !== '$schema')
  const { aliases, rules = [], notObject, maxDepth } = options
  return (u, c) => {
    if (typeof u !== 'object' || u === null || Array.isArray(u))
      return notObject === undefined ? t.failure(u, c) : t.failure(u, c, notObject(u))
    const record = u as Record<string, unknown>
    const errors: t.ValidationError[] = []
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(record)) {
      if (Object.hasOwn(required, key) || Object.hasOwn(optional, key)) continue
      const near = didYouMean(key, known, aliases)
      errors.push({
        value: record[key],
        context: t.appendContext(c, key, UnknownKeyType, record[key]),
        message: near === undefined ? UNKNOWN_KEY : `${UNKNOWN_KEY}; did you mean "${near}"?`,
      })
    }
    const check = (key: string, codec: t.Mixed, isRequired: boolean): void => {
      const value = record[key]
      const deeper = maxDepth === undefined ? undefined : tooDeep(value, 2, maxDepth)
      if (deeper !== undefined) {
        const context = deeper.reduce<t.Context>(
          (at, k) => t.appendContext(at, k, t.unknown, undefined),
          t.appendContext(c, key, t.unknown, undefined),
        )
        errors.push({
          value: undefined,
          context: [...context.slice(0, -1), { ...context.at(-1)!, type: TooDeepType }],
          message: TOO_DEEP,
        })
        return
      }
      const r = codec.validate(value, t.appendContext(c, key, codec, value))
      if (E.isLeft(r)) errors.push(...r.left)
      else if (r.right === undefined && isRequired) {
        // a codec that takes anything takes undefined too; a required key may not be missing
        errors.push({
          value,
          context: t.appendContext(c, key, codec, value),
          message: REQUIRED_KEY,
        })
      } else if (r.right !== undefined) out[key] = r.right
    }
    for (const key of Object.keys(required)) check(key, required[key]!, true)
    for (const key of Object.keys(optional))
      if (record[key] !== undefined) check(key, optional[key]!, false)
    if (errors.length === 0) {
      for (const rule of rules) {
        const problem = rule(out as A)
        if (problem !== undefined) errors.push({ value: u, context: c, message: problem })
      }
    }
    return errors.length > 0 ? t.failures(errors) : t.success(out as A)
  }
}

/**
 * The codec of a strict object (see {@link strict}): an io-ts type that
 * keeps its `required` and `optional` props, so other views of it (its
 * JSON Schema) are derived from it.
 *
 * @category codecs
 */
export class StrictType<R extends Props, O extends Props, A = Struct<R, O>> extends t.Type<A, A> {
  readonly _tag = 'StrictType' as const
  constructor(
    name: string,
    readonly required: R,
    readonly optional: O,
    options: StrictOptions<A> = {},
  ) {
    const validate = validator<A>(required, optional, options)
    super(
      name,
      (u): u is A => E.isRight(validate(u, [{ key: '', type: t.unknown, actual: u }])),
      validate,
      t.identity,
    )
  }
}

/**
 * A codec of an object with the `required` and `optional` keys and no
 * other: an unknown key fails at its own path with {@link UNKNOWN_KEY} and
 * a hint of the known key it most likely meant (a typo must not pass
 * silently); a required key may not be missing; each key's errors are at
 * its path; every error is collected. It decodes to an object of the
 * listed keys (an optional key that is `undefined` is left out) and
 * encodes as it is. Its JSON Schema allows no other key.
 *
 * @category codecs
 * @example
 * import { errorPath, strict } from 'nerve-agents/core'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * const Step = strict('Step', { id: t.string }, { dependsOn: t.array(t.string) })
 * assert.deepStrictEqual(Step.decode({ id: 'a' }), { _tag: 'Right', right: { id: 'a' } })
 * const bad = Step.decode({ id: 'a', dependson: [] })
 * assert.ok(bad._tag === 'Left')
 * assert.deepStrictEqual(
 *   bad.left.map((e) => [errorPath(e), e.message]),
 *   [['/dependson', 'unknown key; did you mean "dependsOn"?']],
 * )
 */
export const strict = <
  R extends Props,
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no optional keys
  O extends Props = {},
  A = Struct<R, O>,
>(
  name: string,
  required: R,
  optional: O = {} as O,
  options: StrictOptions<A> = {},
): StrictType<R, O, A> =>
  withJsonSchema(new StrictType<R, O, A>(name, required, optional, options), () =>
    objectSchema(required, optional),
  )
