/**
 * JSON Schemas made from the io-ts codecs that decode Nerve's files, so the
 * schema an editor completes with and the decoder that checks a file can
 * never disagree: io-ts's own types are read by their `_tag`, and the
 * codecs Nerve makes itself (strict objects, checked strings and numbers)
 * carry their schema piece, given when they are made ({@link withJsonSchema}).
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
 * type, partial, intersection, union, readonly, exact, refinement; an
 * `undefined` member of a union is left out: it is a key not written); any
 * other type is `{}` (anything), described by its name. A codec met again
 * inside itself is `{}` too.
 *
 * @category schemas
 * @example
 * import { jsonSchemaOf } from 'nerve-agents/core'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(jsonSchemaOf(t.array(t.keyof({ a: null, b: null }))), {
 *   type: 'array',
 *   items: { type: 'string', enum: ['a', 'b'] },
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
      return { type: 'string', enum: Object.keys(c.keys ?? {}) }
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
    case 'UnionType': {
      // undefined is no JSON value: in a file or on the wire it is a key left out
      const members = (c.types ?? []).filter((m) => (m as Io)._tag !== 'UndefinedType')
      return members.length === 1 ? jsonSchemaOf(members[0]) : { anyOf: members.map(jsonSchemaOf) }
    }
    case 'ExactType':
      return { ...jsonSchemaOf(c.type), additionalProperties: false }
    case 'ReadonlyType':
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
