import type BetterSqlite3 from 'better-sqlite3'
import {
  chatRecord,
  type ChatRecord,
  type ChatState,
  type ChatStore,
  type PartialAnswer,
} from '../chat/index.js'
import type { Conversation } from '../conversation/index.js'
import { UsageError } from '../errors.js'
import { parseColumn, pointerOf } from './StoreError.js'
import type { VertexTable } from './vertices.js'

const isRecord = (u: unknown): u is ChatRecord =>
  typeof u === 'object' &&
  u !== null &&
  typeof (u as ChatRecord).id === 'string' &&
  Array.isArray((u as ChatRecord).heads)

/**
 * The chats of a database: a record per chat (JSON), its heads as rows
 * that reach the shared vertex table (what `gc` keeps), and the answer a
 * turn is writing, one row per chat, rewritten as it streams.
 *
 * @internal
 */
export const chatTable = (
  db: BetterSqlite3.Database,
  path: string,
  vertices: VertexTable,
  write: <A>(work: () => A) => A,
  read: <A>(work: () => A) => A,
): Omit<ChatStore, 'conversation'> => {
  const upsert = db.prepare<[string, string]>(
    `INSERT INTO chats (id, record) VALUES (?, ?)
     ON CONFLICT (id) DO UPDATE SET record = excluded.record`,
  )
  const deleteHeads = db.prepare<[string]>('DELETE FROM chat_heads WHERE chat_id = ?')
  const insertHead = db.prepare<[string, string]>(
    'INSERT OR IGNORE INTO chat_heads (chat_id, head) VALUES (?, ?)',
  )
  const byId = db.prepare<[string], string>('SELECT record FROM chats WHERE id = ?').pluck()
  const all = db.prepare<[], string>('SELECT record FROM chats ORDER BY seq').pluck()
  const putPartial = db.prepare<[string, string, string]>(
    `INSERT INTO chat_partials (chat_id, from_id, partial) VALUES (?, ?, ?)
     ON CONFLICT (chat_id) DO UPDATE SET from_id = excluded.from_id, partial = excluded.partial`,
  )
  const deletePartial = db.prepare<[string]>('DELETE FROM chat_partials WHERE chat_id = ?')
  const getPartial = db
    .prepare<[string], string>('SELECT partial FROM chat_partials WHERE chat_id = ?')
    .pluck()

  const decode = (text: string): ChatRecord => {
    const json = parseColumn(path, '/chats', text)
    if (!isRecord(json)) {
      throw new UsageError('SqliteStore', `${path}: a row of chats is not a chat record`)
    }
    return Object.freeze(json)
  }

  /** A partial answer as a row keeps it: the vertex it goes on from by id. */
  type PartialRow = Omit<PartialAnswer, 'from'> & { readonly from: string }

  return {
    saveChat: (chat: ChatState) => {
      const record = chatRecord(chat)
      write(() => {
        for (const h of chat.heads) vertices.put(h)
        if (chat.current !== undefined) vertices.put(chat.current)
        upsert.run(record.id, JSON.stringify(record))
        deleteHeads.run(record.id)
        for (const h of record.heads) insertHead.run(record.id, h)
        deletePartial.run(record.id)
      })
    },
    loadChat: (id: string) =>
      read(() => {
        const text = byId.get(id)
        if (text === undefined) return undefined
        const record = decode(text)
        const heads: Conversation[] = []
        for (const h of record.heads) {
          const c = vertices.load(h)
          if (c !== undefined) heads.push(c)
        }
        const current = heads.find((h) => h.id === record.current)
        return Object.freeze({
          id: record.id,
          createdAt: record.createdAt,
          heads: Object.freeze(heads),
          metadata: record.metadata,
          ...(current !== undefined && { current }),
        })
      }),
    chats: () => read(() => Object.freeze(all.all().map(decode))),
    savePartial: (chatId: string, partial: PartialAnswer | undefined) => {
      write(() => {
        if (partial === undefined) {
          deletePartial.run(chatId)
          return
        }
        vertices.put(partial.from)
        const row: PartialRow = { ...partial, from: partial.from.id }
        putPartial.run(chatId, row.from, JSON.stringify(row))
      })
    },
    partial: (chatId: string) =>
      read(() => {
        const text = getPartial.get(chatId)
        if (text === undefined) return undefined
        const row = parseColumn(path, pointerOf('/chat_partials', chatId), text) as PartialRow
        const from = vertices.load(row.from)
        return from === undefined ? undefined : Object.freeze({ ...row, from })
      }),
  }
}
