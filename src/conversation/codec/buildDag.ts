import * as E from 'fp-ts/lib/Either.js'
import { deepFreeze } from '../../dag/freeze.js'
import { ancestorsOfAll, walk } from '../../dag/traverse.js'
import { parentAt, parentCount, vertex, walkSlot, type Meta } from '../../dag/Vertex.js'
import type { Conversation, Entry, SubConversation } from '../Entry.js'
import type * as t from 'io-ts'
import type { JsonRecord } from './combinators.js'
import type { ConversationDocument } from './document.js'
import { invalidValues, pointerSegment, type DecodeError, type InvalidValue } from './errors.js'

/**
 * Building the vertex DAGs of a decoded file. A format's decoder checks the
 * shape of every vertex and lists them here, DAG by DAG (a sub-conversation
 * is a DAG of its own); this module checks the structure (ids, parents,
 * cycles, heads) and builds the frozen vertices without recursion: in one
 * pass when every parent comes before its children, by Kahn's algorithm on
 * typed arrays otherwise. ("Graph" is the graph of steps only.)
 *
 * @internal
 */

/** A sub-conversation entry whose heads are filled in when its DAG is built. @internal */
export type PendingSubConversation = { -readonly [K in keyof SubConversation]: SubConversation[K] }

/** The checked vertices of one DAG, in file order, waiting to be built (complete only when no vertex had an error). @internal */
export interface PendingDag {
  /** JSON pointer to the object that holds the nodes and the heads. */
  readonly path: string
  /** Where the nodes, a node's parents and the heads are, for error paths. */
  readonly nodesKey: string
  readonly parentsKey: string
  readonly headsKey: string
  /** Map keys of the nodes (nano-agent); nodes are an array when absent. */
  readonly keys: string[] | undefined
  readonly ids: string[]
  readonly parents: (readonly string[])[]
  readonly data: Entry[]
  readonly meta: Meta[]
  readonly headIds: readonly string[]
  /** The sub-conversation entry this DAG belongs to; absent for the file's own DAG. */
  readonly into: PendingSubConversation | undefined
}

/**
 * A pending DAG of `size` vertices, to be filled by index (arrays sized
 * once: 10⁵ pushes would reallocate each of them at every growth). `keys`:
 * the nodes' map keys, for a format that keeps nodes in a map. @internal
 */
export const pendingDag = (
  fields: Pick<PendingDag, 'path' | 'nodesKey' | 'parentsKey' | 'headsKey' | 'headIds' | 'into'>,
  size: number,
  keys?: string[],
): PendingDag => ({
  ...fields,
  keys,
  ids: new Array<string>(size),
  parents: new Array<readonly string[]>(size),
  data: new Array<Entry>(size),
  meta: new Array<Meta>(size),
})

const NO_PARENTS: readonly Conversation[] = Object.freeze([])

const freezeStack: object[] = []

/**
 * Freezes a JSON value deeply, in place, skipping objects already frozen (as
 * `deepFreeze` does), with one reused stack and no key arrays: decoding calls
 * it for every vertex.
 */
const freezeJson = <T>(value: T): T => {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  const stack = freezeStack
  if (stack.length > 0) stack.length = 0 // left over only if a freeze threw
  stack.push(value)
  while (stack.length > 0) {
    const o = stack.pop()!
    Object.freeze(o)
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        const x: unknown = o[i]
        if (typeof x === 'object' && x !== null && !Object.isFrozen(x)) stack.push(x)
      }
    } else {
      for (const k in o) {
        const x = (o as Record<string, unknown>)[k]
        if (typeof x === 'object' && x !== null && !Object.isFrozen(x)) stack.push(x)
      }
    }
  }
  return value
}

