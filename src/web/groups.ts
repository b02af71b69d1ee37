/**
 * Groups of boxes (a network's sub-networks) as a drawing shows them: a
 * box around each group's members. Groups may nest or cross (share some
 * members, not all). The layout keeps a nested family of them together
 * ({@link nesting}: dagre's clusters, each node in the smallest group
 * holding it), so no other box falls inside them; every other group, and
 * any group whose members changed since the layout, is drawn around its
 * members where they are ({@link groupBoxes}). A box shared by two groups
 * is drawn once, inside both. Pure.
 */
import type { Box, GroupBox, Placed } from './drawing.js'

/** A group as the layout is given it: its id and its members' ids. */
export interface Group {
  readonly id: string
  readonly nodes: readonly string[]
}

/** The room between a group's box and what it holds, and above that for its label. */
export const GROUP_PAD = 12
export const GROUP_LABEL = 16

/** A group the layout keeps together, in the group it lies in (if any). */
export interface Cluster extends Group {
  readonly parent?: string
}

/** The groups the layout nests, and the smallest one each node lies in. */
export interface Nesting {
  readonly clusters: readonly Cluster[]
  readonly parentOf: ReadonlyMap<string, string>
}

const inside = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean =>
  a.size <= b.size && [...a].every((n) => b.has(n))
const apart = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean =>
  [...a].every((n) => !b.has(n))

/** Each group's members among `known`, once each; a group with none is left out. */
const membersOf = (groups: readonly Group[], known: ReadonlySet<string>) =>
  groups
    .map((g) => ({ id: g.id, nodes: [...new Set(g.nodes.filter((n) => known.has(n)))] }))
    .filter((g) => g.nodes.length > 0)

/**
 * The groups that nest, largest first: a group is taken when, with every
 * group taken before it, it lies inside or apart; it lies in the smallest
 * one holding it (of two with the same members, the first holds the other).
 * Members not in `known` are left out.
 */
export const nesting = (groups: readonly Group[], known: ReadonlySet<string>): Nesting => {
  const sorted = membersOf(groups, known)
    .map((g) => ({ ...g, set: new Set(g.nodes) }))
    .sort((a, b) => b.nodes.length - a.nodes.length)
  const taken: (typeof sorted)[number][] = []
  const clusters: Cluster[] = []
  const parentOf = new Map<string, string>()
  for (const g of sorted) {
    if (!taken.every((c) => inside(g.set, c.set) || apart(g.set, c.set))) continue
    // Taken largest first: the last one holding it is the smallest.
    const parent = taken.filter((c) => inside(g.set, c.set)).at(-1)
    taken.push(g)
    clusters.push({ id: g.id, nodes: g.nodes, ...(parent !== undefined && { parent: parent.id }) })
    for (const n of g.nodes) parentOf.set(n, g.id)
  }
  return { clusters, parentOf }
}

/** The members of a group as a key: the same members, in any order, give the same key. */
const membersKey = (nodes: readonly string[]): string => JSON.stringify([...nodes].sort())

/**
 * The box of each group of `groups` around its members (placed in `at`):
 * a box of `kept` with the same members is kept as it is (unless a group
 * inside it is made anew); any other is made around its members' boxes and the boxes of the groups inside it,
 * with {@link GROUP_PAD} of room and {@link GROUP_LABEL} more above.
 */
export const groupBoxes = (
  groups: readonly Group[],
  at: ReadonlyMap<string, Placed>,
  box: Box,
  kept: readonly GroupBox[] = [],
): readonly GroupBox[] => {
  const was = new Map(kept.map((k) => [k.id, k]))
  const members = membersOf(groups, new Set(at.keys())).map((g) => ({
    ...g,
    set: new Set(g.nodes),
  }))
  const setOf = new Map(members.map((m) => [m.id, m.set]))
  // Smallest first, so that a group's box is made after those of the groups inside it.
  const order = members
    .map((g, i) => ({ g, i }))
    .sort((a, b) => a.g.nodes.length - b.g.nodes.length || b.i - a.i)
  const made = new Map<string, GroupBox>()
  const anew = new Set<string>()
  for (const { g } of order) {
    const within = [...made.keys()].filter((id) => inside(setOf.get(id)!, g.set))
    const old = was.get(g.id)
    if (
      old !== undefined &&
      membersKey(old.nodes) === membersKey(g.nodes) &&
      !within.some((id) => anew.has(id))
    ) {
      made.set(g.id, old)
      continue
    }
    anew.add(g.id)
    const parts = [
      ...g.nodes.map((n) => {
        const p = at.get(n)!
        return {
          x: p.x - box.width / 2,
          y: p.y - box.height / 2,
          width: box.width,
          height: box.height,
        }
      }),
      ...within.map((id) => made.get(id)!),
    ]
    const left = Math.min(...parts.map((p) => p.x)) - GROUP_PAD
    const top = Math.min(...parts.map((p) => p.y)) - GROUP_PAD - GROUP_LABEL
    const right = Math.max(...parts.map((p) => p.x + p.width)) + GROUP_PAD
    const bottom = Math.max(...parts.map((p) => p.y + p.height)) + GROUP_PAD
    const x = Math.max(0, left)
    const y = Math.max(0, top)
    made.set(g.id, { id: g.id, nodes: g.nodes, x, y, width: right - x, height: bottom - y })
  }
  return members.map((g) => made.get(g.id)!)
}
