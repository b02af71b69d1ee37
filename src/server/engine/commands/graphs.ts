import { LimitReached, RequestCancelled, UnknownSubscription } from '../errors.js'
import { runEvents } from '../eventMap.js'
import { graphOf, inDir } from '../nodes.js'
import type { Commands } from './context.js'
import { storedRun, storedRuns } from '../storedRuns.js'

type GraphMethods =
  | 'PING'
  | 'EXECUTE_GRAPH'
  | 'CANCEL_GRAPH'
  | 'GET_RUN'
  | 'LIST_RUNS'
  | 'SUBSCRIBE'
  | 'UNSUBSCRIBE'
  | 'SAVE_SESSION'
  | 'SHUTDOWN'

/** Graph runs, subscriptions, saving, and the engine itself. */
export const graphCommands: Commands<GraphMethods> = {
  PING: () => Promise.resolve({ pong: true }),

  EXECUTE_GRAPH: async (p, { core }) => {
    const { session } = await core.kit(p.sessionId)
    const g = graphOf(session, inDir(p.graph, p.cwd, core.kinds), '/graph', core.kinds)
    const publish = runEvents(session.id, core.publish.bind(core), () => core.now())
    return {
      runId: core.runs.start(
        session,
        g,
        p.input,
        publish,
        () => core.now(),
        p.record === true,
        p.graph,
      ),
    }
  },

  CANCEL_GRAPH: (p, { core }) =>
    Promise.resolve({
      cancelled: core.runs.cancel(p.runId, new RequestCancelled('CANCEL_GRAPH')),
    }),

  GET_RUN: (p, { core }) => {
    if (!core.runs.has(p.runId) && core.sqlite !== undefined) {
      const stored = storedRun(core.sqlite, p.runId, core.defaultId)
      if (stored !== undefined) return Promise.resolve(stored)
    }
    return Promise.resolve(core.runs.get(p.runId))
  },

  LIST_RUNS: (p, { core }) => {
    const held = core.runs.list(p.sessionId)
    const stored =
      core.sqlite === undefined ? [] : storedRuns(core.sqlite, p.sessionId, held, core.defaultId)
    return Promise.resolve({ runs: [...stored, ...held] })
  },

  SUBSCRIBE: (p, { core, outbox }) => {
    if (outbox.size >= core.limits.maxSubscriptions) {
      throw new LimitReached('subscriptions', core.limits.maxSubscriptions)
    }
    const subscription = outbox.subscribe({
      ...(p.sessionId !== undefined && { sessionId: p.sessionId }),
      ...(p.nodeId !== undefined && { nodeId: p.nodeId }),
      ...(p.runId !== undefined && { runId: p.runId }),
      ...(p.networkId !== undefined && { networkId: p.networkId }),
      ...(p.types !== undefined && { types: p.types }),
    })
    return Promise.resolve({ subscription })
  },

  UNSUBSCRIBE: (p, { outbox }) => {
    if (!outbox.unsubscribe(p.subscription)) throw new UnknownSubscription(p.subscription)
    return Promise.resolve({ unsubscribed: true })
  },

  SAVE_SESSION: async (p, { core }) => ({
    saved: true,
    sessionId: await core.saveSession(p.sessionId),
  }),

  SHUTDOWN: () => Promise.resolve({ shuttingDown: true }),
}
