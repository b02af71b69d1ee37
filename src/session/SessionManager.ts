import { UsageError } from '../errors.js'
import type { InterpreterRegistry } from '../node/Interpreter.js'
import type { Clock } from '../runtime/Clock.js'
import { createSession } from './createSession.js'
import type { Session } from './Session.js'
import type { SessionInfo, SessionOptions } from './SessionOptions.js'
import type { NodeSnapshot, SessionRecord } from './SessionStore.js'

/**
 * Where a {@link SessionManager} saves the records of the sessions it
 * creates and removes those of the sessions it closes (a `SessionStore` is
 * one). A sink with `saveSession` (the SQLite store) is given instead, on
 * `save(id)`, the record with a snapshot of every registered node (its
 * description, its state and its live value: an LLM node's conversation
 * head), to write together.
 *
 * @category session
 */
export interface SessionRecordSink {
  save(record: SessionRecord): Promise<void>
  remove(id: string): Promise<boolean>
  saveSession?(record: SessionRecord, nodes: readonly NodeSnapshot[]): Promise<void>
}

/**
 * Options of {@link sessionManager}: the defaults of the sessions it creates,
 * and the store of their records.
 *
 * @category session
 */
export interface SessionManagerOptions {
  readonly interpreters?: InterpreterRegistry
  readonly clock?: Clock
  readonly store?: SessionRecordSink
}

/**
 * The live sessions of a process, by id. A session closed other than
 * through the manager drops out of `get`, `findByName` and `list`; its
 * record stays in the store until `close(id)`.
 *
 * @category session
 */
export interface SessionManager {
  /** A new session with the manager's interpreters and clock unless `options` give others; with a store, its record is saved first. */
  create(options?: SessionOptions): Promise<Session>
  get(id: string): Session | undefined
  /** The open sessions with this name, in creation order (names need not be unique). */
  findByName(name: string): readonly Session[]
  list(): readonly SessionInfo[]
  /**
   * Writes an open session's record as it is now (its nodes and their
   * states, `updated_at`) to the store, and to a store that keeps them the
   * snapshots of its nodes (see {@link SessionRecordSink}); false when the
   * manager has no such open session. A manager without a store throws a UsageError.
   */
  save(id: string): Promise<boolean>
  /** Closes a session and removes its record; false when the manager has no such session. */
  close(id: string): Promise<boolean>
  closeAll(): Promise<void>
}

/**
 * The record of a session, stamped `updated_at` now by its clock.
 *
 * @category session
 */
export const sessionRecord = (session: Session): SessionRecord => {
  const info = session.info()
  return Object.freeze({
    id: info.id,
    name: info.name,
    tags: info.tags,
    created_at: info.created_at,
    updated_at: new Date(session.clock.now()).toISOString(),
    metadata: info.metadata,
    nodes: info.nodes,
  })
}

/**
 * A snapshot of each node registered in a session, in registration order:
 * what a store's `saveSession` keeps.
 *
 * @category session
 */
export const nodeSnapshots = (session: Session): readonly NodeSnapshot[] =>
  Object.freeze(
    session.names().flatMap((name) => {
      const snapshot = nodeSnapshot(session, name)
      return snapshot === undefined ? [] : [snapshot]
    }),
  )

/**
 * A snapshot of the node registered in a session under `name`; undefined
 * when there is none.
 *
 * @category session
 */
export const nodeSnapshot = (session: Session, name: string): NodeSnapshot | undefined => {
  const node = session.get(name)
  const state = session.state(name)
  if (node === undefined || state === undefined) return undefined
  return Object.freeze({ name, node, state, live: session.cell(node.id).get() })
}

/**
 * A {@link SessionManager}. With a `store`, `create` saves the new session's
 * record (a failed save closes the session and rejects) and `close` removes it.
 *
 * @category session
 * @example
 * import { sessionManager } from 'nerve-agents/session'
 * import assert from 'assert'
 *
 * const manager = sessionManager()
 * const session = await manager.create({ name: 'review', tags: ['ci'] })
 * assert.strictEqual(manager.get(session.id), session)
 * assert.deepStrictEqual(manager.findByName('review'), [session])
 * assert.strictEqual(await manager.close(session.id), true)
 * assert.deepStrictEqual(manager.list(), [])
 */
export const sessionManager = (options: SessionManagerOptions = {}): SessionManager => {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new UsageError('sessionManager', 'options must be an object')
  }
  const { interpreters, clock, store } = options
  if (
    store !== undefined &&
    (typeof store.save !== 'function' || typeof store.remove !== 'function')
  ) {
    throw new UsageError('sessionManager', 'options.store must have save and remove')
  }
  const sessions = new Map<string, Session>()

  /** Kept until `close(id)`, so that the record of a session closed directly is still removed then. */
  const open = (): Session[] => [...sessions.values()].filter((s) => !s.closed)

  const create = async (given: SessionOptions = {}): Promise<Session> => {
    const session = createSession({
      ...(interpreters !== undefined && { interpreters }),
      ...(clock !== undefined && { clock }),
      ...given,
    })
    if (sessions.get(session.id)?.closed === false) {
      throw new UsageError('SessionManager.create', `a session with id "${session.id}" is open`)
    }
    sessions.set(session.id, session)
    if (store !== undefined) {
      try {
        await store.save(sessionRecord(session))
      } catch (e) {
        sessions.delete(session.id)
        await session.close().catch(() => undefined)
        throw e
      }
    }
    return session
  }

  const close = async (id: string): Promise<boolean> => {
    const session = sessions.get(id)
    if (session === undefined) return false
    sessions.delete(id)
    try {
      await session.close()
    } finally {
      await store?.remove(id)
    }
    return true
  }

  const save = async (id: string): Promise<boolean> => {
    if (store === undefined) throw new UsageError('SessionManager.save', 'the manager has no store')
    const session = sessions.get(id)
    if (session === undefined || session.closed) return false
    const record = sessionRecord(session)
    if (store.saveSession === undefined) await store.save(record)
    else await store.saveSession(record, nodeSnapshots(session))
    return true
  }

  return Object.freeze({
    create,
    save,
    get: (id: string) => {
      const s = sessions.get(id)
      return s === undefined || s.closed ? undefined : s
    },
    findByName: (name: string) => open().filter((s) => s.name === name),
    list: () => open().map((s) => s.info()),
    close,
    async closeAll(): Promise<void> {
      const outcomes = await Promise.allSettled([...sessions.keys()].map(close))
      const failed = outcomes.find((o) => o.status === 'rejected')
      if (failed !== undefined) throw failed.reason
    },
  })
}