/** Builds one DAG and returns its heads, or the first structural error. @internal */
export const buildDag = (g: PendingDag): E.Either<DecodeError, readonly Conversation[]> => {
  const { ids, parents, data, meta, keys } = g
  const n = ids.length
  const where = (i: number): string =>
    `${g.path}/${g.nodesKey}/${pointerSegment(keys === undefined ? String(i) : keys[i]!)}`

  if (keys !== undefined) {
    for (let i = 0; i < n; i++) {
      if (keys[i] !== ids[i]) {
        return E.left({ _tag: 'MismatchedId', key: keys[i]!, id: ids[i]!, path: where(i) })
      }
    }
  }
  const index = new Map<string, number>()
  for (let i = 0; i < n; i++) {
    const id = ids[i]!
    const size = index.size
    index.set(id, i)
    if (index.size === size)
      return E.left({ _tag: 'DuplicateId', vertex: id, path: `${where(i)}/id` })
  }

  // Parent indices, flattened: the parents of i are flat[offsets[i] .. offsets[i + 1]).
  let total = 0
  for (let i = 0; i < n; i++) total += parents[i]!.length
  const offsets = new Int32Array(n + 1)
  const flat = new Int32Array(total)
  let ordered = true
  let k = 0
  for (let i = 0; i < n; i++) {
    offsets[i] = k
    const ps = parents[i]!
    for (let j = 0; j < ps.length; j++) {
      // Files are mostly chains in causal order: try the vertex before first.
      const p = i > 0 && ps[j] === ids[i - 1] ? i - 1 : index.get(ps[j]!)
      if (p === undefined) {
        return E.left({
          _tag: 'MissingParent',
          vertex: ids[i]!,
          parent: ps[j]!,
          path: `${where(i)}/${g.parentsKey}/${j}`,
        })
      }
      if (p >= i) ordered = false
      flat[k++] = p
    }
  }
  offsets[n] = k

  const built: Conversation[] = new Array<Conversation>(n)
  const make = (i: number): void => {
    const from = offsets[i]!
    const to = offsets[i + 1]!
    let ps = NO_PARENTS
    if (to - from === 1) {
      ps = [built[flat[from]!]!]
    } else if (to > from) {
      const arr: Conversation[] = []
      for (let j = from; j < to; j++) arr.push(built[flat[j]!]!)
      ps = Object.freeze(arr)
    }
    // Frozen first with one shared stack, so `vertex` finds them frozen.
    built[i] = vertex(ps, freezeJson(data[i]!), { id: ids[i]!, meta: freezeJson(meta[i]!) })
  }

  if (ordered) {
    for (let i = 0; i < n; i++) make(i)
  } else {
    const cycle = kahn(n, offsets, flat, make)
    if (cycle !== undefined) {
      const names = cycle.map((i) => ids[i]!)
      const at = cycle[cycle.length - 1]!
      return E.left({ _tag: 'Cycle', vertex: ids[at]!, cycle: names, path: where(at) })
    }
  }

  const heads: Conversation[] = []
  if (g.headIds.length === 0) {
    // No heads listed: every vertex without children is one, as nano-agent reads it.
    const hasChild = new Uint8Array(n)
    for (let j = 0; j < total; j++) hasChild[flat[j]!] = 1
    for (let i = 0; i < n; i++) if (hasChild[i] === 0) heads.push(built[i]!)
  } else {
    for (let j = 0; j < g.headIds.length; j++) {
      const id = g.headIds[j]!
      const i = index.get(id)
      if (i === undefined) {
        return E.left({ _tag: 'UnknownHead', id, path: `${g.path}/${g.headsKey}/${j}` })
      }
      heads.push(built[i]!)
    }
  }
  return E.right(Object.freeze(heads))
}

/**
 * Calls `make` on every node, parents first (Kahn's algorithm). Returns
 * `undefined` when all were made, or else a cycle: node indices, each the
 * parent of the one before, the first repeated at the end.
 */
const kahn = (
  n: number,
  offsets: Int32Array,
  flat: Int32Array,
  make: (i: number) => void,
): number[] | undefined => {
  const total = flat.length
  const waiting = new Int32Array(n)
  const childOffsets = new Int32Array(n + 1)
  for (let i = 0; i < n; i++) waiting[i] = offsets[i + 1]! - offsets[i]!
  for (let j = 0; j < total; j++) childOffsets[flat[j]! + 1]!++
  for (let i = 0; i < n; i++) childOffsets[i + 1]! += childOffsets[i]!
  const fill = childOffsets.slice(0, n)
  const children = new Int32Array(total)
  for (let i = 0; i < n; i++) {
    for (let j = offsets[i]!; j < offsets[i + 1]!; j++) children[fill[flat[j]!]!++] = i
  }
  const queue = new Int32Array(n)
  let head = 0
  let tail = 0
  for (let i = 0; i < n; i++) if (waiting[i] === 0) queue[tail++] = i
  while (head < tail) {
    const i = queue[head++]!
    make(i)
    for (let j = childOffsets[i]!; j < childOffsets[i + 1]!; j++) {
      const c = children[j]!
      if (--waiting[c]! === 0) queue[tail++] = c
    }
  }
  if (tail === n) return undefined

  // A node left waiting has a parent left waiting: follow such parents until one repeats.
  let cur = 0
  while (waiting[cur] === 0) cur++
  const step = new Int32Array(n).fill(-1)
  const trail: number[] = []
  while (step[cur] === -1) {
    step[cur] = trail.length
    trail.push(cur)
    let next = -1
    for (let j = offsets[cur]!; j < offsets[cur + 1]! && next < 0; j++) {
      if (waiting[flat[j]!]! > 0) next = flat[j]!
    }
    cur = next
  }
  const cycle = trail.slice(step[cur])
  cycle.push(cur)
  return cycle
}

