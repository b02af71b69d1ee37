import type BetterSqlite3 from 'better-sqlite3'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { UsageError } from '../errors.js'
import { HistoryRecordCodec, type HistoryRecord } from '../session/index.js'
import { corruptRow, decodeProblems, parseColumn, pointerOf } from './StoreError.js'
import { TraceJsonCodec, type TraceJson } from './traceJson.js'

/**
 * A message that crossed an edge of a network, as the store keeps it: a
 * JSON object with at least its `id` and the names of the nodes it went
 * `from` and `to`; any other field (payload, trigger, time, hops) is kept
 * as written.
 *
 * @category store
 */
export type EnvelopeRecord = {
  readonly id: string
  readonly from: string
  readonly to: string
} & Readonly<Record<string, unknown>>

/**
 * The io-ts codec of an {@link EnvelopeRecord}.
 *
 * @category store
 */
export const EnvelopeRecordCodec: t.Type<EnvelopeRecord, EnvelopeRecord> = t.intersection([
  t.UnknownRecord,
  t.type({ id: t.string, from: t.string, to: t.string }),
])

/**
 * A stored run as {@link SqliteStore.runs} lists it, without its steps:
 * its id, session (if any), graph, how it ended, and when it started
 * (milliseconds since the epoch, by the run's clock).
 *
 * @category store
 */
export interface StoredRun {
  readonly runId: string
  readonly sessionId: string | undefined
  readonly graphId: string
  readonly status: TraceJson['status']
  readonly start: number
}

/**
 * An envelope read back, with `seq`, its place in the order envelopes were
 * stored (increasing, across networks).
 *
 * @category store
 */
export interface StoredEnvelope {
  readonly seq: number
  readonly network: string
  /** The session it was stored for, if any. */
  readonly sessionId: string | undefined
  readonly envelope: EnvelopeRecord
}

/**
 * What is known of an artifact a node produced: its `id`, `name`, where
 * its bytes are (`location`: a path or URL; the store keeps no bytes), and
 * optionally the session and node, `media_type`, `size`, `sha256`,
 * `created_at` and free-form `metadata`.
 *
 * @category store
 */
export interface ArtifactRecord {
  readonly id: string
  readonly name: string
  readonly location: string
  readonly session_id?: string
  readonly node?: string
  readonly media_type?: string
  readonly size?: number
  readonly sha256?: string
  readonly created_at?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}

/**
 * The io-ts codec of an {@link ArtifactRecord}.
 *
 * @category store
 */
export const ArtifactRecordCodec: t.Type<ArtifactRecord, ArtifactRecord> = t.intersection([
  t.type({ id: t.string, name: t.string, location: t.string }),
  t.partial({
    session_id: t.string,
    node: t.string,
    media_type: t.string,
    size: t.number,
    sha256: t.string,
    created_at: t.string,
    metadata: t.UnknownRecord,
  }),
])

/** Checks a value given to a write: a UsageError naming `api` and the place. */
export const requireValue = <A>(
  api: string,
  what: string,
  codec: t.Decoder<unknown, A>,
  u: unknown,
): A => {
  const r = codec.decode(u)
  if (E.isRight(r)) return r.right
  const [first] = decodeProblems('', r.left)
  throw new UsageError(
    api,
    `not ${what} at ${first?.pointer || 'the top'}: ${first?.message ?? ''}`,
  )
}

/** Decodes a stored JSON column with `codec`, or a StoreCorrupt at `at`. */
export const readValue = <A>(
  path: string,
  at: string,
  codec: t.Decoder<unknown, A>,
  text: string,
): A => {
  const r = codec.decode(parseColumn(path, at, text))
  if (E.isLeft(r)) throw corruptRow(path, decodeProblems(at, r.left))
  return r.right
}

/**
 * The histories, traces, envelopes and artifacts of a database.
 *
 * @internal
 */
