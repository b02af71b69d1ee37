/**
 * Refinements: the values of a base codec that pass a check, named, with
 * the error message and JSON Schema the check implies; and the few
 * refinements more than one boundary uses. Pure.
 */
import * as t from 'io-ts'
import { jsonSchemaOf, withJsonSchema, type JsonSchema } from './jsonSchema.js'

const show = (u: unknown): string =>
  typeof u === 'string'
    ? JSON.stringify(u)
    : typeof u === 'number'
      ? String(u)
      : u === null
        ? 'null'
        : typeof u

/**
 * How a refinement says what it wants.
 *
 * - `must`: what a value must do (`be a non-negative integer`); a value
 *   that fails has the message `must <must>, got <value>`. Without it the
 *   error has no message and its renderer says the refinement's name.
 * - `schema`: what the check adds to the base's JSON Schema
 *   (`{ minimum: 0 }`).
 *
 * @category codecs
 */
export interface RefineOptions {
  readonly must?: string
  readonly schema?: JsonSchema
}

/**
 * The codec of the values of `base` that pass a check (see {@link refined}):
 * it keeps its base and what it adds to the base's JSON Schema.
 *
 * @category codecs
 */
export class RefinedType<A> extends t.Type<A, A> {
  readonly _tag = 'RefinedType' as const
  readonly schema: JsonSchema
  constructor(
    name: string,
    readonly base: t.Type<A, A>,
    ok: (a: A) => boolean,
    readonly options: RefineOptions = {},
  ) {
    const { must } = options
    super(
      name,
      (u): u is A => base.is(u) && ok(u),
      (u, c) =>
        base.is(u) && ok(u)
          ? t.success(u)
          : must === undefined
            ? t.failure(u, c)
            : t.failure(u, c, `must ${must}, got ${show(u)}`),
      t.identity,
    )
    this.schema = options.schema ?? {}
  }
}

/**
 * A codec of the values of `base` that pass `ok`, named `name`. Its JSON
 * Schema is the base's with `options.schema` added, described by what it
 * must be (else by its name).
 *
 * @category codecs
 * @example
 * import { refined } from 'nerve-agents/core'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * const Even = refined(t.number, 'Even', (n) => n % 2 === 0, { must: 'be even' })
 * assert.strictEqual(Even.is(2), true)
 * const odd = Even.decode(3)
 * assert.ok(odd._tag === 'Left')
 * assert.strictEqual(odd.left[0]!.message, 'must be even, got 3')
 */
export const refined = <A>(
  base: t.Type<A, A>,
  name: string,
  ok: (a: A) => boolean,
  options: RefineOptions = {},
): RefinedType<A> =>
  withJsonSchema(new RefinedType(name, base, ok, options), () => ({
    ...jsonSchemaOf(base),
    ...options.schema,
    description: options.must === undefined ? name : `must ${options.must}`,
  }))

/**
 * A string with something besides white space.
 *
 * @category codecs
 */
export const NonBlankString = refined(t.string, 'NonBlankString', (s) => s.trim() !== '', {
  must: 'be a non-blank string',
  schema: { pattern: '\\S' },
})

/**
 * A string of at least one character.
 *
 * @category codecs
 */
export const NonEmptyString = refined(t.string, 'NonEmptyString', (s) => s !== '', {
  must: 'be a non-empty string',
  schema: { minLength: 1 },
})

/**
 * A whole number ≥ 0 (a safe integer).
 *
 * @category codecs
 */
export const NonNegativeInteger = refined(
  t.number,
  'NonNegativeInteger',
  (n) => Number.isSafeInteger(n) && n >= 0,
  { must: 'be a non-negative integer', schema: { type: 'integer', minimum: 0 } },
)

/**
 * A finite number ≥ 0.
 *
 * @category codecs
 */
export const NonNegativeNumber = refined(
  t.number,
  'NonNegativeNumber',
  (n) => Number.isFinite(n) && n >= 0,
  { must: 'be a non-negative number', schema: { minimum: 0 } },
)

/**
 * A finite number > 0.
 *
 * @category codecs
 */
export const PositiveNumber = refined(
  t.number,
  'PositiveNumber',
  (n) => Number.isFinite(n) && n > 0,
  { must: 'be a positive number', schema: { exclusiveMinimum: 0 } },
)

/**
 * A codec of one of the string literals `values` (an io-ts `keyof`, whose
 * error names every value it takes: `"a" | "b"`).
 *
 * @category codecs
 * @example
 * import { literals } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const Direction = literals('Direction', ['both', 'one-way'])
 * assert.strictEqual(Direction.is('both'), true)
 * assert.strictEqual(Direction.is('sideways'), false)
 */
export const literals = <const L extends string>(
  name: string,
  values: readonly L[],
): t.KeyofC<Record<L, null>> =>
  t.keyof(Object.fromEntries(values.map((v) => [v, null])) as Record<L, null>, name)
