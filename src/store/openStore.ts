import { join } from 'node:path'
import { UsageError } from '../errors.js'
import { nerveHome, sessionStore, type SessionStore } from '../session/index.js'
import { sqliteStore, type SqliteStore } from './SqliteStore.js'

/**
 * The kinds of store: one SQLite database (the default of the daemon and
 * the CLI), or files (`sessions.json`).
 *
 * @category store
 */
export type StoreKind = 'sqlite' | 'files'

/**
 * Options of {@link openStore}.
 *
 * @category store
 */
export interface OpenStoreOptions {
  /** Default `'sqlite'`. */
  readonly kind?: StoreKind
  /** The database or the sessions file. Default: {@link defaultStorePath} of the kind. */
  readonly path?: string
}

/**
 * Where a store lives when no path is given, in Nerve's home (`NERVE_HOME`,
 * else `~/.nerve`): `nerve.db` for SQLite, `sessions.json` for files.
 *
 * @category store
 * @example
 * import { defaultStorePath } from 'nerve-agents/store'
 * import assert from 'assert'
 * import { homedir } from 'node:os'
 * import { join } from 'node:path'
 *
 * assert.strictEqual(defaultStorePath('sqlite', {}), join(homedir(), '.nerve', 'nerve.db'))
 * assert.strictEqual(defaultStorePath('files', { NERVE_HOME: '/srv/nerve' }), '/srv/nerve/sessions.json')
 */
export const defaultStorePath = (
  kind: StoreKind = 'sqlite',
  env: Readonly<Record<string, string | undefined>> = process.env,
): string => join(nerveHome(env), kind === 'sqlite' ? 'nerve.db' : 'sessions.json')

/**
 * Opens the store a daemon or CLI keeps its sessions in: SQLite at
 * `~/.nerve/nerve.db` unless told otherwise, or the files store on request.
 *
 * @category store
 * @example
 * import { openStore } from 'nerve-agents/store'
 * import assert from 'assert'
 * import { mkdtemp } from 'node:fs/promises'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 *
 * const dir = await mkdtemp(join(tmpdir(), 'nerve-'))
 * const db = openStore({ path: join(dir, 'nerve.db') })
 * assert.strictEqual(db.kind, 'sqlite')
 * await db.close()
 * const files = openStore({ kind: 'files', path: join(dir, 'sessions.json') })
 * assert.deepStrictEqual(await files.load(), [])
 */
export function openStore(options?: {
  readonly kind?: 'sqlite'
  readonly path?: string
}): SqliteStore
export function openStore(options: { readonly kind: 'files'; readonly path?: string }): SessionStore
export function openStore(options?: OpenStoreOptions): SessionStore
export function openStore(options: OpenStoreOptions = {}): SessionStore {
  const kind: unknown = options.kind ?? 'sqlite'
  if (kind !== 'sqlite' && kind !== 'files') {
    throw new UsageError(
      'openStore',
      `kind must be 'sqlite' or 'files', got ${JSON.stringify(kind)}`,
    )
  }
  const path = options.path ?? defaultStorePath(kind)
  return kind === 'sqlite' ? sqliteStore(path) : sessionStore({ path })
}