export const recordTables = (db: BetterSqlite3.Database, path: string) => {
  const putHistory = db.prepare<[string, string, number, string]>(
    'INSERT OR REPLACE INTO history (session_id, node, seq, record) VALUES (?, ?, ?, ?)',
  )
  const getHistory = db
    .prepare<[string, string], string>(
      'SELECT record FROM history WHERE session_id = ? AND node = ? ORDER BY seq',
    )
    .pluck()
  const historyNodes = db
    .prepare<[string], string>(
      'SELECT DISTINCT node FROM history WHERE session_id = ? ORDER BY node',
    )
    .pluck()
  const putTrace = db.prepare<[string, string | null, string, string, string]>(
    'INSERT OR REPLACE INTO traces (run_id, session_id, graph_id, status, trace) VALUES (?, ?, ?, ?, ?)',
  )
  const getTrace = db.prepare<[string], string>('SELECT trace FROM traces WHERE run_id = ?').pluck()
  const sessionTraces = db
    .prepare<[string], string>('SELECT trace FROM traces WHERE session_id = ? ORDER BY rowid')
    .pluck()
  const putEnvelope = db.prepare<[string | null, string, string]>(
    'INSERT INTO envelopes (session_id, network, envelope) VALUES (?, ?, ?)',
  )
  const getEnvelopes = db
    .prepare<[string, number, number], [number, string | null, string]>(
      `SELECT seq, session_id, envelope FROM envelopes
       WHERE network = ? AND seq > ? ORDER BY seq LIMIT ?`,
    )
    .raw()
  const networks = db
    .prepare<[], string>('SELECT DISTINCT network FROM envelopes ORDER BY network')
    .pluck()
  const runRows = db
    .prepare<[string | null, string | null], [string, string | null, string, string, number]>(
      `SELECT run_id, session_id, graph_id, status, json_extract(trace, '$.start') FROM traces
       WHERE ? IS NULL OR session_id = ? ORDER BY rowid`,
    )
    .raw()
  const allTraces = db.prepare<[], string>('SELECT trace FROM traces ORDER BY rowid').pluck()
  const allArtifacts = db
    .prepare<[], string>('SELECT artifact FROM artifacts ORDER BY rowid')
    .pluck()
  const putArtifact = db.prepare<[string, string | null, string]>(
    'INSERT OR REPLACE INTO artifacts (id, session_id, artifact) VALUES (?, ?, ?)',
  )
  const getArtifact = db
    .prepare<[string], string>('SELECT artifact FROM artifacts WHERE id = ?')
    .pluck()
  const sessionArtifacts = db
    .prepare<[string], string>('SELECT artifact FROM artifacts WHERE session_id = ? ORDER BY rowid')
    .pluck()

  const historyAt = (sessionId: string, node: string) => pointerOf('/history', sessionId, node)

  return {
    appendHistory: (sessionId: string, node: string, records: readonly HistoryRecord[]): void => {
      for (const [i, r] of records.entries()) {
        const record = requireValue(
          `SqliteStore.appendHistory`,
          `a history record (records[${i}])`,
          HistoryRecordCodec,
          r,
        )
        putHistory.run(sessionId, node, record.seq, JSON.stringify(record))
      }
    },
    history: (sessionId: string, node: string): readonly HistoryRecord[] =>
      getHistory
        .all(sessionId, node)
        .map((text, i) =>
          readValue(path, `${historyAt(sessionId, node)}/${i}`, HistoryRecordCodec, text),
        ),
    historyNodes: (sessionId: string): readonly string[] => historyNodes.all(sessionId),
    putTrace: (trace: TraceJson, sessionId: string | undefined): void => {
      const checked = requireValue('SqliteStore.saveTrace', 'a trace', TraceJsonCodec, trace)
      putTrace.run(
        checked.runId,
        sessionId ?? null,
        checked.graphId,
        checked.status,
        JSON.stringify(checked),
      )
    },
    trace: (runId: string): TraceJson | undefined => {
      const text = getTrace.get(runId)
      return text === undefined
        ? undefined
        : readValue(path, pointerOf('/traces', runId), TraceJsonCodec, text)
    },
    runs: (sessionId: string | undefined): readonly StoredRun[] =>
      runRows
        .all(sessionId ?? null, sessionId ?? null)
        .map(([runId, session, graphId, status, start]) =>
          Object.freeze({
            runId,
            sessionId: session ?? undefined,
            graphId,
            status: status as StoredRun['status'],
            start: typeof start === 'number' ? start : 0,
          }),
        ),
    networks: (): readonly string[] => networks.all(),
    traces: (sessionId: string | undefined): readonly TraceJson[] =>
      (sessionId === undefined ? allTraces.all() : sessionTraces.all(sessionId)).map((text, i) =>
        readValue(path, pointerOf('/traces', sessionId ?? '', i), TraceJsonCodec, text),
      ),
    appendEnvelopes: (
      network: string,
      envelopes: readonly EnvelopeRecord[],
      sessionId: string | undefined,
    ): number[] =>
      envelopes.map((e, i) => {
        const checked = requireValue(
          'SqliteStore.appendEnvelopes',
          `an envelope (envelopes[${i}])`,
          EnvelopeRecordCodec,
          e,
        )
        return Number(
          putEnvelope.run(sessionId ?? null, network, JSON.stringify(checked)).lastInsertRowid,
        )
      }),
    envelopes: (network: string, after: number, limit: number): readonly StoredEnvelope[] =>
      getEnvelopes.all(network, after, limit).map(([seq, sessionId, text]) => ({
        seq,
        network,
        sessionId: sessionId ?? undefined,
        envelope: readValue(path, pointerOf('/envelopes', seq), EnvelopeRecordCodec, text),
      })),
    putArtifact: (artifact: ArtifactRecord): void => {
      const checked = requireValue(
        'SqliteStore.putArtifact',
        'an artifact record',
        ArtifactRecordCodec,
        artifact,
      )
      putArtifact.run(checked.id, checked.session_id ?? null, JSON.stringify(checked))
    },
    artifact: (id: string): ArtifactRecord | undefined => {
      const text = getArtifact.get(id)
      return text === undefined
        ? undefined
        : readValue(path, pointerOf('/artifacts', id), ArtifactRecordCodec, text)
    },
    artifacts: (sessionId: string | undefined): readonly ArtifactRecord[] =>
      (sessionId === undefined ? allArtifacts.all() : sessionArtifacts.all(sessionId)).map(
        (text, i) =>
          readValue(path, pointerOf('/artifacts', sessionId ?? '', i), ArtifactRecordCodec, text),
      ),
  }
}
