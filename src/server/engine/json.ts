import type { WireErrorShape } from '../../protocol/index.js'

/** The tag of an error value: its `_tag`, else its `name`, else `Error`. */
export const tagOf = (e: unknown): string => {
  const tag = (e as { _tag?: unknown } | null)?._tag
  if (typeof tag === 'string') return tag
  const name = (e as { name?: unknown } | null)?.name
  return typeof name === 'string' && name !== '' ? name : 'Error'
}

/** An error as it goes inside an event or a trace: its tag and message. */
export const errorShape = (e: unknown): WireErrorShape =>
  Object.freeze({ tag: tagOf(e), message: e instanceof Error ? e.message : String(e) })

/** JSON.stringify's replacer for what JSON lacks: errors keep tag and message, bigints become strings. */
const replacer = (_key: string, value: unknown): unknown => {
  if (value instanceof Error) return errorShape(value)
  if (typeof value === 'bigint') return value.toString()
  return value
}

/**
 * A value as JSON text, never throwing: errors become `{ tag, message }`,
 * bigints strings, functions and symbols are left out (as JSON does);
 * `undefined` when the value cannot be written (a cycle).
 */
export const toJson = (value: unknown): string | undefined => {
  try {
    return JSON.stringify(value ?? null, replacer)
  } catch {
    return undefined
  }
}
