import type BetterSqlite3 from 'better-sqlite3'
import { jsonOf, RecordingCodec, type Recording } from './replay/Recording.js'
import { readValue, requireValue } from './records.js'
import { parseColumn, pointerOf } from './StoreError.js'

/**
 * A recording as the store keeps it: its id (by default the run's), the
 * run and graph ids, when it was saved (epoch ms), the graph file the run
 * ran when it was given, and the recording.
 *
 * @category replay
 */
export interface StoredRecording {
  readonly id: string
  readonly runId: string
  readonly graphId: string
  readonly savedAt: number
  readonly graph?: unknown
  readonly recording: Recording
}

/**
 * How a recording is saved: under `id` (default its run id; saving again
 * under an id replaces), with the graph file it ran so a replay needs
 * nothing else.
 *
 * @category replay
 */
export interface SaveRecordingOptions {
  readonly id?: string
  readonly graph?: unknown
}

type Row = [string, string, string, number, string | null, string]

/**
 * The recordings of a database.
 *
 * @internal
 */
export const recordingTable = (db: BetterSqlite3.Database, path: string) => {
  const put = db.prepare<[string, string, string, number, string | null, string]>(
    `INSERT OR REPLACE INTO recordings (id, run_id, graph_id, saved_at, graph, recording)
     VALUES (?, ?, ?, ?, ?, ?)`,
  )
  const columns = 'id, run_id, graph_id, saved_at, graph, recording'
  const byId = db.prepare<[string], Row>(`SELECT ${columns} FROM recordings WHERE id = ?`).raw()
  const byRun = db
    .prepare<[string], Row>(`SELECT ${columns} FROM recordings WHERE run_id = ? ORDER BY rowid`)
    .raw()
  const all = db.prepare<[], Row>(`SELECT ${columns} FROM recordings ORDER BY rowid`).raw()

  const stored = ([id, runId, graphId, savedAt, graph, recording]: Row): StoredRecording => {
    const at = pointerOf('/recordings', id)
    return Object.freeze({
      id,
      runId,
      graphId,
      savedAt,
      ...(graph !== null && { graph: parseColumn(path, `${at}/graph`, graph) }),
      recording: readValue(path, `${at}/recording`, RecordingCodec, recording),
    })
  }

  return {
    put: (recording: Recording, options: SaveRecordingOptions, now: number): string => {
      const r = requireValue('SqliteStore.saveRecording', 'a recording', RecordingCodec, recording)
      const id = options.id ?? r.runId
      const graph = options.graph === undefined ? null : JSON.stringify(jsonOf(options.graph))
      put.run(id, r.runId, r.graphId, now, graph, JSON.stringify(RecordingCodec.encode(r)))
      return id
    },
    get: (id: string): StoredRecording | undefined => {
      const row = byId.get(id)
      return row === undefined ? undefined : stored(row)
    },
    list: (runId: string | undefined): readonly StoredRecording[] =>
      Object.freeze((runId === undefined ? all.all() : byRun.all(runId)).map(stored)),
  }
}
