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
   * yet; how many rows it wrote. Call it inside a write
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

const EMPTY_META = Object.freeze({})

// The rows of a head's history: the recursion follows rowids (integers are
// cheap to deduplicate); each parent id is found through the id index.
const LOAD = `
WITH RECURSIVE up(k) AS (
  SELECT rowid FROM vertices WHERE id = ?
  UNION
  SELECT p.rowid FROM up
    JOIN vertices v ON v.rowid = up.k, json_each(v.parents) j
    JOIN vertices p ON p.id = j.value
)
SELECT v.id, v.parents, v.data, v.meta FROM up JOIN vertices v ON v.rowid = up.k`

/**
 * The vertex table of a connection: a row per vertex, its parents by id.
 *
 * Writing a head walks back from it, offering each vertex to the table
 * (`ON CONFLICT DO NOTHING`). A row already there means the vertex and its
 * whole history are stored (rows are written with their history, in one
 * transaction), so the walk stops there. It also stops at vertex objects
 * this connection knows are stored (a WeakSet of those it wrote or read):
 * a turn on a head it wrote offers only the turn's new vertices, and a fork
 * of a stored head writes nothing.
 *
 * @internal
 */
export const vertexTable = (db: BetterSqlite3.Database, path: string): VertexTable => {
  const stored = new WeakSet<Conversation>()
  let fresh: Conversation[] = []
  const insert = db.prepare<[string, string, string, string | null]>(
    'INSERT INTO vertices (id, parents, data, meta) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
  )
  const load = db.prepare<[string], [string, string, string, string | null]>(LOAD).raw()
  const count = db.prepare<[], number>('SELECT count(*) FROM vertices').pluck()

  /** Offers `v` to the table; whether that made a row. */
  const offer = (v: Conversation): boolean => {
    const e: NerveVertexJson = encodeVertex(v)
    let meta: string | null = null
    for (const _ in e.meta) {
      meta = JSON.stringify(e.meta)
      break
    }
    const written =
      insert.run(e.id, JSON.stringify(e.parents), JSON.stringify(e.data), meta).changes === 1
    stored.add(v)
    fresh.push(v)
    return written
  }

  const put = (head: Conversation): number => {
    let written = 0
    const stack: Conversation[] = [head]
    while (stack.length > 0) {
      const v = stack.pop()!
      if (stored.has(v) || !offer(v)) continue
      written++
      for (const p of v.parents) if (!stored.has(p)) stack.push(p)
    }
    return written
  }

  const committed = (ok: boolean): void => {
    if (!ok) for (const v of fresh) stored.delete(v)
    fresh = []
  }

  const decode = (headId: string): Conversation | undefined => {
    const rows = load.all(headId)
    if (rows.length === 0) return undefined
    const vertices: NerveVertexJson[] = new Array<NerveVertexJson>(rows.length)
    for (let i = 0; i < rows.length; i++) {
      const [id, parents, data, meta] = rows[i]!
      const at = pointerOf('/vertices', id)
      vertices[i] = {
        id,
        parents: parseColumn(path, `${at}/parents`, parents) as string[],
        data: parseColumn(path, `${at}/data`, data) as NerveVertexJson['data'],
        meta:
          meta === null
            ? EMPTY_META
            : (parseColumn(path, `${at}/meta`, meta) as NerveVertexJson['meta']),
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
    // The head is stored: a turn on it writes only what it adds, a fork of it nothing.
    if (conversation !== undefined) stored.add(conversation)
    return conversation
  }

  return { put, committed, load: decode, count: () => count.get() ?? 0 }
}
