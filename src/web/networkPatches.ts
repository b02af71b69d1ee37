/**
 * The JSON patches the page's edits of a network send (`EDIT_NETWORK`
 * takes them as one edit, so one undo): pure, from the network value as the
 * page holds it. The page checks nothing the daemon checks: a value it
 * refuses comes back as its typed error, shown on the page.
 */
import type { NetworkInfo } from '../protocol/index.js'

/** A network value as the page holds it. */
export type NetworkValue = NetworkInfo['network']
/** A node of it. */
export type NetworkNodeValue = NetworkValue['nodes'][string]
/** An edge of it. */
export type EdgeValue = NetworkValue['edges'][string]

/** One patch of `EDIT_NETWORK`. */
export interface Patch {
  readonly op: 'add' | 'replace' | 'remove'
  readonly path: readonly (string | number)[]
  readonly value?: unknown
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * The patch that makes `before` `after` at `path`: none when they are the
 * same, `remove` when `after` is absent, `add` when `before` was.
 */
export const fieldPatch = (
  path: readonly (string | number)[],
  before: unknown,
  after: unknown,
): readonly Patch[] =>
  same(before, after)
    ? []
    : after === undefined
      ? [{ op: 'remove', path }]
      : [{ op: before === undefined ? 'add' : 'replace', path, value: after }]

/**
 * The patches that make node `before` into `after` (same id), one per
 * field that changed.
 */
export const nodePatches = (
  before: NetworkNodeValue,
  after: Readonly<Record<string, unknown>>,
): readonly Patch[] => {
  const was = before as unknown as Readonly<Record<string, unknown>>
  const keys = [...new Set([...Object.keys(was), ...Object.keys(after)])].filter((k) => k !== 'id')
  return keys.flatMap((k) => fieldPatch(['nodes', before.id, k], was[k], after[k]))
}

/** The id an edge from `from` to `to` has in that direction. */
export const edgeIdOf = (from: string, to: string, direction: string): string =>
  direction === 'both' ? `${from}<->${to}` : `${from}->${to}`

/**
 * An edge's direction changed: its id says its direction, so it is removed
 * and added again under its new id (its delivery kept) — one edit.
 */
export const directionPatches = (edge: EdgeValue, direction: string): readonly Patch[] => {
  if (edge.direction === direction) return []
  const id = edgeIdOf(edge.from, edge.to, direction)
  return [
    { op: 'remove', path: ['edges', edge.id] },
    { op: 'add', path: ['edges', id], value: { ...edge, id, direction } },
  ]
}

/** A delivery of the given type; a debounce waits `ms` (500 when not given). */
export const deliveryOf = (type: string, ms?: number): EdgeValue['delivery'] =>
  (type === 'debounce' ? { type, ms: ms ?? 500 } : { type }) as EdgeValue['delivery']

/**
 * A node removed, with every edge that touches it and its place in the
 * sub-networks (a network whose edge names a node that is gone is not
 * valid) — one edit.
 */
export const removeNodePatches = (net: NetworkValue, id: string): readonly Patch[] => [
  ...Object.values(net.edges)
    .filter((e) => e.from === id || e.to === id)
    .map((e): Patch => ({ op: 'remove', path: ['edges', e.id] })),
  ...Object.values(net.subnetworks ?? {})
    .filter((g) => g.nodes.includes(id))
    .map((g): Patch => ({
      op: 'replace',
      path: ['subnetworks', g.id, 'nodes'],
      value: g.nodes.filter((n) => n !== id),
    })),
  { op: 'remove', path: ['nodes', id] },
]

/** A sub-network of a network value. */
export type SubnetworkValue = NonNullable<NetworkValue['subnetworks']>[string]

/** The network's own settings as a form sets them (a budget absent is none). */
export interface Settings {
  readonly workflow: string
  readonly limits: Readonly<Record<string, unknown>>
  readonly budget?: Readonly<Record<string, unknown>>
}

/**
 * The patches that give the network `after`'s workflow, limits and budget:
 * one per setting that changed (each limit on its own, the budget whole).
 */
export const settingsPatches = (net: NetworkValue, after: Settings): readonly Patch[] => {
  const limits = net.limits as unknown as Readonly<Record<string, unknown>>
  return [
    ...fieldPatch(['workflow'], net.workflow, after.workflow),
    ...Object.keys(after.limits).flatMap((k) =>
      fieldPatch(['limits', k], limits[k], after.limits[k]),
    ),
    ...fieldPatch(['budget'], net.budget, after.budget),
  ]
}

/**
 * A sub-network added (the network's record of them made when it has
 * none); `undefined` when one of that id exists already (a JSON patch
 * `add` would replace it).
 */
export const addSubnetworkPatches = (
  net: NetworkValue,
  group: SubnetworkValue,
): readonly Patch[] | undefined =>
  net.subnetworks === undefined
    ? [{ op: 'add', path: ['subnetworks'], value: { [group.id]: group } }]
    : Object.hasOwn(net.subnetworks, group.id)
      ? undefined
      : [{ op: 'add', path: ['subnetworks', group.id], value: group }]

/** A sub-network removed (its nodes stay); the last one takes the record with it, as the model does. */
export const removeSubnetworkPatches = (net: NetworkValue, id: string): readonly Patch[] => {
  const ids = Object.keys(net.subnetworks ?? {})
  if (!ids.includes(id)) return []
  return [{ op: 'remove', path: ids.length === 1 ? ['subnetworks'] : ['subnetworks', id] }]
}

/**
 * A sub-network changed in place: its members (the same members in
 * another order are no change) and its budget (absent: none), each only
 * when it changed — one edit.
 */
export const subnetworkPatches = (
  before: SubnetworkValue,
  after: Omit<SubnetworkValue, 'id'>,
): readonly Patch[] => {
  const at = ['subnetworks', before.id]
  const was = new Set(before.nodes)
  const sameMembers = was.size === new Set(after.nodes).size && after.nodes.every((n) => was.has(n))
  return [
    ...(sameMembers ? [] : fieldPatch([...at, 'nodes'], before.nodes, after.nodes)),
    ...fieldPatch([...at, 'budget'], before.budget, after.budget),
  ]
}
