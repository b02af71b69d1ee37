import type { Content, Conversation } from '../conversation/index.js'

/**
 * A chat as a store keeps it: its id, when it was made, its current head
 * and every head of its tree (vertex ids; the vertices are stored beside,
 * shared), and what the face that made it needs to open it again
 * (`metadata`: the graph file, the agent's options).
 *
 * @category chat
 */
export interface ChatRecord {
  readonly id: string
  readonly createdAt: string
  /** The head the next message goes on from; absent before the first turn. */
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
  readonly from: string
  readonly message?: Content
  readonly text: string
  readonly thinking: string
}

/**
 * Where chats are kept. Writes are synchronous and whole: `saveChat`
 * stores the record, the vertices of the given conversations it does not
 * hold yet (a stored history is never written again) and clears the chat's
 * partial answer, in one transaction. The SQLite store implements it; a
 * {@link memoryChatStore} keeps chats for the life of the process.
 *
 * @category chat
 */
export interface ChatStore {
  saveChat(record: ChatRecord, conversations: readonly Conversation[]): void
  /** The record and the conversations of its heads, by vertex id; undefined when there is no such chat. */
  loadChat(
    id: string,
  ): { readonly record: ChatRecord; readonly heads: ReadonlyMap<string, Conversation> } | undefined
  /** Every chat, oldest first. */
  chats(): readonly ChatRecord[]
  /** Saves (or with `undefined`, clears) the chat's answer in progress; `from` is stored with it when given. */
  savePartial(chatId: string, partial: PartialAnswer | undefined, from?: Conversation): void
  /** The answer in progress a killed process left, if any. */
  partial(chatId: string): PartialAnswer | undefined
  /** The conversation whose head has this id, if stored. */
  conversation(id: string): Conversation | undefined
}

/**
 * A {@link ChatStore} in memory: chats last as long as the process.
 *
 * @category chat
 * @example
 * import { memoryChatStore } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const store = memoryChatStore()
 * store.saveChat({ id: 'c', createdAt: '2026-01-01T00:00:00.000Z', heads: [], metadata: {} }, [])
 * assert.deepStrictEqual(store.chats().map((c) => c.id), ['c'])
 */
export const memoryChatStore = (): ChatStore => {
  const records = new Map<string, ChatRecord>()
  const partials = new Map<string, PartialAnswer>()
  const vertices = new Map<string, Conversation>()
  const keep = (c: Conversation): void => {
    // Only the tips are kept by id: a conversation holds its history.
    vertices.set(c.id, c)
  }
  return Object.freeze({
    saveChat(record: ChatRecord, conversations: readonly Conversation[]) {
      for (const c of conversations) keep(c)
      records.set(record.id, record)
      partials.delete(record.id)
    },
    loadChat(id: string) {
      const record = records.get(id)
      if (record === undefined) return undefined
      const heads = new Map<string, Conversation>()
      for (const h of record.heads) {
        const c = vertices.get(h)
        if (c !== undefined) heads.set(h, c)
      }
      return { record, heads }
    },
    chats: () => [...records.values()],
    savePartial(chatId: string, partial: PartialAnswer | undefined, from?: Conversation) {
      if (from !== undefined) keep(from)
      if (partial === undefined) partials.delete(chatId)
      else partials.set(chatId, partial)
    },
    partial: (chatId: string) => partials.get(chatId),
    conversation: (id: string) => vertices.get(id),
  })
}
