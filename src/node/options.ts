/**
 * The pieces every node kind's options codec is made of, and how their
 * errors are read: by a builder (a `UsageError` naming the node and the
 * option) and by a graph file's decoder (a path under the node). Internal:
 * each kind exports its own codec.
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { UsageError } from '../errors.js'
import {
  didYouMean,
  jsonSchemaOf,
  objectSchema,
  withJsonSchema,
  type JsonSchema,
} from './jsonSchema.js'
import { namePattern, validateName } from './name.js'
import { EMPTY_METADATA, makeNode, type Node, type NodeOptions } from './Node.js'

const typeOf = (u: unknown): string => (u === null ? 'null' : typeof u)
const show = (u: unknown): string =>
  typeof u === 'string' ? JSON.stringify(u) : typeof u === 'number' ? String(u) : typeOf(u)

/** A codec of values that `is` accepts, failing with `must ${what}, got <value>`; `schema` is its JSON Schema. */
const check = <A>(
  name: string,
  is: (u: unknown) => u is A,
  what: string,
  schema: JsonSchema,
): t.Type<A> =>
  withJsonSchema(
    new t.Type<A>(
      name,
      is,
      (u, c) => (is(u) ? t.success(u) : t.failure(u, c, `must ${what}, got ${show(u)}`)),
      t.identity,
    ),
    () => ({ ...schema, description: `must ${what}` }),
  )

/** @internal */
export const nonBlank = check(
  'NonBlankString',
  (u): u is string => typeof u === 'string' && u.trim() !== '',
  'be a non-blank string',
  { type: 'string', pattern: '\\S' },
)

/** @internal */
export const nonEmpty = check(
  'NonEmptyString',
  (u): u is string => typeof u === 'string' && u !== '',
  'be a non-empty string',
  { type: 'string', minLength: 1 },
)

/** @internal */
export const anyString = check('string', (u): u is string => typeof u === 'string', 'be a string', {
  type: 'string',
})

/** @internal */
export const parserName = check(
  'ParserName',
  (u): u is string => typeof u === 'string' && u.trim() !== '',
  'be a parser name',
  { type: 'string', pattern: '\\S' },
)

/** A string matching `re`. @internal */
export const pattern = (codecName: string, re: RegExp, what: string): t.Type<string> =>
  check(codecName, (u): u is string => typeof u === 'string' && re.test(u), what, {
    type: 'string',
    pattern: re.source,
  })

/** @internal */
export const bool = check('boolean', (u): u is boolean => typeof u === 'boolean', 'be a boolean', {
  type: 'boolean',
})

/** An integer from `min` to `max`. @internal */
export const integer = (min: number, max: number): t.Type<number> =>
  check(
    `Integer(${min}..${max})`,
    (u): u is number => Number.isSafeInteger(u) && (u as number) >= min && (u as number) <= max,
    `be an integer from ${min} to ${max}`,
    { type: 'integer', minimum: min, maximum: max },
  )

/** @internal */
export const nonNegativeInteger = check(
  'NonNegativeInteger',
  (u): u is number => Number.isSafeInteger(u) && (u as number) >= 0,
  'be a non-negative integer',
  { type: 'integer', minimum: 0 },
)

/** @internal */
export const nonNegativeNumber = check(
  'NonNegativeNumber',
  (u): u is number => typeof u === 'number' && Number.isFinite(u) && u >= 0,
  'be a non-negative number',
  { type: 'number', minimum: 0 },
)

/** Milliseconds: finite, > 0 (or ≥ 0 when `zeroOk`). @internal */
export const millis = (zeroOk: boolean): t.Type<number> =>
  check(
    zeroOk ? 'NonNegativeMillis' : 'PositiveMillis',
    (u): u is number => typeof u === 'number' && Number.isFinite(u) && (zeroOk ? u >= 0 : u > 0),
    `be a ${zeroOk ? 'non-negative' : 'positive'} number of milliseconds`,
    zeroOk ? { type: 'number', minimum: 0 } : { type: 'number', exclusiveMinimum: 0 },
  )

