import { errorTag } from '../../errors.js'
import type { WireErrorShape } from '../../protocol/index.js'

/** An error as it goes inside an event or a trace: its tag and message. */
export const errorShape = (e: unknown): WireErrorShape =>
  Object.freeze({ tag: errorTag(e), message: e instanceof Error ? e.message : String(e) })

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
