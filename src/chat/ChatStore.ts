import type { Content, Conversation } from '../conversation/index.js'

/**
 * A chat as its store gives it back: its id, when it was made, what the face
 * that made it needs to open it again (`metadata`: the graph file, the
 * agent's options), every head of its tree (oldest first) and the current
 * one, the head the next message goes on from (absent before the first
 * turn).
 *
 * @category chat
 */
export interface ChatState {
  readonly id: string
  readonly createdAt: string
  readonly current?: Conversation
  readonly heads: readonly Conversation[]
  readonly metadata: Readonly<Record<string, unknown>>
}

/**
 * A chat as a store lists it: its heads by vertex id.
 *
 * @category chat
 */
export interface ChatRecord {
  readonly id: string
  readonly createdAt: string
  readonly current?: string
  readonly heads: readonly string[]
  readonly metadata: Readonly<Record<string, unknown>>
}

/**
 * An answer being written: what a turn has said so far, saved as it
 * streams so that a process killed mid-answer keeps it. `from` is the
 * vertex the turn goes on from, `message` the user message it asked
 * (absent when it answers the user message at `from` again, a retry).
 *
 * @category chat
 */
export interface PartialAnswer {
  readonly turnId: string
  readonly from: Conversation
  readonly message?: Content
  readonly text: string
  readonly thinking: string
}

/**
 * Where chats are kept. Writes are synchronous and whole: `saveChat`
 * stores the chat, the vertices of its heads it does not hold yet (a stored
 * history is never written again) and clears its partial answer, in one
 * transaction; `savePartial` stores the answer in progress (and the vertex
 * it goes on from). The SQLite store implements it; a
 * {@link memoryChatStore} keeps chats for the life of the process.
 *
 * @category chat
 */
export interface ChatStore {
  saveChat(chat: ChatState): void
  /** The chat kept under this id, if any. */
  loadChat(id: string): ChatState | undefined
  /** Every chat, oldest first. */
  chats(): readonly ChatRecord[]
  /** Saves (or with `undefined`, clears) the chat's answer in progress. */
  savePartial(chatId: string, partial: PartialAnswer | undefined): void
  /** The answer in progress a killed process left, if any. */
  partial(chatId: string): PartialAnswer | undefined
}

/**
 * A chat's record: its heads by vertex id.
 *
 * @category chat
 */
export const chatRecord = (chat: ChatState): ChatRecord =>
  Object.freeze({
    id: chat.id,
    createdAt: chat.createdAt,
    ...(chat.current !== undefined && { current: chat.current.id }),
    heads: Object.freeze(chat.heads.map((h) => h.id)),
    metadata: chat.metadata,
  })

/**
 * A {@link ChatStore} in memory: chats last as long as the process. It keeps
 * the values it is given; vertex ids are computed only when listed.
 *
 * @category chat
 * @example
 * import { memoryChatStore } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const store = memoryChatStore()
 * store.saveChat({ id: 'c', createdAt: '2026-01-01T00:00:00.000Z', heads: [], metadata: {} })
 * assert.deepStrictEqual(store.chats().map((c) => c.id), ['c'])
 */
export const memoryChatStore = (): ChatStore => {
  const chats = new Map<string, ChatState>()
  const partials = new Map<string, PartialAnswer>()
  return Object.freeze({
    saveChat(chat: ChatState) {
      chats.set(chat.id, chat)
      partials.delete(chat.id)
    },
    loadChat: (id: string) => chats.get(id),
    chats: () => [...chats.values()].map(chatRecord),
    savePartial(chatId: string, partial: PartialAnswer | undefined) {
      if (partial === undefined) partials.delete(chatId)
      else partials.set(chatId, partial)
    },
    partial: (chatId: string) => partials.get(chatId),
  })
}
