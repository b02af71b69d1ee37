import { encodeConversation, messageCount, type Conversation } from '../../../conversation/index.js'
import { fork, UnknownNode, type Session } from '../../../session/index.js'
import { InvalidOptions, RequestCancelled } from '../errors.js'
import { creatableKind, infoOf, kindInfo, nodeOf, registerAndStart } from '../nodes.js'
import type { NodeInfo } from '../../../node/index.js'
import type { Commands } from './context.js'
import { rethrow } from './context.js'

type NodeMethods =
  | 'CREATE_SESSION'
  | 'LIST_SESSIONS'
  | 'CLOSE_SESSION'
  | 'CREATE_NODE'
  | 'LIST_KINDS'
  | 'GET_NODE'
  | 'LIST_NODES'
  | 'STOP_NODE'
  | 'DELETE_NODE'
  | 'FORK_NODE'
  | 'GET_CONVERSATION'

/**
 * A node's info with where its live terminal runs, when it says (a Claude
 * node: `backend` — `wezterm`, `tmux` or `pty` — and on tmux the command
 * that attaches to it).
 */
const withBackend = (session: Session, info: NodeInfo): NodeInfo => {
  const { backend, attach } = (session.live(info.id) ?? {}) as {
    backend?: unknown
    attach?: unknown
  }
  if (typeof backend !== 'string') return info
  return {
    ...info,
    metadata: { ...info.metadata, backend, ...(typeof attach === 'string' && { attach }) },
  }
}

/** Sessions and the lifecycle of nodes: create, look up, stop, delete, fork. */
export const nodeCommands: Commands<NodeMethods> = {
  CREATE_SESSION: (p, { core }) => core.createSession(p.sessionId, p.tags, p.metadata),

  LIST_SESSIONS: async (_p, { core }) => {
    await core.ready
    return { sessions: core.sessions() }
  },

  CLOSE_SESSION: async (p, { core }) => ({ closed: await core.closeSession(p.sessionId) }),

  CREATE_NODE: async (p, { core }) => {
    const kit = await core.kit(p.sessionId)
    const kind = creatableKind(core.kinds, p.kind)
    const node = nodeOf(kit.session, p.nodeId, kind, p.options ?? {}, core.kinds, core.providers)
    return withBackend(kit.session, await registerAndStart(kit.session, node))
  },

  LIST_KINDS: (_p, { core }) => Promise.resolve({ kinds: [...core.kinds.values()].map(kindInfo) }),

  GET_CONVERSATION: async (p, { core }) => {
    const { session } = await core.kit(p.sessionId)
    const node = session.get(p.nodeId)
    if (node !== undefined && core.kinds.get(node.kind)?.capabilities.conversation !== true) {
      throw new InvalidOptions(
        `node "${p.nodeId}" is a ${node.kind} node: only nodes with a conversation (llm) have one`,
        '/nodeId',
      )
    }
    // A registered LLM node, or one inside a graph the session ran: its state is in the session's cell.
    const head = (session.cell(p.nodeId).get() as { head?: Conversation } | undefined)?.head
    if (head === undefined) throw new UnknownNode(session.id, p.nodeId)
    return {
      nodeId: p.nodeId,
      messageCount: messageCount(head),
      conversation: encodeConversation({ heads: [head], metadata: { node: p.nodeId } }),
    }
  },

  GET_NODE: async (p, { core }) => {
    const kit = await core.kit(p.sessionId)
    const info = infoOf(kit.session, p.nodeId)
    if (info === undefined) throw new UnknownNode(kit.session.id, p.nodeId)
    return withBackend(kit.session, info)
  },

  LIST_NODES: async (p, { core }) => {
    const { session } = await core.kit(p.sessionId)
    return { nodes: session.listNodes() }
  },

  STOP_NODE: async (p, { core }) => {
    const kit = await core.kit(p.sessionId)
    const { session } = kit
    if (!session.has(p.nodeId)) throw new UnknownNode(session.id, p.nodeId)
    session.interrupt(p.nodeId, new RequestCancelled('the node was stopped'))
    await session.stop(p.nodeId)
    return infoOf(session, p.nodeId)!
  },

  DELETE_NODE: async (p, { core }) => {
    const kit = await core.kit(p.sessionId)
    const { session } = kit
    if (!session.has(p.nodeId)) throw new UnknownNode(session.id, p.nodeId)
    session.interrupt(p.nodeId, new RequestCancelled('the node was deleted'))
    await session.stop(p.nodeId)
    session.unregister(p.nodeId)
    return { deleted: true }
  },

  FORK_NODE: async (p, { core, signal }) => {
    const { session } = await core.kit(p.sessionId)
    const source = session.get(p.sourceId)
    if (source === undefined) throw new UnknownNode(session.id, p.sourceId)
    if (p.at !== undefined && core.kinds.get(source.kind)?.capabilities.conversation !== true) {
      throw new InvalidOptions(
        `a ${source.kind} node has no history to fork from a point of: only nodes with a conversation (llm) take "at"`,
        '/at',
      )
    }
    try {
      const copy = await fork(session, p.sourceId, p.targetId, {
        signal,
        ...(p.at !== undefined && { at: p.at }),
      })
      const count = copy.metadata.fork_message_count
      return {
        nodeId: p.targetId,
        forkedFrom: p.sourceId,
        nodeType: copy.kind,
        ...(typeof count === 'number' && { messageCount: count }),
      }
    } catch (e) {
      return rethrow(signal, e)
    }
  },
}
