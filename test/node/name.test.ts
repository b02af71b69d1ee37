import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { namePattern, requireName, showInvalidName, validateName } from '../../src/node/name.js'

const reasonOf = (u: unknown): string => {
  const r = validateName(u)
  if (E.isRight(r)) throw new Error(`expected ${String(u)} to be rejected`)
  return r.left.reason
}

describe('validateName', () => {
  it('accepts letters, digits, dots, underscores and dashes after a letter or digit', () => {
    for (const ok of ['a', 'Z9', '0start', 'fetch-docs_v2.1', 'a'.repeat(128)]) {
      expect(validateName(ok)).toEqual(E.right(ok))
    }
  })

  it('says why a value is not a name, naming it', () => {
    expect(reasonOf('')).toBe('is empty')
    expect(reasonOf('   ')).toBe('is blank')
    expect(reasonOf('a'.repeat(129))).toBe('has 129 characters, more than 128')
    expect(reasonOf('-x')).toBe('starts with "-", not a letter or digit')
    expect(reasonOf('a b')).toBe('contains " ", which is not a letter, digit, ".", "_" or "-"')
    expect(reasonOf('a/b')).toContain('"/"')
    expect(reasonOf(3)).toBe('is number, not a string')
    expect(reasonOf(null)).toBe('is null, not a string')
    expect(validateName('a b')).toEqual(
      E.left({ _tag: 'InvalidName', name: 'a b', reason: expect.any(String) as string }),
    )
  })

  it('renders the error with the bad name', () => {
    expect(showInvalidName({ _tag: 'InvalidName', name: '', reason: 'is empty' })).toBe(
      '"" is not a valid name: it is empty',
    )
  })

  it('agrees with namePattern on any string', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 140 }), (s) => {
        expect(E.isRight(validateName(s))).toBe(namePattern.test(s))
      }),
    )
  })
})

describe('requireName', () => {
  it('throws a UsageError naming the API, the thing and the bad name', () => {
    expect(() => requireName('fn', 'the node id', 'no good')).toThrow(UsageError)
    expect(() => requireName('fn', 'the node id', 'no good')).toThrow(
      /^fn\(\): the node id: "no good" is not a valid name/,
    )
    expect(requireName('fn', 'the node id', 'good')).toBe('good')
  })
})
