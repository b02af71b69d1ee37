import * as t from 'io-ts'

/**
 * A string with at least one character.
 *
 * @internal
 */
export const nonEmptyString = new t.Type<string, string, unknown>(
  'non-empty string',
  (u): u is string => typeof u === 'string' && u !== '',
  (u, c) => (typeof u === 'string' && u !== '' ? t.success(u) : t.failure(u, c)),
  t.identity,
)

/**
 * An integer of 1 or more.
 *
 * @internal
 */
export const positiveInteger = new t.Type<number, number, unknown>(
  'positive integer',
  (u): u is number => typeof u === 'number' && Number.isInteger(u) && u > 0,
  (u, c) =>
    typeof u === 'number' && Number.isInteger(u) && u > 0 ? t.success(u) : t.failure(u, c),
  t.identity,
)
