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
 * remembered (a WeakMap to their rowids), so persisting a turn walks back
 * from the head only to the first vertex already stored: a turn writes its
 * new vertices and reads nothing else; a fork, whose head is stored, writes none.
 *
 * @internal
 */
export const vertexTable = (db: BetterSqlite3.Database, path: string): VertexTable => {
  const stored = new WeakMap<Conversation, number>()
  let fresh: [Conversation, number][] = []
  const find = db.prepare<[string], number>('SELECT rowid FROM vertices WHERE id = ?').pluck()
  const insert = db.prepare<[string, string, string, string | null]>(
    'INSERT INTO vertices (id, parents, data, meta) VALUES (?, ?, ?, ?)',
  )
  const load = db.prepare<[string], [number, string, string, string, string | null]>(LOAD).raw()
  const count = db.prepare<[], number>('SELECT count(*) FROM vertices').pluck()

  const rowOf = (v: Conversation): number | undefined => {
    const known = stored.get(v)
    if (known !== undefined) return known
    const found = find.get(v.id)
    if (found !== undefined) {
      stored.set(v, found)
      fresh.push([v, found])
    }
    return found
  }

  const write = (v: Conversation, parents: readonly number[]): number => {
    const e: NerveVertexJson = encodeVertex(v)
    const meta = JSON.stringify(e.meta)
    const rowid = Number(
      insert.run(
        e.id,
        JSON.stringify(parents),
        JSON.stringify(e.data),
        meta === EMPTY ? null : meta,
      ).lastInsertRowid,
    )
    stored.set(v, rowid)
    fresh.push([v, rowid])
    return rowid
  }

  const put = (head: Conversation): number => {
    if (rowOf(head) !== undefined) return 0
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
      const rows: number[] = []
      for (const p of ps) {
        const r = rowOf(p)
        if (r === undefined) stack.push(p)
        else rows.push(r)
      }
      if (rows.length < ps.length) continue
      stack.pop()
      if (rowOf(v) !== undefined) continue // the same id reached by another path
      write(v, rows)
      written++
    }
    return written
  }

  const committed = (ok: boolean): void => {
    if (!ok) for (const [v] of fresh) stored.delete(v)
    fresh = []
  }

  const decode = (headId: string): Conversation | undefined => {
    const rows = load.all(headId)
    if (rows.length === 0) return undefined
    const idOf = new Map<number, string>()
    for (const [rowid, id] of rows) idOf.set(rowid, id)
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
    // Loaded vertices are stored ones: a turn on them writes only what it adds.
    if (conversation !== undefined) {
      const rowid = rows.find((r) => r[1] === headId)?.[0]
      if (rowid !== undefined) stored.set(conversation, rowid)
    }
    return conversation
  }

  return { put, committed, load: decode, count: () => count.get() ?? 0 }
}
