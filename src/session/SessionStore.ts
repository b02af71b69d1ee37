import { readFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { errorPath, expectedOf, NonEmptyString } from '../codec/index.js'
import { pointerSegment } from '../conversation/codec/errors.js'
import { deepFreeze } from '../dag/freeze.js'
import type { Meta } from '../dag/Vertex.js'
import { UsageError } from '../errors.js'
import type { Node } from '../node/Node.js'
import type { NodeInfo } from '../node/NodeInfo.js'
import type { NodeState } from '../node/NodeState.js'
import { writeFileAtomic } from '../interpreters/atomicWrite.js'
import { leftoverTempFiles, removeTempFiles, withFileLock } from './fileLock.js'
import type { StoreProblem } from './SessionStoreError.js'
import { describeFound, StoreCorrupt } from './SessionStoreError.js'

export { isStoreCorrupt, StoreCorrupt } from './SessionStoreError.js'
export type { StoreProblem } from './SessionStoreError.js'

/**
 * What a session store keeps of one session: its id and name, its tags,
 * when it was created and last updated (ISO 8601 date-times), free-form
 * JSON metadata, and what it knew of its nodes. Plain JSON data; records
 * read from a store are frozen.
 *
 * @category sessions
 */
export interface SessionRecord {
  readonly id: string
  readonly name: string
  readonly tags: readonly string[]
  readonly created_at: string
  readonly updated_at: string
  readonly metadata: Meta
  readonly nodes: readonly NodeInfo[]
}

/**
 * Where sessions are persisted: the records of sessions by id, what a
 * {@link SessionManager} saves and removes. Two implementations: files
 * ({@link sessionStore}, one JSON file) and SQLite (`sqliteStore` in
 * `nerve-agents/store`, the daemon's default), which also keeps node snapshots,
 * conversations, histories, traces, envelopes and artifacts.
 *
 * The calls of one store run one after another, in call order: two
 * overlapping saves both land, and so do saves of stores in other
 * processes on the same file. A file or database that cannot be read makes
 * every call reject with a {@link StoreCorrupt} and is never overwritten.
 *
 * @category sessions
 */
export interface SessionStore {
  /** The absolute path of the file (the JSON file, or the database). */
  readonly path: string
  /** Every record, in file order; `[]` when the file does not exist yet. */
  load(): Promise<readonly SessionRecord[]>
  /** Adds the record, or replaces the one with its id in place; rewrites the file. */
  save(record: SessionRecord): Promise<void>
  /** Removes the record with this id; whether there was one. The file is left alone when not. */
  remove(id: string): Promise<boolean>
  /** The record with this id. */
  get(id: string): Promise<SessionRecord | undefined>
  /** The records with this name, in file order. */
  findByName(name: string): Promise<readonly SessionRecord[]>
  /** The records that carry this tag, in file order. */
  findByTag(tag: string): Promise<readonly SessionRecord[]>
  /** Finishes the calls under way and lets go of the file; calls after it reject (SQLite) or reopen (files). */
  close(): Promise<void>
}

/**
 * What a store keeps of one node of a session (see `nodeSnapshots`): the
 * name it is registered under, its description, its lifecycle state and
 * its live value (an LLM node's state with its conversation `head`;
 * `undefined` for a node that keeps none).
 *
 * @category sessions
 */
export interface NodeSnapshot {
  readonly name: string
  readonly node: Node
  readonly state: NodeState
  readonly live: unknown
}

/**
 * Options of {@link sessionStore}.
 *
 * @category sessions
 */
export interface SessionStoreOptions {
  /** The file; relative paths are resolved now. Default: `~/.nerve/sessions.json`. */
  readonly path?: string
}

/**
 * The `format` field of a session store file.
 *
 * @category sessions
 */
export const SESSIONS_FORMAT = 'nerve/sessions'

const isNonEmptyString = (u: unknown): u is string => NonEmptyString.is(u)

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/
const isIsoTime = (u: unknown): u is string =>
  typeof u === 'string' && ISO_TIME.test(u) && !Number.isNaN(Date.parse(u))

const IsoDateTime = new t.Type<string>(
  'IsoDateTime',
  isIsoTime,
  (u, c) => (isIsoTime(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
)

const isObject = (u: unknown): u is Meta => typeof u === 'object' && u !== null && !Array.isArray(u)

const JsonObject = new t.Type<Meta>(
  'JsonObject',
  isObject,
  (u, c) => (isObject(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
)

const NodeStateCodec: t.Type<NodeState> = t.keyof({
  created: null,
  starting: null,
  ready: null,
  busy: null,
  stopping: null,
  stopped: null,
})

const NodeInfoCodec: t.Type<NodeInfo> = t.readonly(
  t.type(
    { id: NonEmptyString, type: NonEmptyString, state: NodeStateCodec, metadata: JsonObject },
    'NodeInfo',
  ),
)

/**
 * The io-ts codec of a {@link SessionRecord}: ids and node types are
 * non-empty, times are ISO 8601 date-times, metadata are JSON objects.
 * Unknown fields are kept as they are.
 *
 * @category sessions
 */
export const SessionRecordCodec: t.Type<SessionRecord> = t.readonly(
  t.type(
    {
      id: NonEmptyString,
      name: t.string,
      tags: t.readonlyArray(t.string),
      created_at: IsoDateTime,
      updated_at: IsoDateTime,
      metadata: JsonObject,
      nodes: t.readonlyArray(NodeInfoCodec),
    },
    'SessionRecord',
  ),
)

const FileCodec = t.type({
  format: t.literal(SESSIONS_FORMAT),
  version: t.literal(1),
  sessions: t.readonlyArray(SessionRecordCodec),
})

/** Problems with JSON pointers; the first context entry is the root and adds nothing. */
const problemsOf = (errors: t.Errors): StoreProblem[] =>
  errors.map((e) => {
    const pointer = errorPath(e)
    return { pointer, message: `expected ${expectedOf(e)}, found ${describeFound(e.value)}` }
  })

const duplicateIds = (records: readonly SessionRecord[]): StoreProblem[] => {
  const seen = new Set<string>()
  const problems: StoreProblem[] = []
  records.forEach((r, i) => {
    if (seen.has(r.id)) {
      problems.push({
        pointer: `/sessions/${i}/id`,
        message: `id ${JSON.stringify(r.id)} is used by an earlier session`,
      })
    }
    seen.add(r.id)
  })
  return problems
}

/** A StoreCorrupt listing the problems (io-ts reports at least one). */
const corrupt = (path: string, [first, ...rest]: readonly StoreProblem[]): StoreCorrupt =>
  new StoreCorrupt(path, [first ?? { pointer: '', message: 'unreadable' }, ...rest])

/** Decodes the text of a store file: the frozen records, or why it cannot be read. */
const decodeStore = (path: string, text: string): readonly SessionRecord[] => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    throw corrupt(path, [{ pointer: '', message: `not JSON: ${(e as Error).message}` }])
  }
  const decoded = FileCodec.decode(json)
  if (E.isLeft(decoded)) throw corrupt(path, problemsOf(decoded.left))
  const duplicates = duplicateIds(decoded.right.sessions)
  if (duplicates.length > 0) throw corrupt(path, duplicates)
  return deepFreeze(decoded.right.sessions)
}

const encodeStore = (records: readonly SessionRecord[]): string =>
  `${JSON.stringify({ format: SESSIONS_FORMAT, version: 1, sessions: records }, null, 2)}\n`

/**
 * Where a value stops being JSON data that reads back equal: `undefined`,
 * functions, non-finite numbers, class instances (a `Date`), cycles.
 */
const notJson = (u: unknown, pointer: string, path: Set<object>): StoreProblem | undefined => {
  switch (typeof u) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      return Number.isFinite(u) ? undefined : { pointer, message: `${u} is not a JSON number` }
    case 'object': {
      if (u === null) return undefined
      if (path.has(u)) return { pointer, message: 'the value contains itself' }
      const proto: unknown = Object.getPrototypeOf(u)
      if (!Array.isArray(u) && proto !== Object.prototype && proto !== null) {
        return { pointer, message: 'only plain objects and arrays are JSON data' }
      }
      path.add(u)
      const keys = Array.isArray(u) ? Array.from(u.keys(), String) : Object.keys(u)
      for (const key of keys) {
        const value: unknown = (u as Record<string, unknown>)[key]
        const found = notJson(value, `${pointer}/${pointerSegment(key)}`, path)
        if (found !== undefined) return found
      }
      path.delete(u)
      return undefined
    }
    default:
      return { pointer, message: `${describeFound(u)} is not JSON data` }
  }
}

/**
 * Throws a UsageError naming the place (a JSON pointer) where `record` is
 * not a {@link SessionRecord} or would not read back equal from JSON
 * (`undefined`, a `Date`, a function, `NaN`, a cycle). Every store checks
 * a record with it before saving; `api` is named in the error.
 *
 * @category sessions
 */
export const requireSessionRecord = (record: unknown, api = 'SessionStore.save'): void => {
  const problem =
    notJson(record, '', new Set()) ??
    E.match<t.Errors, unknown, StoreProblem | undefined>(
      (errors) => problemsOf(errors)[0],
      () => undefined,
    )(SessionRecordCodec.decode(record))
  if (problem !== undefined) {
    const where = problem.pointer === '' ? 'the record' : problem.pointer
    throw new UsageError(api, `not a SessionRecord at ${where}: ${problem.message}`)
  }
}

const checkString = (api: string, what: string, u: unknown): void => {
  if (typeof u !== 'string') {
    throw new UsageError(`SessionStore.${api}`, `${what} must be a string, got ${describeFound(u)}`)
  }
}

const NONE: readonly SessionRecord[] = Object.freeze([])

/**
 * A {@link SessionStore} on one file, `~/.nerve/sessions.json` unless told
 * otherwise. Nothing is read or written until the first call. The file is
 * `{ "format": "nerve/sessions", "version": 1, "sessions": [...] }`,
 * indented, written with mode `0o600` (missing directories are created).
 *
 * Every call reads the file afresh, so a store sees what others on the same
 * file wrote. A save or remove reads, changes and rewrites the file holding
 * a lock shared with other processes (`<file>.lock`, see proper-lockfile;
 * one whose holder died is taken over after 2 s), so two processes saving
 * at once never lose each other's records. Writes replace the file
 * atomically (see {@link writeFileAtomic}): a crash leaves the old file or
 * the new one, and the temporary files a crashed writer left are removed
 * at the store's first call.
 *
 * @category sessions
 * @example
 * import { sessionStore } from 'nerve-agents/session'
 * import assert from 'assert'
 * import { mkdtemp } from 'node:fs/promises'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 *
 * const store = sessionStore({ path: join(await mkdtemp(join(tmpdir(), 'nerve-')), 'sessions.json') })
 * const at = '2025-01-01T00:00:00.000Z'
 * const record = { id: 's1', name: 'review', tags: ['ci'], created_at: at, updated_at: at, metadata: {}, nodes: [] }
 * await Promise.all([store.save(record), store.save({ ...record, id: 's2', tags: [] })])
 * assert.deepStrictEqual((await store.findByTag('ci')).map((s) => s.id), ['s1'])
 * assert.strictEqual(await store.remove('s1'), true)
 * assert.deepStrictEqual((await store.load()).map((s) => s.id), ['s2'])
 */
export const sessionStore = (options?: SessionStoreOptions): SessionStore => {
  const given = options?.path
  if (given !== undefined && !isNonEmptyString(given)) {
    throw new UsageError(
      'sessionStore',
      `path must be a non-empty string, got ${describeFound(given)}`,
    )
  }
  const path = given === undefined ? join(homedir(), '.nerve', 'sessions.json') : resolve(given)

  let queue: Promise<unknown> = Promise.resolve()
  const enqueue = <A>(task: () => Promise<A>): Promise<A> => {
    const next = queue.then(task)
    queue = next.catch(() => undefined)
    return next
  }

  const read = async (): Promise<readonly SessionRecord[]> => {
    let text: string
    try {
      text = await readFile(path, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return NONE
      throw e
    }
    return decodeStore(path, text)
  }

  const write = (records: readonly SessionRecord[]): Promise<void> =>
    writeFileAtomic(path, encodeStore(records), { mode: 0o600 })

  /** At the first call: the temp files of a crashed writer go, under the lock. */
  let opened = false
  const open = async (): Promise<void> => {
    if (opened) return
    const leftovers = await leftoverTempFiles(path)
    if (leftovers.length > 0) {
      await withFileLock(path, async () => removeTempFiles(await leftoverTempFiles(path)))
    }
    opened = true
  }
  const call = <A>(task: () => Promise<A>): Promise<A> =>
    enqueue(async () => {
      await open()
      return task()
    })

  const find = (predicate: (r: SessionRecord) => boolean) =>
    call(async () => Object.freeze((await read()).filter(predicate)))

  return Object.freeze({
    path,
    load: () => call(read),
    save: async (record: SessionRecord) => {
      requireSessionRecord(record)
      return call(() =>
        withFileLock(path, async () => {
          const records = await read()
          const i = records.findIndex((r) => r.id === record.id)
          await write(i === -1 ? [...records, record] : records.with(i, record))
        }),
      )
    },
    remove: async (id: string) => {
      checkString('remove', 'the id', id)
      return call(async () => {
        // Nothing to remove needs no lock (and creates no directory).
        if (!(await read()).some((r) => r.id === id)) return false
        return withFileLock(path, async () => {
          const records = await read()
          const kept = records.filter((r) => r.id !== id)
          if (kept.length === records.length) return false
          await write(kept)
          return true
        })
      })
    },
    get: async (id: string) => {
      checkString('get', 'the id', id)
      return enqueue(async () => (await read()).find((r) => r.id === id))
    },
    findByName: async (name: string) => {
      checkString('findByName', 'the name', name)
      return find((r) => r.name === name)
    },
    findByTag: async (tag: string) => {
      checkString('findByTag', 'the tag', tag)
      return find((r) => r.tags.includes(tag))
    },
    close: () => enqueue(() => Promise.resolve()),
  })
}
