import { encodeConversation, messageCount } from '../../../conversation/index.js'
import type { SavedSession } from '../../../protocol/index.js'
import type { SessionRecord } from '../../../session/index.js'
import { restoreNodes, type Recording, type SqliteStore } from '../../../store/index.js'
import type { Core } from '../Core.js'
import { InvalidOptions, NoStore, UnknownRecording, UnknownSession } from '../errors.js'
import { runEvents } from '../eventMap.js'
import { graphOf } from '../nodes.js'
import type { Commands } from './context.js'

type StoreMethods =
  | 'LIST_SAVED_SESSIONS'
  | 'GET_SAVED_SESSION'
  | 'LOAD_SAVED_SESSION'
  | 'LIST_RECORDINGS'
  | 'REPLAY_GRAPH'

/** The engine's SQLite store; `NoStore` when it has none. */
const storeOf = (core: Core): SqliteStore => {
  if (core.sqlite === undefined) throw new NoStore()
  return core.sqlite
}

const savedSession = (r: SessionRecord): SavedSession => ({
  sessionId: r.id,
  name: r.name,
  tags: r.tags,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  nodes: r.nodes.length,
})

/** A recording and the graph file it ran: of a recorded run the engine keeps, else of its store. */
const recordingOf = (
  core: Core,
  id: string,
): { readonly recording: Recording; readonly graph?: unknown } => {
  const found = core.runs.recorded(id) ?? core.sqlite?.recording(id)
  if (found === undefined) throw new UnknownRecording(id)
  return found
}

/** Whether `path` is `prefix` or a step nested under it. */
const under = (path: readonly string[], prefix: readonly string[]): boolean =>
  prefix.every((id, k) => path[k] === id)

/**
 * The store: saved sessions (a saved session's nodes brought back live),
 * recordings, and a recording run again.
 */
export const storeCommands: Commands<StoreMethods> = {
  LIST_SAVED_SESSIONS: async (_, { core }) => ({
    sessions: (await storeOf(core).load()).map(savedSession),
  }),

  GET_SAVED_SESSION: async (p, { core }) => {
    const store = storeOf(core)
    const record = await store.get(p.sessionId)
    if (record === undefined) throw new UnknownSession(p.sessionId)
    return {
      session: savedSession(record),
      nodes: store.nodes(p.sessionId).map((n) => {
        const head = n.head === undefined ? undefined : store.conversation(n.head)
        return {
          name: n.name,
          kind: n.kind,
          state: n.state,
          ...(head !== undefined && {
            messageCount: messageCount(head),
            conversation: encodeConversation({ heads: [head], metadata: { node: n.name } }),
          }),
        }
      }),
    }
  },

  LOAD_SAVED_SESSION: async (p, { core }) => {
    const store = storeOf(core)
    if ((await store.get(p.sessionId)) === undefined) throw new UnknownSession(p.sessionId)
    const into = p.into ?? core.defaultId
    const { session } = await core.kit(into).catch((e: unknown) => {
      throw e instanceof UnknownSession ? new UnknownSession(into, '/into') : e
    })
    return { sessionId: session.id, ...restoreNodes(store, session, core.kinds, p.sessionId) }
  },

  LIST_RECORDINGS: (_, { core }) =>
    Promise.resolve({
      recordings: storeOf(core)
        .recordings()
        .map((r) => ({
          recordingId: r.id,
          runId: r.runId,
          graphId: r.graphId,
          savedAt: new Date(r.savedAt).toISOString(),
          failed: r.recording.failed,
          calls: r.recording.calls.length,
          hasGraph: r.graph !== undefined,
        })),
    }),

  REPLAY_GRAPH: async (p, { core }) => {
    const { session } = await core.kit(p.sessionId)
    const { recording, graph } = recordingOf(core, p.recordingId)
    if (graph === undefined) {
      throw new InvalidOptions(
        `recording "${p.recordingId}" holds no graph file to run again`,
        '/recordingId',
      )
    }
    const from = p.from === undefined ? undefined : [p.from].flat()
    if (from !== undefined && !recording.calls.some((c) => under(c.path, from))) {
      throw new InvalidOptions(
        `step ${from.join('/')} never ran in recording "${p.recordingId}": there is nothing to go on from`,
        '/from',
      )
    }
    const g = graphOf(session, graph, '/recordingId', core.kinds)
    const publish = runEvents(session.id, core.publish.bind(core), () => core.now())
    return {
      runId: core.runs.replay(
        session,
        g,
        recording,
        p.recordingId,
        from,
        publish,
        () => core.now(),
        graph,
      ),
    }
  },
}
