import * as t from 'io-ts'
import { params } from './codec.js'
import { NameCodec } from './name.js'
import { NodeStateCodec, struct } from './parts.js'

/**
 * The store's commands of the protocol: the sessions the engine's store
 * saved (each node's kind, state and an LLM node's conversation), a saved
 * session's nodes brought back live (`LOAD_SAVED_SESSION`), the recordings
 * it keeps, and a recording run again (`REPLAY_GRAPH`: answered from the
 * recording, or live from a step on).
 * They need an engine with a store (the daemon's SQLite one); without it
 * they answer `NoStore`.
 */

/**
 * The params codec of each store command, by method name.
 *
 * @category protocol
 */
export const storeParamsCodecs = {
  LIST_SAVED_SESSIONS: params('LIST_SAVED_SESSIONS', {}, {}),
  GET_SAVED_SESSION: params('GET_SAVED_SESSION', { sessionId: NameCodec }, {}),
  /**
   * Registers the nodes the store saved for `sessionId` again, live, in
   * the open session `into` (default: the engine's), each as it was saved:
   * an LLM node with its conversation, a terminal's program started again
   * on first use.
   */
  LOAD_SAVED_SESSION: params('LOAD_SAVED_SESSION', { sessionId: NameCodec }, { into: NameCodec }),
  LIST_RECORDINGS: params('LIST_RECORDINGS', {}, {}),
  /**
   * Runs a recording's graph again as a new run (in `sessionId`, default
   * the engine's): every step answered from the recording, or, with
   * `from` (a step's id, or its path from the root graph), the steps
   * before it answered and the rest run live. `recordingId` is a
   * recording of the store, or the id of a recorded run the engine keeps.
   */
  REPLAY_GRAPH: params(
    'REPLAY_GRAPH',
    { recordingId: t.string },
    { sessionId: NameCodec, from: t.union([t.string, t.readonlyArray(t.string)]) },
  ),
} as const

/**
 * A session as the store saved it: its id, name, tags, when it was made
 * and last saved, and how many nodes it holds.
 *
 * @category protocol
 */
export const SavedSessionCodec = struct('SavedSession', {
  sessionId: t.string,
  name: t.string,
  tags: t.readonlyArray(t.string),
  createdAt: t.string,
  updatedAt: t.string,
  nodes: t.number,
})

/**
 * A session as the store saved it.
 *
 * @category protocol
 */
export type SavedSession = t.TypeOf<typeof SavedSessionCodec>

/**
 * A node of a saved session: its name, kind and state when saved, and an
 * LLM node's conversation (Nerve's file format, as `GET_CONVERSATION`
 * answers it) with its message count.
 *
 * @category protocol
 */
export const SavedNodeCodec = struct(
  'SavedNode',
  { name: t.string, kind: t.string, state: NodeStateCodec },
  { messageCount: t.number, conversation: t.unknown },
)

/**
 * A node of a saved session.
 *
 * @category protocol
 */
export type SavedNode = t.TypeOf<typeof SavedNodeCodec>

/**
 * A recording as `LIST_RECORDINGS` lists it: its id, the run and graph it
 * recorded, when it was saved (ISO 8601), whether the run failed, how many
 * step calls it answers, and whether it holds the graph file it ran (a
 * replay needs it).
 *
 * @category protocol
 */
export const RecordingSummaryCodec = struct('RecordingSummary', {
  recordingId: t.string,
  runId: t.string,
  graphId: t.string,
  savedAt: t.string,
  failed: t.boolean,
  calls: t.number,
  hasGraph: t.boolean,
})

/**
 * A recording as `LIST_RECORDINGS` lists it.
 *
 * @category protocol
 */
export type RecordingSummary = t.TypeOf<typeof RecordingSummaryCodec>

/**
 * The result codec of each store command, by method name.
 *
 * @category protocol
 */
export const storeResultCodecs = {
  LIST_SAVED_SESSIONS: struct('LIST_SAVED_SESSIONS', {
    sessions: t.readonlyArray(SavedSessionCodec),
  }),
  /** The session as saved, and its nodes. */
  GET_SAVED_SESSION: struct('GET_SAVED_SESSION', {
    session: SavedSessionCodec,
    nodes: t.readonlyArray(SavedNodeCodec),
  }),
  /**
   * The session the nodes went into, the names registered, and those that
   * could not be (a name taken, a function node, a kind unknown…) with why.
   */
  LOAD_SAVED_SESSION: struct('LOAD_SAVED_SESSION', {
    sessionId: t.string,
    restored: t.readonlyArray(t.string),
    skipped: t.readonlyArray(struct('SkippedNode', { name: t.string, reason: t.string })),
  }),
  LIST_RECORDINGS: struct('LIST_RECORDINGS', {
    recordings: t.readonlyArray(RecordingSummaryCodec),
  }),
  /** The new run's id: follow it as any run (`GET_RUN`, its events). */
  REPLAY_GRAPH: struct('REPLAY_GRAPH', { runId: t.string }),
} as const
