import * as t from 'io-ts'
import { params } from './codec.js'
import { NameCodec } from './name.js'
import { literals, struct } from './parts.js'

/**
 * The chat commands, events and results of the protocol: a chat is a head
 * of a conversation DAG plus a graph that answers a message (see
 * `openChat`); each turn runs on the engine and tells `CHAT_*` events.
 */

const chat = { chatId: NameCodec }
const session = { sessionId: NameCodec }
/** A vertex id of the chat's tree. */
const at = { at: t.string }

/**
 * The params codec of each chat command, by method name.
 *
 * @category protocol
 */
export const chatParamsCodecs = {
  /** Opens a chat: the one kept under `chatId`, or a new one on `graph` (a graph file) or `agent` (an llm node's options). */
  CHAT_CREATE: params('CHAT_CREATE', chat, {
    ...session,
    graph: t.unknown,
    agent: t.UnknownRecord,
    step: t.string,
    output: t.string,
  }),
  /**
   * With `tree`, the answer also holds the chat's whole tree (every head) as
   * a conversation file; with `known` too (vertex ids the asker holds, each
   * with its ancestors: the heads of a tree it read before), only the
   * vertices none of them reaches. With `since` (a vertex whose messages the
   * asker holds: the `current` it read before), the messages after those
   * alone when they begin the current head's (see `messagesFrom`).
   */
  CHAT_GET: params('CHAT_GET', chat, {
    ...session,
    tree: t.boolean,
    known: t.readonlyArray(t.string),
    since: t.string,
  }),
  CHAT_LIST: params('CHAT_LIST', {}, session),
  CHAT_SEND: params('CHAT_SEND', { ...chat, message: t.unknown }, session),
  CHAT_CONTINUE: params('CHAT_CONTINUE', { ...chat, at: t.string, message: t.unknown }, session),
  CHAT_RETRY: params('CHAT_RETRY', chat, { ...session, ...at }),
  CHAT_EDIT: params('CHAT_EDIT', { ...chat, message: t.unknown }, { ...session, ...at }),
  CHAT_BRANCHES: params('CHAT_BRANCHES', chat, session),
  CHAT_SWITCH: params('CHAT_SWITCH', { ...chat, head: t.string }, session),
  CHAT_CANCEL: params('CHAT_CANCEL', chat, session),
} as const

/**
 * A chat as the chat commands answer it: its current head and every head
 * (vertex ids), and `recovered`, the head opening made of an answer a
 * killed process was writing.
 *
 * @category protocol
 */
export const ChatInfoCodec = struct(
  'ChatInfo',
  {
    chatId: t.string,
    sessionId: t.string,
    createdAt: t.string,
    heads: t.readonlyArray(t.string),
    running: t.boolean,
  },
  { current: t.string, recovered: t.string },
)

/**
 * A chat as the chat commands answer it.
 *
 * @category protocol
 */
export type ChatInfo = t.TypeOf<typeof ChatInfoCodec>

/**
 * What a turn ended with (`CHAT_SEND`, `CHAT_CONTINUE`, `CHAT_RETRY`,
 * `CHAT_EDIT`): the new head, the answer, why the model stopped, what the
 * turn used. A cancelled turn answers too, with what was said.
 *
 * @category protocol
 */
export const ChatTurnCodec = struct('ChatTurn', {
  chatId: t.string,
  turnId: t.string,
  status: literals('ChatTurnStatus', ['completed', 'cancelled']),
  head: t.string,
  text: t.string,
  stopReason: t.string,
  usage: t.UnknownRecord,
  apiCalls: t.number,
  cost: t.number,
})

/**
 * What a turn ended with.
 *
 * @category protocol
 */
export type ChatTurnInfo = t.TypeOf<typeof ChatTurnCodec>

/**
 * One branch of a chat's tree (see `CHAT_BRANCHES`).
 *
 * @category protocol
 */
