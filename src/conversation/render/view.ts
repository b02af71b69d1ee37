/**
 * The part of a conversation a rendering draws: every vertex reachable from
 * the given heads, in causal order, with parent and child indices and short
 * ids. Vertices are told apart by identity, as in `dag/traverse`.
 *
 * @internal
 */
import { UsageError } from '../../errors.js'
import { isVertex } from '../../dag/Vertex.js'
import { ancestorsOfAll } from '../../dag/traverse.js'
import type { Conversation } from '../Entry.js'

/** @internal */
export interface View {
  /** Causal order: parents before children, the first head's history first. */
  readonly vertices: readonly Conversation[]
  /** For each vertex, the indices of its parents, in its parents' order. */
  readonly parents: readonly (readonly number[])[]
  /** For each vertex, the indices of its children in view, in causal order. */
  readonly children: readonly (readonly number[])[]
  /** The vertices without a child in view, in causal order. */
  readonly heads: readonly number[]
  /** For each vertex, its short id (see {@link shortIds}). */
  readonly short: readonly string[]
}

/** The vertices a rendering starts from; throws a UsageError for anything else. @internal */
export const startOf = (api: string, on: unknown): readonly Conversation[] => {
  if (isVertex(on)) return [on as Conversation]
  if (!Array.isArray(on)) {
    throw new UsageError(api, 'expects a conversation or an array of conversations')
  }
  const list: readonly unknown[] = on
  list.forEach((v, i) => {
    if (!isVertex(v)) throw new UsageError(api, `element ${i} is not a conversation vertex`)
  })
  return list as readonly Conversation[]
}

/** The view of the history of some heads. @internal */
export const viewOf = (start: readonly Conversation[]): View => {
  const vertices = ancestorsOfAll(start)
  const index = new Map<Conversation, number>()
  vertices.forEach((v, i) => index.set(v, i))
  const parents = vertices.map((v) => v.parents.map((p) => index.get(p)!))
  const children: number[][] = vertices.map(() => [])
  parents.forEach((ps, i) => {
    for (const p of ps) children[p]!.push(i)
  })
  const heads: number[] = []
  children.forEach((cs, i) => {
    if (cs.length === 0) heads.push(i)
  })
  return {
    vertices,
    parents,
    children,
    heads,
    short: shortIds(vertices.map((v) => v.id)),
  }
}

const MIN_SHORT = 8

const commonPrefix = (a: string, b: string): number => {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

/**
 * Short ids: the shortest prefix of at least 8 characters that tells each
 * distinct id apart from the others, or the whole id when shorter. Equal ids
 * get equal short ids.
 *
 * @internal
 */
export const shortIds = (ids: readonly string[]): string[] => {
  const distinct = [...new Set(ids)].sort()
  const length = new Map<string, number>()
  distinct.forEach((id, i) => {
    const before = i > 0 ? commonPrefix(id, distinct[i - 1]!) + 1 : 0
    const after = i + 1 < distinct.length ? commonPrefix(id, distinct[i + 1]!) + 1 : 0
    length.set(id, Math.min(id.length, Math.max(MIN_SHORT, before, after)))
  })
  return ids.map((id) => id.slice(0, length.get(id)))
}
