import { taggedError } from '../errors.js'

/**
 * One thing wrong in a session store file: where (a JSON pointer into the
 * file, `''` for the whole of it) and what.
 *
 * @category sessions
 */
export interface StoreProblem {
  /** JSON pointer to the bad value, e.g. `/sessions/2/created_at`; `''` for the file itself. */
  readonly pointer: string
  /** What is wrong there, e.g. `expected IsoDateTime, found "yesterday"`. */
  readonly message: string
}

const at = (pointer: string): string => (pointer === '' ? 'the top' : pointer)

/**
 * A session store file that cannot be read: not JSON, not the
 * `nerve/sessions` format, a record of the wrong shape, an id used twice.
 * The store rejects with it and leaves the file as it is, so nothing is lost
 * by a save over a file it could not read. `path` is the file, `pointer`
 * the place of the first problem, `problems` all of them.
 *
 * @category sessions
 * @example
 * import { isStoreCorrupt, sessionStore } from 'nerve-agents/session'
 * import assert from 'assert'
 * import { mkdtemp, writeFile } from 'node:fs/promises'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 *
 * const path = join(await mkdtemp(join(tmpdir(), 'nerve-')), 'sessions.json')
 * await writeFile(path, '{"format": "nerve/sessions", "version": 1, "sessions": [{"id": 7}]}')
 * const error: unknown = await sessionStore({ path }).load().catch((e: unknown) => e)
 * assert.ok(isStoreCorrupt(error))
 * assert.strictEqual(error.pointer, '/sessions/0/id')
 */
export class StoreCorrupt extends taggedError('StoreCorrupt', 'storage')<{
  /** The file that could not be read. */
  readonly path: string
  /** JSON pointer to the first problem (`''`: the file as a whole, e.g. not JSON). */
  readonly pointer: string
  /** Every problem found, in file order; at least one. */
  readonly problems: readonly StoreProblem[]
}> {
  constructor(path: string, problems: readonly [StoreProblem, ...StoreProblem[]]) {
    const [first] = problems
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''
    super(
      `${path} is not a readable session store: at ${at(first.pointer)}: ${first.message}${more}`,
      {
        path,
        pointer: first.pointer,
        problems: Object.freeze(problems.map((p) => Object.freeze({ ...p }))),
      },
    )
  }
}

/**
 * Whether a value is a {@link StoreCorrupt} error (by its `_tag`, so it also
 * recognises one from another copy of the library).
 *
 * @category sessions
 */
export const isStoreCorrupt = (u: unknown): u is StoreCorrupt =>
  u instanceof Error && (u as { readonly _tag?: unknown })._tag === 'StoreCorrupt'

/** A short, bounded rendering of a found value for a problem message. @internal */
export const describeFound = (u: unknown): string => {
  if (u === undefined) return 'nothing'
  if (Array.isArray(u)) return `an array of ${u.length}`
  switch (typeof u) {
    case 'object':
      return u === null ? 'null' : 'an object'
    case 'function':
      return 'a function'
    case 'symbol':
      return u.toString()
    case 'bigint':
      return `${u}n`
    case 'number':
    case 'boolean':
      return String(u)
  }
  const json = JSON.stringify(u)
  return json.length > 60 ? `${json.slice(0, 60)}…` : json
}