/** A name by the name rule. @internal */
export const name: t.Type<string> = withJsonSchema(
  new t.Type<string>(
    'Name',
    (u): u is string => typeof u === 'string' && E.isRight(validateName(u)),
    (u, c) => {
      const checked = validateName(u)
      return E.isRight(checked)
        ? t.success(checked.right)
        : t.failure(u, c, `must be a name: ${show(u)} ${checked.left.reason}`)
    },
    t.identity,
  ),
  () => ({ type: 'string', pattern: namePattern.source }),
)

/** An array of strings (each checked by `item`). @internal */
export const arrayOf = (item: t.Type<string>, what = 'strings'): t.Type<readonly string[]> =>
  withJsonSchema(
    new t.Type<readonly string[]>(
      `Array<${item.name}>`,
      (u): u is readonly string[] => Array.isArray(u) && u.every((x) => item.is(x)),
      (u, c) => {
        if (!Array.isArray(u)) return t.failure(u, c, `must be an array of ${what}`)
        const errors: t.ValidationError[] = []
        u.forEach((x: unknown, i) => {
          const r = item.validate(x, t.appendContext(c, String(i), item, x))
          if (E.isLeft(r)) errors.push(...r.left)
        })
        return errors.length > 0 ? t.failures(errors) : t.success(u as readonly string[])
      },
      t.identity,
    ),
    () => ({ type: 'array', items: jsonSchemaOf(item) }),
  )

/** An object of string values whose keys `isKey` accepts (an environment). @internal */
export const env = (isKey: (key: string) => boolean): t.Type<Readonly<Record<string, string>>> =>
  withJsonSchema(
    new t.Type<Readonly<Record<string, string>>>(
      'Env',
      (u): u is Readonly<Record<string, string>> =>
        t.UnknownRecord.is(u) &&
        Object.entries(u).every(([k, v]) => isKey(k) && typeof v === 'string'),
      (u, c) => {
        if (!t.UnknownRecord.is(u) || Array.isArray(u)) return t.failure(u, c, 'must be an object')
        const errors: t.ValidationError[] = []
        for (const [k, v] of Object.entries(u)) {
          if (!isKey(k)) {
            errors.push({ value: u, context: c, message: `has ${show(k)}, not a variable name` })
          } else if (typeof v !== 'string') {
            errors.push({
              value: v,
              context: t.appendContext(c, k, anyString, v),
              message: `must be a string, got ${show(v)}`,
            })
          }
        }
        return errors.length > 0 ? t.failures(errors) : t.success(u as Record<string, string>)
      },
      t.identity,
    ),
    () => ({ type: 'object', additionalProperties: { type: 'string' } }),
  )

/** @internal */
export const metadata = check(
  'Metadata',
  (u): u is Readonly<Record<string, unknown>> =>
    typeof u === 'object' && u !== null && !Array.isArray(u),
  'be an object',
  { type: 'object' },
)

/** A shell variable name: what a spawned terminal's `env` keys must be. @internal */
export const isVariableName = (k: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)

/**
 * The options every terminal node (pty, tmux, WezTerm, Claude) has: its
 * metadata, its program's arguments, the parser and the two waits.
 *
 * @internal
 */
export const terminalFields = {
  metadata,
  args: arrayOf(anyString),
  parser: parserName,
  timeoutMs: millis(false),
  quietMs: millis(true),
}

const UNKNOWN = 'unknown option'

/** `; did you mean "x"?` for a key near one of `known`, else nothing. */
const hintFor = (key: string, known: readonly string[]): string => {
  const near = didYouMean(key, known, { cmd: 'command', argv: 'args', timeout: 'timeoutMs' })
  return near === undefined ? '' : `; did you mean ${show(near)}?`
}

/** Whether an error of an options codec is an unknown key. @internal */
export const isUnknownKey = (e: t.ValidationError): boolean =>
  e.message?.startsWith(UNKNOWN) ?? false

/**
 * The options codec of one node kind: an object with the `required` and
 * `optional` fields and no other key, then the cross-field `rules` (each
 * answers a problem of the whole object, or nothing). Every error is
 * collected, with its path.
 *
 * @internal
 */
