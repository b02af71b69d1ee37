import type BetterSqlite3 from 'better-sqlite3'
import { StoreTooNew } from './StoreError.js'

/**
 * One step of the schema: the SQL that brings a database from the version
 * before it to `version`. Steps are applied in order, each in the
 * transaction that also records its version, so a crash mid-migration
 * leaves the database at the version before it.
 *
 * @category store
 */
export interface Migration {
  readonly version: number
  readonly sql: string
}

/**
 * The schema of a Nerve database, as migrations from an empty file.
 *
 * Version 1:
 * - `sessions`: one row per session record, in insertion order (`seq`);
 * - `nodes`: a session's nodes by name: kind, lifecycle state, the node's
 *   description (JSON) and its live-state snapshot (`live`, JSON; an LLM
 *   node's conversation head is `head`, a vertex id);
 * - `vertices`: conversation vertices, content-addressed by id and shared by
 *   every node and session that reaches them: `parents` are the parents'
 *   ids (a JSON array), `data` the entry and `meta` the metadata (`NULL`
 *   when empty) as the Nerve conversation format writes them;
 * - `history`: node history records by session, node and `seq`;
 * - `traces`: run traces by run id;
 * - `envelopes`: messages carried on a network's edges, in arrival order;
 * - `artifacts`: what is known of files nodes produced (not their bytes).
 *
 * Version 2:
 * - `recordings`: recorded runs by id (by default the run id), with the
 *   run and graph ids, when they were saved, the graph file the run ran
 *   (JSON, when known) and the recording (JSON).
 *
 * Version 3:
 * - `chats`: a record per chat (JSON: its current head, heads, metadata);
 * - `chat_heads`: each chat's heads, vertex ids (`gc` keeps what they reach);
 * - `chat_partials`: the answer a chat's turn is writing, saved as it
 *   streams: the vertex it goes on from and what it said so far (JSON).
 *
 * @category store
 */
export const migrations: readonly Migration[] = Object.freeze([
  {
    version: 1,
    sql: `
CREATE TABLE sessions (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX sessions_by_name ON sessions (name);
CREATE TABLE vertices (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  parents TEXT NOT NULL,
  data TEXT NOT NULL,
  meta TEXT
);
CREATE TABLE nodes (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  description TEXT NOT NULL,
  live TEXT,
  head TEXT REFERENCES vertices (id),
  PRIMARY KEY (session_id, name)
);
CREATE TABLE history (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  node TEXT NOT NULL,
  seq INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (session_id, node, seq)
);
CREATE TABLE traces (
  run_id TEXT PRIMARY KEY,
  session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,
  graph_id TEXT NOT NULL,
  status TEXT NOT NULL,
  trace TEXT NOT NULL
);
CREATE INDEX traces_by_session ON traces (session_id);
CREATE TABLE envelopes (
  seq INTEGER PRIMARY KEY,
  session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,
  network TEXT NOT NULL,
  envelope TEXT NOT NULL
);
CREATE INDEX envelopes_by_network ON envelopes (network, seq);
CREATE TABLE artifacts (
  id TEXT PRIMARY KEY,
  session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,
  artifact TEXT NOT NULL
);
CREATE INDEX artifacts_by_session ON artifacts (session_id);
`,
  },
  {
    version: 2,
    sql: `
CREATE TABLE recordings (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  graph_id TEXT NOT NULL,
  saved_at INTEGER NOT NULL,
  graph TEXT,
  recording TEXT NOT NULL
);
CREATE INDEX recordings_by_run ON recordings (run_id);
`,
  },
  {
    version: 3,
    sql: `
CREATE TABLE chats (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  record TEXT NOT NULL
);
CREATE TABLE chat_heads (
  chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
  head TEXT NOT NULL REFERENCES vertices (id),
  PRIMARY KEY (chat_id, head)
);
CREATE TABLE chat_partials (
  chat_id TEXT PRIMARY KEY REFERENCES chats (id) ON DELETE CASCADE,
  from_id TEXT NOT NULL REFERENCES vertices (id),
  partial TEXT NOT NULL
);
`,
  },
])

/** The schema version this library writes and reads. @category store */
export const SCHEMA_VERSION = migrations[migrations.length - 1]!.version

/**
 * Sets a connection up the way the store uses it: WAL journal (readers in
 * other processes see committed state and do not block the writer),
 * `synchronous = NORMAL` (a killed process loses no committed transaction;
 * a power cut may lose the last ones, never consistency), foreign keys on,
 * and a busy timeout so a second writer waits its turn instead of failing.
 *
 * @internal
 */
export const configure = (db: BetterSqlite3.Database): void => {
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
}

/**
 * Brings the database at `path` to {@link SCHEMA_VERSION}, applying the
 * missing migrations in one immediate transaction each; a database of a
 * newer version than this library knows is a {@link StoreTooNew}.
 *
 * @internal
 */
export const migrate = (db: BetterSqlite3.Database, path: string): void => {
  const versionOf = (): number => db.pragma('user_version', { simple: true }) as number
  const found = versionOf()
  if (found > SCHEMA_VERSION) throw new StoreTooNew(path, found, SCHEMA_VERSION)
  for (const m of migrations) {
    if (m.version <= found) continue
    db.transaction(() => {
      // Another process may have migrated since we looked: check again inside the write lock.
      const now = versionOf()
      if (now >= m.version) return
      db.exec(m.sql)
      db.pragma(`user_version = ${m.version}`)
    }).immediate()
  }
}
