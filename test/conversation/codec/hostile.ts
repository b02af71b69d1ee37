/**
 * Hostile inputs for the decoders: a valid file with one value replaced by
 * anything, or removed, and a check that an error's JSON pointer leads to the
 * value it names.
 */
import fc from 'fast-check'
import type { InvalidValue } from 'nerve-agents/core'

const REMOVE = Symbol('remove')

/** Every path into a JSON value, parents before children. */
const pathsOf = (root: unknown): (string | number)[][] => {
  const out: (string | number)[][] = []
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }]
  while (stack.length > 0) {
    const { value, path } = stack.pop()!
    out.push(path)
    if (Array.isArray(value)) value.forEach((x, i) => stack.push({ value: x, path: [...path, i] }))
    else if (typeof value === 'object' && value !== null) {
      for (const [k, x] of Object.entries(value)) stack.push({ value: x, path: [...path, k] })
    }
  }
  return out
}

/** A copy of `json` with the value at one of its paths replaced by anything, or removed. */
export const mutated = (json: unknown): fc.Arbitrary<unknown> => {
  const paths = pathsOf(json)
  return fc
    .tuple(
      fc.nat({ max: paths.length - 1 }),
      fc.oneof(fc.anything(), fc.jsonValue(), fc.constant(REMOVE)),
    )
    .map(([i, replacement]) => {
      const copy = JSON.parse(JSON.stringify(json)) as unknown
      const path = paths[i]!
      if (path.length === 0) return replacement === REMOVE ? undefined : replacement
      let parent = copy as Record<string | number, unknown>
      for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
      const last = path[path.length - 1]!
      if (replacement === REMOVE) {
        if (Array.isArray(parent)) parent.splice(Number(last), 1)
        else Reflect.deleteProperty(parent, last)
      } else {
        Object.defineProperty(parent, last, {
          value: replacement,
          enumerable: true,
          writable: true,
        })
      }
      return copy
    })
}

/** The value a JSON pointer leads to, or `undefined` when its last key is missing; throws if it leads nowhere. */
export const resolve = (root: unknown, pointer: string): unknown => {
  if (pointer === '') return root
  let at = root
  const keys = pointer
    .slice(1)
    .split('/')
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
  keys.forEach((k, i) => {
    if (typeof at !== 'object' || at === null) throw new Error(`${pointer} leads nowhere at ${i}`)
    const own = Object.prototype.hasOwnProperty.call(at, k)
    if (!own && i < keys.length - 1) throw new Error(`${pointer} leads nowhere at ${i}`)
    at = own ? (at as Record<string, unknown>)[k] : undefined
  })
  return at
}

/** Whether every invalid value is found where its pointer says. */
export const pointsInto = (root: unknown, errors: readonly InvalidValue[]): boolean =>
  errors.every((e) => Object.is(resolve(root, e.path), e.actual))
