/**
 * A chat's tree as the page holds it and draws it: read once whole, then
 * grown by the parts `CHAT_GET { known }` sends at each turn's end
 * ({@link mergeTree}); drawn whole up to a limit, and over it folded
 * ({@link foldTree}): the heads and each one's path back to where it forks
 * are drawn, nearest the heads first, and each run of the rest is one
 * "N more" box, unfolded when clicked.
 */
import { verticesOf, type VertexJson } from './vertexJson.js'

/** A chat's tree: its heads and its vertices, parents before children. */
export interface HeldTree {
  readonly heads: readonly string[]
  readonly vertices: readonly VertexJson[]
}

/** The heads of a conversation file (none when it names none). */
const headsOf = (conversation: unknown): readonly string[] =>
  (conversation as { heads?: readonly string[] } | null)?.heads ?? []

/**
 * The tree held grown by a part of it (a conversation file holding the
 * vertices it lacked, as `CHAT_GET { known }` answers): its vertices added
 * after those held (a vertex held already is not added twice), its heads
 * taken. Without a tree held, the part is the whole tree.
 */
export const mergeTree = (held: HeldTree | undefined, part: unknown): HeldTree => {
  const heads = headsOf(part)
  const added = verticesOf(part)
  if (held === undefined) return { heads, vertices: added }
  const ids = new Set(held.vertices.map((v) => v.id))
  return { heads, vertices: [...held.vertices, ...added.filter((v) => !ids.has(v.id))] }
}

/** A run of vertices not drawn: one box, with the edges of its vertices to those drawn. */
export interface Fold {
  /** The box's id: `fold:` and the id of its first vertex. */
  readonly id: string
  /** The vertices folded, parents before children. */
  readonly ids: readonly string[]
  /** The vertices drawn that are parents of one folded. */
  readonly from: readonly string[]
  /** The vertices drawn that are children of one folded. */
  readonly to: readonly string[]
}

/** A tree as drawn: the vertices drawn and the folds of the others. */
export interface FoldedTree {
  readonly shown: readonly VertexJson[]
  readonly folds: readonly Fold[]
}

/** What {@link foldTree} draws first. */
export interface FoldOptions {
  readonly heads: readonly string[]
  /** The current head: its path is drawn first. */
  readonly current?: string | undefined
  /** Vertices asked for (the folds clicked, newest first): drawn before the rest of the paths. */
  readonly unfolded?: readonly (readonly string[])[]
  /** The most vertices drawn. */
  readonly limit: number
}

/**
 * The tree folded so that at most `limit` of its vertices are drawn (all
 * of them when it holds no more). Drawn first: the heads (the current one,
 * then the others newest first, a quarter of the limit at most); then the
 * ends of each head's path — back by first parents to where it meets the
 * path of a head before it, or to the root — the vertex that begins it
 * and the one it forks from; then the vertices `unfolded` asks for (each
 * group from its end nearest the heads, in half the room left at most);
 * then the paths, a vertex of each
 * in turn from its head back; then, while there is room, the heads beyond
 * the quarter with their paths. The vertices left are folded: a run of
 * them is one {@link Fold}, and so are the runs under one vertex drawn
 * (the branches of heads left out) and the roots not drawn.
 */
export const foldTree = (vertices: readonly VertexJson[], options: FoldOptions): FoldedTree => {
  if (vertices.length <= options.limit) return { shown: vertices, folds: [] }
  const { limit } = options
  const byId = new Map(vertices.map((v) => [v.id, v]))
  const drawn = new Set<string>()
  const draw = (id: string | undefined): void => {
    if (id !== undefined && drawn.size < limit && byId.has(id)) drawn.add(id)
  }
  const others = [...options.heads].reverse().filter((h) => h !== options.current)
  const heads = (options.current === undefined ? others : [options.current, ...others]).filter(
    (h) => byId.has(h),
  )
  // Each head's path, from the head back to the first vertex of its branch.
  const onPath = new Set<string>()
  const all = heads.map((h) => {
    const path: string[] = []
    for (let id: string | undefined = h; id !== undefined && byId.has(id) && !onPath.has(id);) {
      path.push(id)
      onPath.add(id)
      id = byId.get(id)!.parents[0]
    }
    return path
  })
  const paths = all.slice(0, Math.max(1, Math.floor(limit / 4)))
  const ends = (p: readonly string[]): void => {
    const first = p.at(-1)
    draw(first)
    draw(first === undefined ? undefined : byId.get(first)!.parents[0])
  }
  for (const p of paths) draw(p[0])
  for (const p of paths) ends(p)
  // Half the room left at most, so that the paths near the heads stay drawn.
  const unfoldedUpTo = drawn.size + Math.floor((limit - drawn.size) / 2)
  for (const group of options.unfolded ?? [])
    for (let i = group.length - 1; i >= 0 && drawn.size < unfoldedUpTo; i--) draw(group[i])
  for (let at = 1, more = true; more && drawn.size < limit; at++) {
    more = false
    for (const p of paths) {
      if (at >= p.length - 1) continue
      more = true
      draw(p[at])
    }
  }
  // Room left: the heads beyond the quarter, each with its path.
  for (const p of all.slice(paths.length)) {
    draw(p[0])
    ends(p)
    for (const id of p) draw(id)
  }
  return { shown: vertices.filter((v) => drawn.has(v.id)), folds: foldsOf(vertices, drawn) }
}

/**
 * The folds of the vertices not `drawn`: those joined by an edge, or
 * children of one vertex drawn, or roots, are one fold.
 */
const foldsOf = (vertices: readonly VertexJson[], drawn: ReadonlySet<string>): Fold[] => {
  // Union-find over the vertices not drawn.
  const up = new Map<string, string>()
  const find = (id: string): string => {
    let r = id
    while (up.get(r) !== r) r = up.get(r)!
    for (let x = id; x !== r;) {
      const next = up.get(x)!
      up.set(x, r)
      x = next
    }
    return r
  }
  const join = (a: string, b: string): void => {
    const ra = find(a)
    const rb = find(b)
    if (ra !== rb) up.set(rb, ra)
  }
  /** The first folded child of each vertex drawn, and the first folded root (under ''). */
  const under = new Map<string, string>()
  const joinUnder = (key: string, id: string): void => {
    const first = under.get(key)
    if (first === undefined) under.set(key, id)
    else join(first, id)
  }
  for (const v of vertices) {
    if (drawn.has(v.id)) continue
    up.set(v.id, v.id)
    if (v.parents.length === 0) joinUnder('', v.id)
    for (const p of v.parents) {
      if (!up.has(p) && !drawn.has(p)) continue // a parent the tree lacks
      if (drawn.has(p)) joinUnder(p, v.id)
      else join(p, v.id)
    }
  }
  const folds = new Map<string, { ids: string[]; from: Set<string>; to: Set<string> }>()
  const foldOf = (id: string) => {
    const root = find(id)
    let f = folds.get(root)
    if (f === undefined) folds.set(root, (f = { ids: [], from: new Set(), to: new Set() }))
    return f
  }
  for (const v of vertices) {
    if (drawn.has(v.id)) {
      for (const p of v.parents) if (up.has(p)) foldOf(p).to.add(v.id)
      continue
    }
    const f = foldOf(v.id)
    f.ids.push(v.id)
    for (const p of v.parents) if (drawn.has(p)) f.from.add(p)
  }
  return [...folds.values()].map((f) => ({
    id: `fold:${f.ids[0]!}`,
    ids: f.ids,
    from: [...f.from],
    to: [...f.to],
  }))
}
