import type BetterSqlite3 from 'better-sqlite3'
import * as E from 'fp-ts/lib/Either.js'
import {
  decodeConversation,
  encodeVertex,
  formatDecodeError,
  NERVE_FORMAT,
  type Conversation,
  type NerveVertexJson,
} from '../conversation/index.js'
import { corruptRow, parseColumn, pointerOf } from './StoreError.js'

/**
 * The conversation vertices of a database: written once by id, shared by
 * every node and session that reaches them, read back as conversations.
 *
 * @internal
 */
export interface VertexTable {
  /**
   * Writes the vertices of `head`'s history that the database does not hold
   * yet, parents first; how many rows it wrote. Call it inside a write
   * transaction, and {@link VertexTable.committed} once that committed.
   */
  put(head: Conversation): number
  /** Records the rows the last transaction's `put`s wrote as stored; forgets them on `false` (rolled back). */
  committed(ok: boolean): void
  /** The conversation whose head has this id, decoded; undefined when there is no such vertex. */
  load(headId: string): Conversation | undefined
  /** How many vertex rows the database holds. */
  count(): number
}

const EMPTY = '{}'

const LOAD = `
WITH RECURSIVE up(k) AS (
  SELECT rowid FROM vertices WHERE id = ?
  UNION
  SELECT j.value FROM up JOIN vertices v ON v.rowid = up.k, json_each(v.parents) j
)
SELECT v.rowid, v.id, v.parents, v.data, v.meta FROM up JOIN vertices v ON v.rowid = up.k`

/**
 * The vertex table of a connection. Which vertex objects are stored is
 * remembered (a WeakMap to their rowids: the vertices this connection wrote
 * or read), so persisting a turn walks back from the head only to the first
 * vertex known to be stored: a turn writes its new vertices and reads
 * nothing else; a fork, whose head is known, writes none. A vertex object
 * the connection has not seen is offered to the table (`ON CONFLICT DO
 * NOTHING`): one with the same id already there costs a lookup, no row.
 *
 * @internal
 */
export const vertexTable = (db: BetterSqlite3.Database, path: string): VertexTable => {
  const stored = new WeakMap<Conversation, number>()
  let fresh: Conversation[] = []
  const find = db.prepare<[string], number>('SELECT rowid FROM vertices WHERE id = ?').pluck()
  const insert = db.prepare<[string, string, string, string | null]>(
    'INSERT INTO vertices (id, parents, data, meta) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
  )
  const load = db.prepare<[string], [number, string, string, string, string | null]>(LOAD).raw()
  const count = db.prepare<[], number>('SELECT count(*) FROM vertices').pluck()

  /** Writes `v` (its parents are stored); whether that made a row. */
  const write = (v: Conversation, parents: string): boolean => {
    const e: NerveVertexJson = encodeVertex(v)
    const meta = JSON.stringify(e.meta)
    const r = insert.run(e.id, parents, JSON.stringify(e.data), meta === EMPTY ? null : meta)
    stored.set(v, r.changes === 1 ? Number(r.lastInsertRowid) : find.get(e.id)!)
    fresh.push(v)
    return r.changes === 1
  }

  const put = (head: Conversation): number => {
    let written = 0
    // Post-order without recursion: a vertex is written once all its parents are.
    const stack: Conversation[] = [head]
    while (stack.length > 0) {
      const v = stack[stack.length - 1]!
      if (stored.has(v)) {
        stack.pop()
        continue
      }
      const ps = v.parents
      let ready = true
      for (let i = ps.length - 1; i >= 0; i--) {
        if (!stored.has(ps[i]!)) {
          stack.push(ps[i]!)
          ready = false
        }
      }
      if (!ready) continue
      stack.pop()
      let parents = '['
      for (let i = 0; i < ps.length; i++) parents += `${i === 0 ? '' : ','}${stored.get(ps[i]!)!}`
      if (write(v, `${parents}]`)) written++
    }
    return written
  }

  const committed = (ok: boolean): void => {
    if (!ok) for (const v of fresh) stored.delete(v)
    fresh = []
  }

  /** Remembers the vertices of a loaded conversation as stored, by their rows. */
  const remember = (head: Conversation, rowOf: ReadonlyMap<string, number>): void => {
    const stack: Conversation[] = [head]
    while (stack.length > 0) {
      const v = stack.pop()!
      if (stored.has(v)) continue
      const rowid = rowOf.get(v.id)
      if (rowid === undefined) continue
      stored.set(v, rowid)
      for (const p of v.parents) stack.push(p)
    }
  }

  const decode = (headId: string): Conversation | undefined => {
    const rows = load.all(headId)
    if (rows.length === 0) return undefined
    const idOf = new Map<number, string>()
    const rowOf = new Map<string, number>()
    for (const [rowid, id] of rows) {
      idOf.set(rowid, id)
      rowOf.set(id, rowid)
    }
    const vertices: NerveVertexJson[] = new Array<NerveVertexJson>(rows.length)
    for (let i = 0; i < rows.length; i++) {
      const [, id, parents, data, meta] = rows[i]!
      const at = pointerOf('/vertices', id)
      const ups = parseColumn(path, `${at}/parents`, parents) as number[]
      vertices[i] = {
        id,
        parents: ups.map((r) => idOf.get(r) ?? String(r)),
        data: parseColumn(path, `${at}/data`, data) as NerveVertexJson['data'],
        meta:
          meta === null ? {} : (parseColumn(path, `${at}/meta`, meta) as NerveVertexJson['meta']),
      }
    }
    const doc = decodeConversation({
      format: NERVE_FORMAT,
      version: 1,
      heads: [headId],
      vertices,
      metadata: {},
    })
    if (E.isLeft(doc)) {
      throw corruptRow(path, [
        { pointer: pointerOf('/vertices', headId), message: formatDecodeError(doc.left) },
      ])
    }
    const [conversation] = doc.right.heads
    // Loaded vertices are stored ones: a turn or a fork on them writes only what it adds.
    if (conversation !== undefined) remember(conversation, rowOf)
    return conversation
  }

  return { put, committed, load: decode, count: () => count.get() ?? 0 }
}
