import * as t from 'io-ts'
import { chatParamsCodecs } from './chat.js'
import { params } from './codec.js'
import { storeParamsCodecs } from './store.js'
import { NameCodec } from './name.js'
import { EventTypeCodec } from './events.js'
import { PatchCodec, refined } from './parts.js'

export { NameCodec }

const Name = NameCodec

/** Milliseconds: a finite number > 0. */
const Millis = refined(t.number, 'PositiveMs', (n) => Number.isFinite(n) && n > 0, {
  exclusiveMinimum: 0,
})

/** A whole number ≥ 0. */
const Count = refined(t.number, 'Count', (n) => Number.isSafeInteger(n) && n >= 0, {
  type: 'integer',
  minimum: 0,
})

const HistoryOp = t.keyof(
  {
    send: null,
    send_stream: null,
    write: null,
    read: null,
    run: null,
    interrupt: null,
    close: null,
  },
  'HistoryOp',
)

const session = { sessionId: Name }
const node = { nodeId: Name }
const executeOptional = { ...session, parser: Name, timeout: Millis }

const net = { networkId: Name }
const netNode = { ...net, nodeId: Name }
/** An approval request is named by its id alone; `networkId` (the older form) must then be its network's. */
const decision = { requestId: t.string }
const decisionOptional = {
  networkId: Name,
  by: t.string,
  note: t.string,
  arguments: t.UnknownRecord,
}
/**
 * The params codec of every command, by method name. Each is exact: a key
 * it does not list is an error at that key. `sessionId` is optional
 * everywhere it appears (the engine's default session).
 *
 * @category protocol
 */
