/**
 * The pieces every node kind's options codec is made of, and how their
 * errors are read: by a builder (a `UsageError` naming the node and the
 * option) and by a graph file's decoder (a path under the node). Internal:
 * each kind exports its own codec.
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import {
  errorKeys,
  isUnknownKey,
  jsonSchemaOf,
  keyHint,
  NonBlankString,
  NonEmptyString,
  NonNegativeInteger,
  NonNegativeNumber,
  refined,
  strict,
  withJsonSchema,
  type Props,
} from '../codec/index.js'
import { UsageError } from '../errors.js'
import { namePattern, validateName } from './name.js'
import { EMPTY_METADATA, makeNode, type Node, type NodeOptions } from './Node.js'

const typeOf = (u: unknown): string => (u === null ? 'null' : typeof u)
const show = (u: unknown): string =>
  typeof u === 'string' ? JSON.stringify(u) : typeof u === 'number' ? String(u) : typeOf(u)

/** @internal */
export const nonBlank = NonBlankString

/** @internal */
export const nonEmpty = NonEmptyString

/** @internal */
export const anyString = refined(t.string, 'string', () => true, { must: 'be a string' })

/** @internal */
export const parserName = refined(t.string, 'ParserName', (s) => s.trim() !== '', {
  must: 'be a parser name',
  schema: { pattern: '\\S' },
})

/** A string matching `re`, failing with `what` (`must …`). @internal */
export const pattern = (codecName: string, re: RegExp, what: string): t.Type<string> =>
  refined(t.string, codecName, (s) => re.test(s), {
    must: what,
    schema: { pattern: re.source },
  })

/** @internal */
export const bool = refined(t.boolean, 'boolean', () => true, { must: 'be a boolean' })

/** An integer from `min` to `max`. @internal */
export const integer = (min: number, max: number): t.Type<number> =>
  refined(
    t.number,
    `Integer(${min}..${max})`,
    (n) => Number.isSafeInteger(n) && n >= min && n <= max,
    {
      must: `be an integer from ${min} to ${max}`,
      schema: { type: 'integer', minimum: min, maximum: max },
    },
  )

/** @internal */
export const nonNegativeInteger = NonNegativeInteger

/** @internal */
export const nonNegativeNumber = NonNegativeNumber

/** Milliseconds: finite, > 0 (or ≥ 0 when `zeroOk`). @internal */
export const millis = (zeroOk: boolean): t.Type<number> =>
  refined(
    t.number,
    zeroOk ? 'NonNegativeMillis' : 'PositiveMillis',
    (n) => Number.isFinite(n) && (zeroOk ? n >= 0 : n > 0),
    {
      must: `be a ${zeroOk ? 'non-negative' : 'positive'} number of milliseconds`,
      schema: zeroOk ? { minimum: 0 } : { exclusiveMinimum: 0 },
    },
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
export const metadata = refined(t.UnknownRecord, 'Metadata', (u) => !Array.isArray(u), {
  must: 'be an object',
  schema: { type: 'object' },
})

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

/** Words people use for an option, and the option they mean. */
const OPTION_ALIASES = { cmd: 'command', argv: 'args', timeout: 'timeoutMs' }

/**
 * The options codec of one node kind: a strict object with the `required`
 * and `optional` fields and no other key, then the cross-field `rules`
 * (each answers a problem of the whole object, or nothing). Every error is
 * collected, with its path.
 *
 * @internal
 */
export const optionsCodec = <A>(
  codecName: string,
  required: Props,
  optional: Props,
  rules: readonly ((a: A) => string | undefined)[] = [],
): t.Type<A> =>
  strict<Props, Props, A>(codecName, required, optional, {
    aliases: OPTION_ALIASES,
    rules,
    notObject: (u) => `options must be an object, got ${Array.isArray(u) ? 'array' : typeOf(u)}`,
  })

/**
 * What is wrong, in a builder's words: `unknown option "x"; did you mean
 * "y"?` for an unknown key, else the error's message (or what was
 * expected).
 *
 * @internal
 */
export const optionProblem = (e: t.ValidationError): string => {
  if (isUnknownKey(e)) {
    const hint = keyHint(e)
    return `unknown option ${show(errorKeys(e).at(-1))}${hint === undefined ? '' : `; did you mean ${show(hint)}?`}`
  }
  return e.message ?? `must be ${e.context.at(-1)?.type.name ?? 'a value'}, got ${show(e.value)}`
}

/** One error as a builder says it: `cols must be …`, `args[0] must be …`, `unknown option "x"`. */
const showError = (e: t.ValidationError): string => {
  if (isUnknownKey(e)) return optionProblem(e)
  const where = errorKeys(e).reduce(
    (out, key) => (/^\d+$/.test(key) ? `${out}[${key}]` : out === '' ? key : `${out}.${key}`),
    '',
  )
  return where === '' ? optionProblem(e) : `${where} ${optionProblem(e)}`
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
