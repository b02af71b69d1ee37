import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { parseJson, stringifyDeep, stringifyJson } from '../../../src/conversation/codec/json.js'

describe('stringifyDeep', () => {
  it('writes what JSON.stringify writes, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(stringifyDeep(v)).toBe(JSON.stringify(v))
      }),
    )
  })

  it('skips undefined and functions in objects and writes null for them in arrays, as JSON.stringify does', () => {
    const v = { a: undefined, b: [undefined, () => 1, 2], c: { toJSON: () => 'c' }, d: NaN }
    expect(stringifyDeep(v)).toBe(JSON.stringify(v))
  })

  it('writes values nested deeper than JSON.stringify can', () => {
    let deep: unknown = { end: true }
    for (let i = 0; i < 100_000; i++) deep = [deep, { i }]
    expect(() => JSON.stringify(deep)).toThrow(RangeError)
    const text = stringifyJson(deep)
    expect(text.startsWith('[[[')).toBe(true)
    expect(text.endsWith(',{"i":99999}]')).toBe(true)
    expect(E.isRight(parseJson(text))).toBe(true)
  })
})

describe('parseJson', () => {
  it('returns a typed error for text that is not JSON', () => {
    const r = parseJson('{"a":')
    expect(E.isLeft(r) && r.left._tag).toBe('InvalidJson')
    expect(parseJson('[1]')).toEqual(E.right([1]))
  })
})
