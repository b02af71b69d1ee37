import * as E from 'fp-ts/lib/Either.js'
import type { InvalidJson } from './errors.js'

/**
 * JSON text in and out for the codecs: parsing returns a typed error instead
 * of throwing, and writing falls back to an iterative writer when a value is
 * nested too deeply for `JSON.stringify` (which recurses).
 *
 * @internal
 */

/** Parses JSON text. @internal */
export const parseJson = (text: string): E.Either<InvalidJson, unknown> => {
  try {
    return E.right(JSON.parse(text) as unknown)
  } catch (e) {
    return E.left({ _tag: 'InvalidJson', message: e instanceof Error ? e.message : String(e) })
  }
}

/** `JSON.stringify`, falling back to {@link stringifyDeep} when the stack runs out. @internal */
export const stringifyJson = (value: unknown): string => {
  try {
    return JSON.stringify(value)
  } catch (e) {
    if (e instanceof RangeError && e.message.includes('call stack')) return stringifyDeep(value)
    throw e
  }
}

/** Items per part of {@link stringifyParts}: a part's text of usual entries stays under V8's large-object size. */
const ITEMS_PER_PART = 256

/**
 * The text of a long list of items, as it stands inside the brackets of
 * one JSON array or object: `part(start, end)` builds the array or object
 * of items `start` to `end - 1`, and the texts of the parts, without their
 * brackets, are joined with commas (as a rope: not copied again). Writing
 * a value of 10⁵ items with one `JSON.stringify` means building all of it
 * first, and keeping it through collections; what a part builds dies young.
 *
 * @internal
 */
export const stringifyParts = (
  count: number,
  part: (start: number, end: number) => object,
): string => {
  let body = ''
  for (let start = 0; start < count; start += ITEMS_PER_PART) {
    const text = stringifyJson(part(start, Math.min(start + ITEMS_PER_PART, count))).slice(1, -1)
    body = start === 0 ? text : body + ',' + text
  }
  return body
}

interface Frame {
  readonly value: object
  /** The keys of an object; `undefined` for an array. */
  readonly keys: readonly string[] | undefined
  next: number
  wrote: boolean
}

const prepare = (value: unknown, key: string): unknown => {
  if (typeof value === 'object' && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON
    if (typeof toJSON === 'function') return toJSON.call(value, key) as unknown
  }
  return value
}

const skipped = (v: unknown): boolean =>
  v === undefined || typeof v === 'function' || typeof v === 'symbol'

/**
 * Writes a JSON value as `JSON.stringify(value)` does (without `replacer` or
 * indentation), with an explicit stack, so any depth works.
 *
 * @internal
 */
export const stringifyDeep = (value: unknown): string => {
  const out: string[] = []
  const stack: Frame[] = []
  const open = (v: unknown): void => {
    if (Array.isArray(v)) {
      out.push('[')
      stack.push({ value: v, keys: undefined, next: 0, wrote: false })
    } else if (typeof v === 'object' && v !== null) {
      out.push('{')
      stack.push({ value: v, keys: Object.keys(v), next: 0, wrote: false })
    } else {
      out.push(JSON.stringify(v))
    }
  }
  const first = prepare(value, '')
  if (skipped(first)) return JSON.stringify(first)
  open(first)
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!
    if (f.keys === undefined) {
      const a = f.value as readonly unknown[]
      if (f.next >= a.length) {
        out.push(']')
        stack.pop()
        continue
      }
      const i = f.next++
      if (i > 0) out.push(',')
      const x = prepare(a[i], String(i))
      if (skipped(x)) out.push('null')
      else open(x)
    } else {
      const o = f.value as Readonly<Record<string, unknown>>
      let opened = false
      while (f.next < f.keys.length) {
        const k = f.keys[f.next++]!
        const x = prepare(o[k], k)
        if (skipped(x)) continue
        out.push(f.wrote ? ',' : '', JSON.stringify(k), ':')
        f.wrote = true
        open(x)
        opened = true
        break
      }
      if (!opened) {
        out.push('}')
        stack.pop()
      }
    }
  }
  return out.join('')
}
