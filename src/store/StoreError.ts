import { taggedError } from '../errors.js'
import type * as t from 'io-ts'
import { errorPath, expectedOf, pointer } from '../codec/index.js'
import { StoreCorrupt, type StoreProblem } from '../session/index.js'

/**
 * A database written by a newer Nerve: its schema version (`found`) is
 * past the newest this library knows (`supported`). Nothing is changed in
 * it; upgrade the library, or export it with the newer one.
 *
 * @category store
 */
export class StoreTooNew extends taggedError('StoreTooNew', 'storage')<{
  readonly path: string
  readonly found: number
  readonly supported: number
}> {
  constructor(path: string, found: number, supported: number) {
    super(
      `${path} has schema version ${found}; this version of Nerve reads up to ${supported}: ` +
        'upgrade Nerve to open it',
      { path, found, supported },
    )
  }
}

/**
 * Whether a value is a {@link StoreTooNew} error (by its `_tag`).
 *
 * @category store
 */
export const isStoreTooNew = (u: unknown): u is StoreTooNew =>
  u instanceof Error && (u as { readonly _tag?: unknown })._tag === 'StoreTooNew'

/** A JSON pointer: `base` then the keys. @internal */
export const pointerOf = (base: string, ...keys: readonly (string | number)[]): string =>
  base + pointer(keys)

/** The problems of an io-ts decode, each at `base` + its path (the first context entry is the root). @internal */
export const decodeProblems = (base: string, errors: t.Errors): StoreProblem[] =>
  errors.map((e) => {
    const found = e.value === undefined ? 'nothing' : JSON.stringify(e.value).slice(0, 60)
    return { pointer: base + errorPath(e), message: `expected ${expectedOf(e)}, found ${found}` }
  })

/**
 * The {@link StoreCorrupt} of a database row that does not decode: `pointer`
 * names the table and the row's key (`/sessions/s1/created_at`,
 * `/vertices/3f2a…/data`).
 *
 * @internal
 */
export const corruptRow = (path: string, problems: readonly StoreProblem[]): StoreCorrupt => {
  const [first, ...rest] = problems
  return new StoreCorrupt(path, [first ?? { pointer: '', message: 'unreadable' }, ...rest])
}

/** Parses a JSON column, or a StoreCorrupt at `pointer`. @internal */
export const parseColumn = (path: string, pointer: string, text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch (e) {
    throw corruptRow(path, [{ pointer, message: `not JSON: ${(e as Error).message}` }])
  }
}