/**
 * Builds pending DAGs listed so that a sub-conversation's DAG comes after
 * the DAG holding it: from the last to the first, filling each
 * sub-conversation's heads before its vertex is built. Returns the heads of
 * the first DAG.
 *
 * @internal
 */
export const buildAll = (
  dags: readonly PendingDag[],
): E.Either<DecodeError, readonly Conversation[]> => {
  let heads: readonly Conversation[] = NO_PARENTS
  for (let i = dags.length - 1; i >= 0; i--) {
    const g = dags[i]!
    const r = buildDag(g)
    if (E.isLeft(r)) return r
    heads = r.right
    if (g.into !== undefined) g.into.heads = heads
  }
  return E.right(heads)
}

/**
 * The vertices reachable from `heads`, in causal order, each id once: two
 * vertex objects with the same id (equal content built twice, or a file
 * loaded twice) are one vertex of a file.
 *
 * The walk dedupes by identity, which needs no set of every id. Two objects
 * with one id hold equal parent ids, so if there are such twins, some pair
 * of them are both roots or share their first parent (go up from any pair
 * until the first parents are one object): checking roots, and the children
 * of the vertices the walk met more than once, finds out; only then is the
 * walk done again by id.
 *
 * @internal
 */
export const causalOrder = (heads: readonly Conversation[]): readonly Conversation[] => {
  const met = {}
  const forks: Conversation[] = []
  const order = walk(
    heads,
    (v) => {
      const mark = walkSlot.get(v)
      if (mark === met || mark === forks) return false
      walkSlot.set(v, met)
      return true
    },
    (v) => {
      if (walkSlot.get(v) !== met) return
      walkSlot.set(v, forks)
      forks.push(v)
    },
  )
  const twins = hasTwins(order, forks)
  for (const f of forks) walkSlot.set(f, met)
  return twins ? ancestorsOfAll(heads, (v) => v.id) : order
}

/**
 * Whether two of `order` with one id are roots, or children (by their first
 * parent) of one of the `forks`, whose walk slots hold `forks`. Each fork's
 * slot keeps the id of its first child, then a set of its children's ids.
 */
const hasTwins = (order: readonly Conversation[], forks: readonly Conversation[]): boolean => {
  const rootIds = new Set<string>()
  for (const v of order) {
    if (parentCount(v) === 0) {
      const size = rootIds.size
      if (rootIds.add(v.id).size === size) return true
      continue
    }
    const p = parentAt(v, 0)
    const ids = walkSlot.get(p)
    if (ids === forks) walkSlot.set(p, v.id)
    else if (typeof ids === 'string') {
      if (ids === v.id) return true
      walkSlot.set(p, new Set([ids, v.id]))
    } else if (ids instanceof Set) {
      const size = ids.size
      if (ids.add(v.id).size === size) return true
    }
  }
  return false
}

/** The ids of a vertex's parents, as a fresh array. @internal */
export const parentIds = (v: Conversation): string[] => {
  const n = parentCount(v)
  if (n === 1) return [parentAt(v, 0).id]
  const ids: string[] = []
  for (let i = 0; i < n; i++) ids.push(parentAt(v, i).id)
  return ids
}

/** The top-level fields of a file that go into its document. @internal */
export interface FileHeader {
  readonly metadata?: JsonRecord
  readonly session_id?: string
  readonly created_at?: number
}

const EMPTY: Meta = Object.freeze({})

/**
 * Decodes a whole file: checks its header, reads its DAGs one after
 * another (`read` queues the DAG of a sub-conversation while it reads the
 * DAG holding it), collects every shape error, then builds all DAGs into
 * a frozen document.
 *
 * @internal
 */
export const decodeFile = <H extends FileHeader, J>(
  u: unknown,
  header: t.Decoder<unknown, H>,
  first: (h: H) => J,
  read: (job: J, queue: J[], errors: InvalidValue[]) => PendingDag,
): E.Either<DecodeError, ConversationDocument> => {
  const errors: InvalidValue[] = []
  const top = header.validate(u, [{ key: '', type: header, actual: u }])
  if (E.isLeft(top)) {
    invalidValues(top.left, '', errors)
    return E.left({ _tag: 'Invalid', errors })
  }
  const h = top.right
  const jobs: J[] = [first(h)]
  const dags: PendingDag[] = []
  for (let j = 0; j < jobs.length; j++) dags.push(read(jobs[j]!, jobs, errors))
  if (errors.length > 0) return E.left({ _tag: 'Invalid', errors })
  const heads = buildAll(dags)
  if (E.isLeft(heads)) return heads
  return E.right(
    Object.freeze({
      heads: heads.right,
      metadata: h.metadata === undefined ? EMPTY : deepFreeze(h.metadata),
      ...(h.session_id === undefined ? {} : { sessionId: h.session_id }),
      ...(h.created_at === undefined ? {} : { createdAt: h.created_at }),
    }),
  )
}