export const paramsCodecs = {
  PING: params('PING', {}, {}),
  CREATE_SESSION: params(
    'CREATE_SESSION',
    { sessionId: Name },
    { tags: t.readonlyArray(t.string), metadata: t.UnknownRecord },
  ),
  LIST_SESSIONS: params('LIST_SESSIONS', {}, {}),
  CLOSE_SESSION: params('CLOSE_SESSION', { sessionId: Name }, {}),
  /** `kind` names one of the engine's kinds (or an alias): `LIST_KINDS` lists them. */
  CREATE_NODE: params(
    'CREATE_NODE',
    { ...node, kind: Name },
    { ...session, options: t.UnknownRecord },
  ),
  LIST_KINDS: params('LIST_KINDS', {}, {}),
  GET_NODE: params('GET_NODE', node, session),
  LIST_NODES: params('LIST_NODES', {}, session),
  STOP_NODE: params('STOP_NODE', node, session),
  DELETE_NODE: params('DELETE_NODE', node, session),
  EXECUTE_INPUT: params('EXECUTE_INPUT', { ...node, input: t.unknown }, executeOptional),
  RUN_COMMAND: params('RUN_COMMAND', { ...node, input: t.unknown }, executeOptional),
  SEND_INTERRUPT: params('SEND_INTERRUPT', node, session),
  WRITE_DATA: params('WRITE_DATA', { ...node, data: t.string }, session),
  GET_BUFFER: params('GET_BUFFER', node, { ...session, lines: Count }),
  GET_HISTORY: params('GET_HISTORY', node, {
    ...session,
    op: t.union([HistoryOp, t.readonlyArray(HistoryOp)]),
    fromSeq: t.number,
    toSeq: t.number,
    since: t.string,
    until: t.string,
    limit: Count,
  }),
  GET_CONVERSATION: params('GET_CONVERSATION', node, session),
  FORK_NODE: params('FORK_NODE', { sourceId: Name, targetId: Name }, { ...session, at: Count }),
  EXECUTE_GRAPH: params(
    'EXECUTE_GRAPH',
    { graph: t.unknown },
    /** `cwd`: where the nodes the file describes run when they name no `cwd` of their own. */
    { ...session, input: t.unknown, record: t.boolean, cwd: t.string },
  ),
  CANCEL_GRAPH: params('CANCEL_GRAPH', { runId: t.string }, {}),
  GET_RUN: params('GET_RUN', { runId: t.string }, {}),
  LIST_RUNS: params('LIST_RUNS', {}, session),
  SUBSCRIBE: params(
    'SUBSCRIBE',
    {},
    {
      ...session,
      nodeId: Name,
      runId: t.string,
      networkId: Name,
      types: t.readonlyArray(EventTypeCodec),
    },
  ),
  UNSUBSCRIBE: params('UNSUBSCRIBE', { subscription: t.string }, {}),
  SAVE_SESSION: params('SAVE_SESSION', {}, session),
  SHUTDOWN: params('SHUTDOWN', {}, {}),
  CREATE_NETWORK: params(
    'CREATE_NETWORK',
    { network: t.unknown },
    { ...session, networkId: Name, root: t.string },
  ),
  GET_NETWORK: params('GET_NETWORK', net, {}),
  LIST_NETWORKS: params('LIST_NETWORKS', {}, {}),
  EDIT_NETWORK: params('EDIT_NETWORK', { ...net, patches: t.readonlyArray(PatchCodec) }, {}),
  UNDO_NETWORK: params('UNDO_NETWORK', net, {}),
  SET_NODE_MODE: params(
    'SET_NODE_MODE',
    { ...netNode, mode: t.keyof({ interactive: null, auto: null }) },
    {},
  ),
  SET_WORKFLOW_MODE: params(
    'SET_WORKFLOW_MODE',
    { ...net, workflow: t.keyof({ planning: null, implementation: null }) },
    {},
  ),
  SEND_ENVELOPE: params(
    'SEND_ENVELOPE',
    { ...netNode, message: t.string },
    { structured: t.unknown },
  ),
  TRIGGER_NODE: params('TRIGGER_NODE', netNode, { message: t.string }),
  APPROVE: params('APPROVE', decision, decisionOptional),
  DENY: params('DENY', decision, { networkId: Name, by: t.string, note: t.string }),
  PAUSE_NETWORK: params('PAUSE_NETWORK', net, {}),
  RESUME_NETWORK: params('RESUME_NETWORK', net, {}),
  STOP_NETWORK: params('STOP_NETWORK', net, {}),
  CANCEL_NETWORK: params('CANCEL_NETWORK', net, {}),
  GET_ENVELOPES: params('GET_ENVELOPES', net, {}),
  ...chatParamsCodecs,
  ...storeParamsCodecs,
  LIST_APPROVALS: params('LIST_APPROVALS', {}, { ...session, nodeId: Name, networkId: Name }),
} as const

/**
 * A command of the protocol: the `method` of a request.
 *
 * @category protocol
 */
export type Method = keyof typeof paramsCodecs

/**
 * Every command name, in the order `docs/server.md` documents them.
 *
 * @category protocol
 */
export const methods: readonly Method[] = Object.freeze(Object.keys(paramsCodecs) as Method[])

/**
 * Whether a string is a command name.
 *
 * @category protocol
 */
export const isMethod = (s: string): s is Method => Object.hasOwn(paramsCodecs, s)

/**
 * The decoded params of a command.
 *
 * @category protocol
 */
export type Params<M extends Method> = t.TypeOf<(typeof paramsCodecs)[M]>

/**
 * The notification that cancels a request in flight: `params.id` is the
 * request's id. It gets no reply; the request answers with a `Cancelled`
 * error (code `-32005`) unless it was done already.
 *
 * @category protocol
 */
export const CANCEL_REQUEST = 'CANCEL_REQUEST'

/**
 * The method of event notifications.
 *
 * @category protocol
 */
export const EVENT = 'EVENT'

/**
 * The params of `CANCEL_REQUEST`.
 *
 * @category protocol
 */
export const CancelParamsCodec = params('CANCEL_REQUEST', { id: t.union([t.string, t.number]) }, {})
