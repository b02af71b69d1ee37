/**
 * JSON Schemas made from the io-ts codecs that decode Nerve's files, so the
 * schema an editor completes with and the decoder that checks a file can
 * never disagree: io-ts's own types are read by their `_tag`, and the
 * codecs Nerve makes itself (strict objects, checked strings and numbers)
 * carry their schema piece, given when they are made ({@link withJsonSchema}).
 *
 * Also the did-you-mean the decoders add to an unknown key or node kind.
 * Pure: no I/O.
 */

/**
 * A JSON Schema (draft 2020-12) as a plain value.
 *
 * @category schemas
 */
export type JsonSchema = { readonly [keyword: string]: unknown }

const given = new WeakMap<object, () => JsonSchema>()

/**
 * Gives `codec` its JSON Schema (made when asked, so codecs that refer to
 * each other can be made in any order); answers the codec itself.
 *
 * @category schemas
 */
export const withJsonSchema = <C extends object>(codec: C, schema: () => JsonSchema): C => {
  given.set(codec, schema)
  return codec
}

interface Io {
  readonly _tag?: string
  readonly name?: string
  readonly type?: unknown
  readonly types?: readonly unknown[]
  readonly props?: Readonly<Record<string, unknown>>
  readonly value?: unknown
  readonly keys?: Readonly<Record<string, unknown>>
  readonly domain?: unknown
  readonly codomain?: unknown
}

let stack: object[] = []

/**
 * The JSON Schema of a codec: its own when it was given one, else read off
 * io-ts's types (string, number, boolean, literal, keyof, array, record,
 * type, partial, intersection, union, readonly, exact, refinement); any
 * other type is `{}` (anything), described by its name. A codec met again
 * inside itself is `{}` too.
 *
 * @category schemas
 * @example
 * import { jsonSchemaOf } from 'nerve-agents'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(jsonSchemaOf(t.array(t.keyof({ a: null, b: null }))), {
 *   type: 'array',
 *   items: { enum: ['a', 'b'] },
 * })
 */
export const jsonSchemaOf = (codec: unknown): JsonSchema => {
  const c = codec as Io & object
  if (stack.includes(c)) return {}
  stack.push(c)
  try {
    const own = given.get(c)
    if (own !== undefined) return own()
    return fromIoTs(c)
  } finally {
    stack = stack.filter((x) => x !== c)
  }
}

const fromIoTs = (c: Io): JsonSchema => {
  switch (c._tag) {
    case 'StringType':
      return { type: 'string' }
    case 'NumberType':
      return { type: 'number' }
    case 'BooleanType':
      return { type: 'boolean' }
    case 'NullType':
      return { type: 'null' }
    case 'UnknownRecordType':
      return { type: 'object' }
    case 'UnknownArrayType':
      return { type: 'array' }
    case 'UnknownType':
    case 'AnyType':
      return {}
    case 'LiteralType':
      return { const: c.value }
    case 'KeyofType':
      return { enum: Object.keys(c.keys ?? {}) }
    case 'ArrayType':
    case 'ReadonlyArrayType':
      return { type: 'array', items: jsonSchemaOf(c.type) }
    case 'DictionaryType':
      return { type: 'object', additionalProperties: jsonSchemaOf(c.codomain) }
    case 'InterfaceType':
      return objectSchema(c.props ?? {}, {}, true)
    case 'PartialType':
      return objectSchema({}, c.props ?? {}, true)
    case 'IntersectionType':
      return { allOf: (c.types ?? []).map(jsonSchemaOf) }
    case 'UnionType':
      return { anyOf: (c.types ?? []).map(jsonSchemaOf) }
    case 'ReadonlyType':
    case 'ExactType':
    case 'RefinementType':
      return jsonSchemaOf(c.type)
    default:
      return c.name === undefined ? {} : { description: c.name }
  }
}

/**
 * The schema of an object with these `required` and `optional` keys (each
 * a codec); `open` lets other keys through, else none may be there.
 *
 * @category schemas
 */
export const objectSchema = (
  required: Readonly<Record<string, unknown>>,
  optional: Readonly<Record<string, unknown>>,
  open = false,
): JsonSchema => ({
  type: 'object',
  properties: Object.fromEntries(
    [...Object.entries(required), ...Object.entries(optional)].map(([k, v]) => [
      k,
      jsonSchemaOf(v),
    ]),
  ),
  ...(Object.keys(required).length > 0 && { required: Object.keys(required) }),
  ...(!open && { additionalProperties: false }),
})

const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!
      row[j] = Math.min(up + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = up
    }
  }
  return row[b.length]!
}

/**
 * The known word a mistyped or borrowed one most likely meant: one
 * `aliases` maps it to (words other tools use, e.g. `after` → `dependsOn`),
 * else the nearest known word that differs in case only or by at most a
 * third of its letters (at most 3); `undefined` when none is close.
 *
 * @category schemas
 * @example
 * import { didYouMean } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const keys = ['id', 'node', 'dependsOn', 'onError']
 * assert.strictEqual(didYouMean('after', keys, { after: 'dependsOn' }), 'dependsOn')
 * assert.strictEqual(didYouMean('dependson', keys), 'dependsOn')
 * assert.strictEqual(didYouMean('onErorr', keys), 'onError')
 * assert.strictEqual(didYouMean('colour', keys), undefined)
 */
export const didYouMean = (
  word: string,
  known: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): string | undefined => {
  const alias = Object.hasOwn(aliases, word) ? aliases[word] : undefined
  if (alias !== undefined && known.includes(alias)) return alias
  const lower = word.toLowerCase()
  const same = known.find((k) => k.toLowerCase() === lower)
  if (same !== undefined) return same
  let best: { word: string; d: number } | undefined
  for (const k of known) {
    const d = distance(lower, k.toLowerCase())
    if (best === undefined || d < best.d) best = { word: k, d }
  }
  return best !== undefined && best.d <= Math.min(3, Math.ceil(word.length / 3))
    ? best.word
    : undefined
}
