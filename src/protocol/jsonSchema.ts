import * as t from 'io-ts'
import { RefinedType, StrictType } from '../codec/index.js'

/**
 * A JSON Schema (draft 2020-12 subset): what {@link jsonSchema} writes.
 *
 * @category protocol
 */
export type JsonSchema = Readonly<Record<string, unknown>>

type Props = Readonly<Record<string, t.Mixed>>

const object = (required: Props, optional: Props, exact: boolean): JsonSchema => {
  const properties = Object.fromEntries(
    [...Object.entries(required), ...Object.entries(optional)].map(([k, v]) => [k, jsonSchema(v)]),
  )
  const names = Object.keys(required)
  return {
    type: 'object',
    properties,
    ...(names.length > 0 && { required: names }),
    ...(exact && { additionalProperties: false }),
  }
}

/**
 * The JSON Schema of an io-ts codec of the protocol: params objects (exact:
 * no other keys), objects, partials, exact types, strings, numbers,
 * booleans, literals, literal unions (`enum`), unions (`anyOf`),
 * intersections (`allOf`), arrays, records and refinements (the base's
 * schema and what the refinement adds). A codec that takes anything
 * (`t.unknown`) is `{}`. So a face that describes a command's arguments
 * (the MCP server's tool schemas) says what the engine's codec checks, in
 * one place.
 *
 * Throws for a codec it has no rule for (a programmer's error: a new kind of
 * codec in the protocol needs one here).
 *
 * @category protocol
 * @example
 * import { jsonSchema, paramsCodecs } from 'nerve-agents/protocol'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(jsonSchema(paramsCodecs.CLOSE_SESSION), {
 *   type: 'object',
 *   properties: { sessionId: { type: 'string' } },
 *   required: ['sessionId'],
 *   additionalProperties: false,
 * })
 */
export const jsonSchema = (codec: t.Decoder<unknown, unknown>): JsonSchema => {
  if (codec instanceof StrictType) {
    const { required, optional } = codec as StrictType<Props, Props>
    return object(required, optional, true)
  }
  if (codec instanceof RefinedType) return { ...jsonSchema(codec.base), ...codec.schema }
  if (codec instanceof t.StringType) return { type: 'string' }
  if (codec instanceof t.NumberType) return { type: 'number' }
  if (codec instanceof t.BooleanType) return { type: 'boolean' }
  if (codec instanceof t.UnknownType) return {}
  if (codec === t.UnknownRecord) return { type: 'object' }
  if (codec instanceof t.LiteralType) return { const: codec.value as unknown }
  if (codec instanceof t.KeyofType)
    return { type: 'string', enum: Object.keys(codec.keys as object) }
  if (codec instanceof t.InterfaceType) return object(codec.props as Props, {}, false)
  if (codec instanceof t.PartialType) return object({}, codec.props as Props, false)
  if (codec instanceof t.ExactType) {
    return { ...jsonSchema(codec.type as t.Mixed), additionalProperties: false }
  }
  if (codec instanceof t.ArrayType || codec instanceof t.ReadonlyArrayType) {
    return { type: 'array', items: jsonSchema(codec.type as t.Mixed) }
  }
  if (codec instanceof t.DictionaryType) {
    return { type: 'object', additionalProperties: jsonSchema(codec.codomain as t.Mixed) }
  }
  if (codec instanceof t.UnionType) {
    // undefined is no JSON value: on the wire it is a key left out
    const members = (codec.types as readonly t.Mixed[]).filter(
      (c) => !(c instanceof t.UndefinedType),
    )
    return members.length === 1
      ? jsonSchema(members[0]!)
      : { anyOf: members.map((c) => jsonSchema(c)) }
  }
  if (codec instanceof t.IntersectionType) {
    return { allOf: (codec.types as readonly t.Mixed[]).map((c) => jsonSchema(c)) }
  }
  throw new Error(`jsonSchema: no rule for the codec ${(codec as { name?: string }).name ?? '?'}`)
}