export const optionsCodec = <A>(
  codecName: string,
  required: t.Props,
  optional: t.Props,
  rules: readonly ((a: A) => string | undefined)[] = [],
): t.Type<A> =>
  withJsonSchema(
    new t.Type<A>(
      codecName,
      (u): u is A => t.UnknownRecord.is(u),
      (u, c) => {
        if (typeof u !== 'object' || u === null || Array.isArray(u)) {
          return t.failure(
            u,
            c,
            `options must be an object, got ${Array.isArray(u) ? 'array' : typeOf(u)}`,
          )
        }
        const o = u as Record<string, unknown>
        const errors: t.ValidationError[] = []
        for (const key of Object.keys(o)) {
          if (!(key in required) && !(key in optional)) {
            errors.push({
              value: o[key],
              context: t.appendContext(c, key, t.never, o[key]),
              message: `${UNKNOWN} ${show(key)}${hintFor(key, [...Object.keys(required), ...Object.keys(optional)])}`,
            })
          }
        }
        const field = (key: string, codec: t.Mixed): void => {
          const r = codec.validate(o[key], t.appendContext(c, key, codec, o[key]))
          if (E.isLeft(r)) errors.push(...r.left)
        }
        for (const [key, codec] of Object.entries(required)) field(key, codec)
        for (const [key, codec] of Object.entries(optional))
          if (o[key] !== undefined) field(key, codec)
        if (errors.length === 0) {
          for (const rule of rules) {
            const problem = rule(o as A)
            if (problem !== undefined) errors.push({ value: o, context: c, message: problem })
          }
        }
        return errors.length > 0 ? t.failures(errors) : t.success(o as A)
      },
      t.identity,
    ),
    () => objectSchema(required, optional),
  )

/** Whether a codec's members are entered by index, which is no place in the value. */
const isComposite = (type: t.Decoder<unknown, unknown>): boolean => {
  const tag = (type as { _tag?: unknown })._tag
  // an exact codec validates with its inner codec's context
  if (type instanceof t.ExactType) return isComposite((type as t.ExactType<t.Mixed>).type)
  return tag === 'UnionType' || tag === 'IntersectionType' || tag === 'RefinementType'
}

/**
 * The keys from the codec's top down to where an error is, without the
 * codec's own entry nor the member indexes of unions and intersections
 * (an options codec of plain io-ts may be one). @internal
 */
export const errorPath = (e: t.ValidationError): readonly string[] =>
  e.context.slice(1).flatMap((entry, i) => (isComposite(e.context[i]!.type) ? [] : [entry.key]))

/** One error as a builder says it: `cols must be …`, `args[0] must be …`, `unknown option "x"`. */
const showError = (e: t.ValidationError): string => {
  if (isUnknownKey(e)) return e.message!
  const where = errorPath(e).reduce(
    (out, key) => (/^\d+$/.test(key) ? `${out}[${key}]` : out === '' ? key : `${out}.${key}`),
    '',
  )
  return where === '' ? e.message! : `${where} ${e.message!}`
}

/**
 * The options decoded by a kind's codec, or a {@link UsageError} naming
 * `api`, the node and the first bad option.
 *
 * @internal
 */
export const decodeOptions = <A>(
  api: string,
  id: string,
  codec: t.Type<A>,
  options: unknown,
): A => {
  const decoded = codec.decode(options)
  if (E.isRight(decoded)) return decoded.right
  throw new UsageError(api, `node "${id}": ${showError(decoded.left[0]!)}`)
}

/** The rule of a node that attaches to a pane or spawns a program: one of the two. @internal */
export const attachOrSpawn = (o: {
  readonly paneId?: unknown
  readonly command?: unknown
  readonly args?: unknown
}): string | undefined =>
  o.paneId !== undefined && (o.command !== undefined || o.args !== undefined)
    ? 'give either paneId (attach) or command (spawn), not both'
    : undefined

/**
 * The builder of a persistent node kind: its options decoded with `codec`
 * (a {@link UsageError} naming `api` — by default the kind —, the node and
 * the first bad option), then the frozen node.
 *
 * @internal
 */
export const persistentNode =
  <N extends Node, O extends NodeOptions>(kind: N['kind'], codec: t.Type<O>, api: string = kind) =>
  (id: string, options: O): N => {
    const { metadata, ...config } = decodeOptions(api, id, codec, options)
    return makeNode(
      {
        id,
        kind,
        persistent: true,
        metadata: metadata ?? EMPTY_METADATA,
        ...config,
      } as unknown as N,
      api,
    )
  }