export const ChatBranchCodec = struct(
  'ChatBranch',
  {
    head: t.string,
    current: t.boolean,
    messages: t.number,
    asked: t.string,
    answer: t.string,
  },
  { forkedAt: t.string, sharedMessages: t.number },
)

/**
 * The result codec of each chat command, by method name.
 *
 * @category protocol
 */
export const chatResultCodecs = {
  CHAT_CREATE: ChatInfoCodec,
  /**
   * The chat and the messages of its current head (the conversation's
   * messages, as JSON) — asked `since` a vertex whose messages begin them,
   * those after alone, and `messagesFrom`, how many come before; asked with
   * `tree`, `conversation`: every head in Nerve's file format, as
   * `GET_CONVERSATION` answers a node's (with `known`, only the vertices
   * the asker lacks: their parents may be among those it holds).
   */
  CHAT_GET: t.intersection([
    ChatInfoCodec,
    t.type({ messages: t.readonlyArray(t.unknown) }),
    t.partial({ messagesFrom: t.number, conversation: t.unknown }),
  ]),
  CHAT_LIST: struct('CHAT_LIST', { chats: t.readonlyArray(ChatInfoCodec) }),
  CHAT_SEND: ChatTurnCodec,
  CHAT_CONTINUE: ChatTurnCodec,
  CHAT_RETRY: ChatTurnCodec,
  CHAT_EDIT: ChatTurnCodec,
  CHAT_BRANCHES: struct(
    'CHAT_BRANCHES',
    { chatId: t.string, branches: t.readonlyArray(ChatBranchCodec) },
    { current: t.string },
  ),
  CHAT_SWITCH: ChatInfoCodec,
  CHAT_CANCEL: struct('CHAT_CANCEL', { cancelled: t.boolean }),
} as const

/**
 * A chat was made (`CHAT_CREATE` of an id the engine did not keep): the
 * chat as the chat commands answer it, so every face lists it before its
 * first turn.
 *
 * @category protocol
 */
export const ChatCreatedEventCodec = struct('CHAT_CREATED', {
  type: t.literal('CHAT_CREATED'),
  time: t.string,
  sessionId: t.string,
  chatId: t.string,
  info: ChatInfoCodec,
})

/**
 * A chat was made.
 *
 * @category protocol
 */
export type ChatCreatedEvent = t.TypeOf<typeof ChatCreatedEventCodec>

/**
 * The protocol's name of each chat event (see `ChatEvent`).
 *
 * @category protocol
 */
export const chatEventNames = Object.freeze({
  started: 'CHAT_STARTED',
  delta: 'CHAT_DELTA',
  thinking: 'CHAT_THINKING',
  tool_call: 'CHAT_TOOL_CALL',
  tool_result: 'CHAT_TOOL_RESULT',
  usage: 'CHAT_USAGE',
  completed: 'CHAT_COMPLETED',
  failed: 'CHAT_FAILED',
  cancelled: 'CHAT_CANCELLED',
} as const)

/**
 * One of the chat event names.
 *
 * @category protocol
 */
export type ChatEventName = (typeof chatEventNames)[keyof typeof chatEventNames]

/**
 * The codec of a chat event: its protocol name, when, the session, chat
 * and turn; the rest is the chat's own event and passes as it is
 * (`CHAT_DELTA` has `text`, `CHAT_TOOL_CALL` `id`, `name` and `input`,
 * `CHAT_COMPLETED` `head`, `text` and `stopReason`, `CHAT_FAILED` `error`…).
 *
 * @category protocol
 */
export const ChatEngineEventCodec = struct('ChatEngineEvent', {
  type: literals('ChatEventType', Object.values(chatEventNames)),
  time: t.string,
  sessionId: t.string,
  chatId: t.string,
  turnId: t.string,
})

/**
 * A chat event as the engine sends it.
 *
 * @category protocol
 */
export type ChatEngineEvent = t.TypeOf<typeof ChatEngineEventCodec> &
  Readonly<Record<string, unknown>>
