import { chmodSync, mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import Database from 'better-sqlite3'
import * as E from 'fp-ts/lib/Either.js'
import type { ChatStore } from '../chat/index.js'
import type { Conversation } from '../conversation/index.js'
import { isVertex } from '../dag/index.js'
import { UsageError } from '../errors.js'
import { encodeGraph, isGraph } from '../graph/index.js'
import { nodeStates, type Node, type NodeState } from '../node/index.js'
import type { HistoryRecord, NodeSnapshot, SessionRecord, SessionStore } from '../session/index.js'
import { requireSessionRecord, SessionRecordCodec, StoreCorrupt } from '../session/index.js'
import type { Trace } from '../runtime/index.js'
import {
  recordTables,
  type ArtifactRecord,
  type EnvelopeRecord,
  type StoredEnvelope,
  type StoredRun,
} from './records.js'
import { recordingTable, type SaveRecordingOptions, type StoredRecording } from './recordings.js'
import type { Recording } from './replay/Recording.js'
import { configure, migrate } from './schema.js'
import { corruptRow, decodeProblems, parseColumn, pointerOf } from './StoreError.js'
import { traceJson, type TraceJson } from './traceJson.js'
import { vertexTable } from './vertices.js'
import { chatTable } from './chats.js'

/**
 * A node as the store keeps it: the name it is registered under, its kind
 * and lifecycle state, its description as JSON (function-valued fields
 * left out; a graph node's steps as a graph file under `graph`), its live
 * value as JSON (`null` when none), and an LLM node's conversation `head`
 * (a vertex id: read it with `conversation`).
 *
 * @category store
 */
export interface StoredNode {
  readonly name: string
  readonly kind: string
  readonly state: NodeState
  readonly description: Readonly<Record<string, unknown>>
  readonly live: unknown
  readonly head: string | undefined
}

/**
 * The writes of a SQLite store, synchronous: what {@link SqliteStore.batch}
 * hands its work, so that several of them make one transaction.
 *
 * @category store
 */
export interface StoreWriter {
  /** Adds the session record, or replaces the one with its id. */
  save(record: SessionRecord): void
  /** Removes a session record and everything stored for the session; whether there was one. */
  remove(id: string): boolean
  /** Replaces the stored nodes of a saved session with these, and stores their conversations' new vertices. */
  saveNodes(sessionId: string, nodes: readonly NodeSnapshot[]): void
  /**
   * Writes one node of a saved session, replacing the row of its name (which
   * keeps its place in the order), and its conversation's new vertices.
   */
  saveNode(sessionId: string, node: NodeSnapshot): void
  /** Removes the stored node of this name from a session; whether there was one. */
  removeNode(sessionId: string, name: string): boolean
  /** Stores the vertices of `head`'s history not stored yet; how many rows that wrote (0 for a stored head). */
  putConversation(head: Conversation): number
  /** Adds (or replaces, by `seq`) history records of a node of a saved session. */
  appendHistory(sessionId: string, node: string, records: readonly HistoryRecord[]): void
  /** Stores a run's trace (as {@link traceJson}), replacing one of the same run id. */
  saveTrace(trace: Trace | TraceJson, sessionId?: string): void
  /** Appends envelopes that crossed a network's edges; their `seq`s. */
  appendEnvelopes(
    network: string,
    envelopes: readonly EnvelopeRecord[],
    sessionId?: string,
  ): readonly number[]
  /** Stores what is known of an artifact, replacing one of the same id. */
  putArtifact(artifact: ArtifactRecord): void
  /** Saves a recorded run (see {@link SaveRecordingOptions}); answers its id. */
  saveRecording(recording: Recording, options?: SaveRecordingOptions): string
}

/**
 * A {@link SessionStore} in one SQLite database (better-sqlite3, WAL mode)
 * that also keeps what a session's work leaves: node snapshots, conversation
 * vertices (content-addressed and shared), node histories, run traces,
 * network envelopes, artifact metadata and chats (a {@link ChatStore}).
 *
 * The `SessionStore` calls return promises, as every store's do; the rest
 * are synchronous, as better-sqlite3 is. Each write is one transaction;
 * {@link SqliteStore.batch} makes several one. A reader in another process
 * sees each committed transaction whole, and a process killed at any moment
 * leaves the database as it was before or after each transaction.
 * A vertex is stored once, with the metadata of its first write (metadata
 * is not part of a vertex id).
 *
 * @category store
 */
export interface SqliteStore extends SessionStore, Omit<StoreWriter, 'save' | 'remove'>, ChatStore {
  readonly kind: 'sqlite'
  /** Saves a session's record and its nodes in one transaction (what a `SessionManager` calls on `save`). */
  saveSession(record: SessionRecord, nodes: readonly NodeSnapshot[]): Promise<void>
  /** The stored nodes of a session, in the order they were given. */
  nodes(sessionId: string): readonly StoredNode[]
  /** The conversation whose head vertex has this id; undefined when none is stored. */
  conversation(headId: string): Conversation | undefined
  /** How many conversation vertices the database holds. */
  vertexCount(): number
  /** A node's history records, by `seq`. */
  history(sessionId: string, node: string): readonly HistoryRecord[]
  /** The nodes of a session that have history, by name. */
  historyNodes(sessionId: string): readonly string[]
  /** A stored trace by run id. */
  trace(runId: string): TraceJson | undefined
  /** The runs whose traces are stored (of one session with `sessionId`), in the order first stored, without their steps. */
  runs(sessionId?: string): readonly StoredRun[]
  /** The traces stored for a session (every trace without it), in the order they were first stored. */
  traces(sessionId?: string): readonly TraceJson[]
  /** The networks that have envelopes, by name. */
  networks(): readonly string[]
  /** A network's envelopes after `seq` `after` (default 0), at most `limit` (default all), in order. */
  envelopes(
    network: string,
    options?: { readonly after?: number; readonly limit?: number },
  ): readonly StoredEnvelope[]
  artifact(id: string): ArtifactRecord | undefined
  /** The artifacts of a session (every artifact without it), in the order they were first stored. */
  artifacts(sessionId?: string): readonly ArtifactRecord[]
  /** A saved recording by id. */
  recording(id: string): StoredRecording | undefined
  /** The saved recordings (of one run with `runId`), oldest first. */
  recordings(runId?: string): readonly StoredRecording[]
  /** Runs `work` as one transaction: every write it makes through the writer lands, or none (it throws). */
  batch<A>(work: (writer: StoreWriter) => A): A
  /**
   * Collects garbage: the conversation vertices no stored node's head
   * and no chat reaches, and with `keepRecordings` all but that many newest recordings;
   * then gives the freed pages back to the file system. Answers what went.
   */
  gc(options?: GcOptions): GcSummary
}

/**
 * What {@link SqliteStore.gc} may remove besides unreachable vertices.
 *
 * @category store
 */
export interface GcOptions {
  /** Keep only this many newest recordings (default: all). */
  readonly keepRecordings?: number
}

/**
 * What {@link SqliteStore.gc} removed, and the file's size before and after.
 *
 * @category store
 */
export interface GcSummary {
  readonly vertices: number
  readonly recordings: number
  readonly bytesBefore: number
  readonly bytesAfter: number
}

// The vertices some node head reaches, following parents (as LOAD does, from every head at once).
const REACHABLE = `
WITH RECURSIVE up(k) AS (
  SELECT v.rowid FROM nodes n JOIN vertices v ON v.id = n.head
  UNION
  SELECT v.rowid FROM chat_heads h JOIN vertices v ON v.id = h.head
  UNION
  SELECT v.rowid FROM chat_partials p JOIN vertices v ON v.id = p.from_id
  UNION
  SELECT p.rowid FROM up
    JOIN vertices v ON v.rowid = up.k, json_each(v.parents) j
    JOIN vertices p ON p.id = j.value
)
DELETE FROM vertices WHERE rowid NOT IN (SELECT k FROM up)`

const freeze = <A>(u: A): A => {
  if (typeof u === 'object' && u !== null && !Object.isFrozen(u)) {
    for (const v of Object.values(u)) freeze(v)
    Object.freeze(u)
  }
  return u
}

const requireString = (api: string, what: string, u: unknown): string => {
  if (typeof u !== 'string') throw new UsageError(api, `${what} must be a string, got ${typeof u}`)
  return u
}

/** A node's description as JSON: function-valued fields left out, a graph as its graph file. */
const describeNode = (node: Node): Readonly<Record<string, unknown>> => {
  const { id, kind, persistent, metadata } = node
  if (isGraph(node)) {
    try {
      return { id, kind, persistent, metadata, graph: encodeGraph(node) }
    } catch {
      return { id, kind, persistent, metadata } // a step with an inputFn: no file holds it
    }
  }
  return JSON.parse(
    JSON.stringify(node, (_k, v: unknown) => (typeof v === 'function' ? undefined : v)),
  ) as Record<string, unknown>
}

/** Descriptions as JSON text by node: a node is frozen, so its text never changes (a turn rewrites its row). */
const described = new WeakMap<Node, string>()
const descriptionText = (node: Node): string => {
  let text = described.get(node)
  if (text === undefined) described.set(node, (text = JSON.stringify(describeNode(node))))
  return text
}

/** The conversation head in a live value (an LLM node's state), if any. */
const headOf = (live: unknown): Conversation | undefined => {
  const head = (live as { readonly head?: unknown } | null | undefined)?.head
  return isVertex(head) ? (head as Conversation) : undefined
}

/** A live value as JSON: an LLM state as `{ head: id }`, what JSON cannot hold as `null`. */
const liveJson = (live: unknown, head: Conversation | undefined): string | null => {
  if (head !== undefined) return JSON.stringify({ head: head.id })
  if (live === undefined) return null
  try {
    return JSON.stringify(live, (_k, v: unknown) => (typeof v === 'function' ? undefined : v))
  } catch {
    return null
  }
}

const isState = (u: unknown): u is NodeState => nodeStates.includes(u as NodeState)

type NodeRow = [string, string, string, string, string | null, string | null]

/**
 * Opens (creating it, mode `0o600`, and any missing directory) the SQLite
 * store at `path` and brings its schema up to date (see `migrations`). A
 * file that is not a SQLite database is a {@link StoreCorrupt}; one written
 * by a newer Nerve is a `StoreTooNew`. Close it when done.
 *
 * @category store
 * @example
 * import { sqliteStore } from 'nerve-agents/store'
 * import { empty, user, assistant } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 * import { mkdtemp } from 'node:fs/promises'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 *
 * const store = sqliteStore(join(await mkdtemp(join(tmpdir(), 'nerve-')), 'nerve.db'))
 * const at = '2026-01-01T00:00:00.000Z'
 * await store.save({ id: 's1', name: 'review', tags: ['ci'], created_at: at, updated_at: at, metadata: {}, nodes: [] })
 * assert.deepStrictEqual((await store.findByTag('ci')).map((s) => s.id), ['s1'])
 *
 * const asked = pipe(empty, user('What is 2 + 2?'))
 * assert.strictEqual(store.putConversation(pipe(asked, assistant('4'))), 2)
 * assert.strictEqual(store.putConversation(pipe(asked, assistant('Four.'))), 1) // the question is shared
 * assert.strictEqual(store.conversation(asked.id)?.id, asked.id)
 * await store.close()
 */
export const sqliteStore = (path: string): SqliteStore => {
  if (typeof path !== 'string' || path === '') {
    throw new UsageError(
      'sqliteStore',
      `path must be a non-empty string, got ${JSON.stringify(path)}`,
    )
  }
  const file = path === ':memory:' ? path : resolve(path)
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  let db: Database.Database
  try {
    db = new Database(file)
    configure(db)
  } catch (e) {
    const code = (e as { code?: unknown }).code
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new StoreCorrupt(file, [{ pointer: '', message: `not a SQLite database (${code})` }])
    }
    throw e
  }
  try {
    if (file !== ':memory:') chmodSync(file, 0o600)
    migrate(db, file)
  } catch (e) {
    db.close()
    throw e
  }

  const vertices = vertexTable(db, file)
  const records = recordTables(db, file)
  const recordings = recordingTable(db, file)
  const all = db.prepare<[], string>('SELECT record FROM sessions ORDER BY seq').pluck()
  const byId = db.prepare<[string], string>('SELECT record FROM sessions WHERE id = ?').pluck()
  const byName = db
    .prepare<[string], string>('SELECT record FROM sessions WHERE name = ? ORDER BY seq')
    .pluck()
  const byTag = db
    .prepare<[string], string>(
      `SELECT record FROM sessions WHERE EXISTS
         (SELECT 1 FROM json_each(sessions.record, '$.tags') WHERE value = ?) ORDER BY seq`,
    )
    .pluck()
  const upsert = db.prepare<[string, string, string]>(
    `INSERT INTO sessions (id, name, record) VALUES (?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, record = excluded.record`,
  )
  const deleteSession = db.prepare<[string]>('DELETE FROM sessions WHERE id = ?')
  const hasSession = db.prepare<[string], number>('SELECT 1 FROM sessions WHERE id = ?').pluck()
  const deleteNodes = db.prepare<[string]>('DELETE FROM nodes WHERE session_id = ?')
  const insertNode = db.prepare<
    [string, string, string, string, string, string | null, string | null]
  >(
    `INSERT INTO nodes (session_id, name, kind, state, description, live, head)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  )
  const upsertNode = db.prepare<
    [string, string, string, string, string, string | null, string | null]
  >(
    `INSERT INTO nodes (session_id, name, kind, state, description, live, head)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_id, name) DO UPDATE SET kind = excluded.kind, state = excluded.state,
       description = excluded.description, live = excluded.live, head = excluded.head`,
  )
  const deleteNode = db.prepare<[string, string]>(
    'DELETE FROM nodes WHERE session_id = ? AND name = ?',
  )
  const selectNodes = db
    .prepare<[string], NodeRow>(
      'SELECT name, kind, state, description, live, head FROM nodes WHERE session_id = ? ORDER BY rowid',
    )
    .raw()

  let depth = 0
  const transaction = db.transaction((work: () => unknown) => work())
  /** Runs `work` in an immediate transaction (a savepoint when nested). */
  const write = <A>(work: () => A): A => {
    if (!db.open) throw new UsageError('SqliteStore', `${file} is closed`)
    if (depth > 0) return transaction(work) as A
    depth++
    try {
      const result = transaction.immediate(work) as A
      vertices.committed(true)
      return result
    } catch (e) {
      vertices.committed(false)
      throw e
    } finally {
      depth--
    }
  }
  const read = <A>(work: () => A): A => {
    if (!db.open) throw new UsageError('SqliteStore', `${file} is closed`)
    return work()
  }
  /** The outcome of `work` as a promise: what it throws rejects it. */
  const later = <A>(work: () => A): Promise<A> =>
    new Promise<A>((resolve) => {
      resolve(work())
    })

  const decodeRecord = (text: string): SessionRecord => {
    const json = parseColumn(file, '/sessions', text) as { id?: unknown }
    const at = pointerOf('/sessions', typeof json.id === 'string' ? json.id : '?')
    const r = SessionRecordCodec.decode(json)
    if (E.isLeft(r)) throw corruptRow(file, decodeProblems(at, r.left))
    return freeze(r.right)
  }
  const recordsOf = (texts: readonly string[]) => Object.freeze(texts.map(decodeRecord))

  const saveNodes = (sessionId: string, nodes: readonly NodeSnapshot[]): void => {
    requireString('SqliteStore.saveNodes', 'the session id', sessionId)
    write(() => {
      if (hasSession.get(sessionId) === undefined) {
        throw new UsageError('SqliteStore.saveNodes', `no session "${sessionId}" is saved`)
      }
      deleteNodes.run(sessionId)
      for (const n of nodes) insertNode.run(...nodeRow(sessionId, n))
    })
  }

  /** The row of a node; its conversation's new vertices are written on the way. */
  const nodeRow = (
    sessionId: string,
    n: NodeSnapshot,
  ): [string, string, string, string, string, string | null, string | null] => {
    const head = headOf(n.live)
    if (head !== undefined) vertices.put(head)
    return [
      sessionId,
      n.name,
      n.node.kind,
      n.state,
      descriptionText(n.node),
      liveJson(n.live, head),
      head?.id ?? null,
    ]
  }

  const saveNode = (sessionId: string, node: NodeSnapshot): void => {
    requireString('SqliteStore.saveNode', 'the session id', sessionId)
    write(() => {
      if (hasSession.get(sessionId) === undefined) {
        throw new UsageError('SqliteStore.saveNode', `no session "${sessionId}" is saved`)
      }
      upsertNode.run(...nodeRow(sessionId, node))
    })
  }

  const removeNode = (sessionId: string, name: string): boolean => {
    requireString('SqliteStore.removeNode', 'the session id', sessionId)
    requireString('SqliteStore.removeNode', 'the name', name)
    return write(() => deleteNode.run(sessionId, name).changes > 0)
  }

  const writer: StoreWriter = Object.freeze({
    save: (record: SessionRecord) => {
      requireSessionRecord(record)
      write(() => upsert.run(record.id, record.name, JSON.stringify(record)))
    },
    remove: (id: string) => {
      requireString('SessionStore.remove', 'the id', id)
      return write(() => deleteSession.run(id).changes > 0)
    },
    saveNodes,
    saveNode,
    removeNode,
    putConversation: (head: Conversation) => {
      if (!isVertex(head)) {
        throw new UsageError('SqliteStore.putConversation', 'head must be a vertex')
      }
      return write(() => vertices.put(head))
    },
    appendHistory: (sessionId: string, node: string, rs: readonly HistoryRecord[]) => {
      write(() => {
        records.appendHistory(sessionId, node, rs)
      })
    },
    saveTrace: (trace: Trace | TraceJson, sessionId?: string) => {
      const json = trace.records.every(isVertex) ? traceJson(trace as Trace) : (trace as TraceJson)
      write(() => {
        records.putTrace(json, sessionId)
      })
    },
    appendEnvelopes: (network: string, es: readonly EnvelopeRecord[], sessionId?: string) => {
      requireString('SqliteStore.appendEnvelopes', 'the network', network)
      return write(() => records.appendEnvelopes(network, es, sessionId))
    },
    putArtifact: (artifact: ArtifactRecord) => {
      write(() => {
        records.putArtifact(artifact)
      })
    },
    saveRecording: (recording: Recording, options: SaveRecordingOptions = {}) =>
      write(() => recordings.put(recording, options, Date.now())),
  })

  const nodeOf =
    (sessionId: string) =>
    (row: NodeRow): StoredNode => {
      const [name, kind, state, description, live, head] = row
      const at = pointerOf('/nodes', sessionId, name)
      if (!isState(state)) {
        throw corruptRow(file, [
          { pointer: `${at}/state`, message: `${JSON.stringify(state)} is not a node state` },
        ])
      }
      return freeze({
        name,
        kind,
        state,
        description: parseColumn(file, `${at}/description`, description) as Record<string, unknown>,
        live: live === null ? null : parseColumn(file, `${at}/live`, live),
        head: head ?? undefined,
      })
    }

  const chats = chatTable(db, file, vertices, write, read)

  const store: SqliteStore = {
    ...writer,
    ...chats,
    kind: 'sqlite',
    path: file,
    load: () => later(() => read(() => recordsOf(all.all()))),
    save: (record) =>
      later(() => {
        writer.save(record)
      }),
    remove: (id) => later(() => writer.remove(id)),
    get: (id) =>
      later(() => {
        requireString('SessionStore.get', 'the id', id)
        const text = read(() => byId.get(id))
        return text === undefined ? undefined : decodeRecord(text)
      }),
    findByName: (name) =>
      later(() =>
        recordsOf(
          read(() => byName.all(requireString('SessionStore.findByName', 'the name', name))),
        ),
      ),
    findByTag: (tag) =>
      later(() =>
        recordsOf(read(() => byTag.all(requireString('SessionStore.findByTag', 'the tag', tag)))),
      ),
    close: () =>
      later(() => {
        if (db.open) db.close()
      }),
    saveSession: (record, nodes) =>
      later(() => {
        write(() => {
          writer.save(record)
          saveNodes(record.id, nodes)
        })
      }),
    nodes: (sessionId) =>
      read(() => Object.freeze(selectNodes.all(sessionId).map(nodeOf(sessionId)))),
    conversation: (headId) =>
      read(() => vertices.load(requireString('SqliteStore.conversation', 'the id', headId))),
    vertexCount: () => read(() => vertices.count()),
    history: (sessionId, node) => read(() => Object.freeze(records.history(sessionId, node))),
    historyNodes: (sessionId) => read(() => records.historyNodes(sessionId)),
    trace: (runId) => read(() => records.trace(runId)),
    traces: (sessionId) => read(() => records.traces(sessionId)),
    runs: (sessionId) => read(() => Object.freeze(records.runs(sessionId))),
    networks: () => read(() => records.networks()),
    envelopes: (network, options) =>
      read(() => records.envelopes(network, options?.after ?? 0, options?.limit ?? -1)),
    artifact: (id) => read(() => records.artifact(id)),
    artifacts: (sessionId) => read(() => records.artifacts(sessionId)),
    recording: (id) =>
      read(() => recordings.get(requireString('SqliteStore.recording', 'the id', id))),
    recordings: (runId) => read(() => recordings.list(runId)),
    batch: (work) => write(() => work(writer)),
    gc: (options = {}) => {
      const keep = options.keepRecordings
      if (keep !== undefined && (!Number.isSafeInteger(keep) || keep < 0)) {
        throw new UsageError(
          'SqliteStore.gc',
          `keepRecordings must be a whole number, got ${String(keep)}`,
        )
      }
      const size = (): number =>
        (db.pragma('page_count', { simple: true }) as number) *
        (db.pragma('page_size', { simple: true }) as number)
      const bytesBefore = size()
      const removed = write(() => ({
        vertices: db.prepare(REACHABLE).run().changes,
        recordings:
          keep === undefined
            ? 0
            : db
                .prepare(
                  'DELETE FROM recordings WHERE id NOT IN (SELECT id FROM recordings ORDER BY saved_at DESC, rowid DESC LIMIT ?)',
                )
                .run(keep).changes,
      }))
      db.exec('VACUUM')
      return Object.freeze({ ...removed, bytesBefore, bytesAfter: size() })
    },
  }
  return Object.freeze(store)
}
