/**
 * Edits of a network's edges: connect two nodes (both ways by default),
 * disconnect them, set an edge's delivery. Two nodes are joined by at most
 * one edge.
 */
import { UsageError } from '../../errors.js'
import { edit, requireNode, type NetworkEdit } from './editCore.js'
import { edgeBetween, edgeId, type Delivery, type Direction } from './Network.js'
import { checked, DeliveryCodec, DirectionCodec } from './parts.js'

/**
 * Joins two nodes with an edge, bidirectional unless `direction` is
 * `one-way`; `delivery` defaults to `queue`. Two nodes are joined by at
 * most one edge: connecting them again replaces it.
 *
 * @category network builders
 * @example
 * import { addNode, connect, network } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const net = pipe(
 *   network('team'),
 *   addNode({ id: 'a' }),
 *   addNode({ id: 'b' }),
 *   connect('a', 'b', { direction: 'one-way', delivery: { type: 'latest' } }),
 * )
 * assert.deepStrictEqual(Object.keys(net.edges), ['a->b'])
 * assert.deepStrictEqual(net.edges['a->b']!.delivery, { type: 'latest' })
 */
export const connect = (
  from: string,
  to: string,
  options: { readonly direction?: Direction; readonly delivery?: Delivery } = {},
): NetworkEdit => {
  const direction = checked(
    'connect',
    'options.direction',
    DirectionCodec,
    options.direction ?? 'both',
  )
  const delivery = checked(
    'connect',
    'options.delivery',
    DeliveryCodec,
    options.delivery ?? { type: 'queue' },
  )
  const id = edgeId(from, to, direction)
  return edit(`connect(${JSON.stringify(from)}, ${JSON.stringify(to)})`, (draft) => {
    requireNode('connect', draft, from)
    requireNode('connect', draft, to)
    const old = edgeBetween(draft, from, to)
    if (old !== undefined && old.id !== id) Reflect.deleteProperty(draft.edges, old.id)
    const now = draft.edges[id]
    if (now !== undefined && now.direction === direction && sameDelivery(now.delivery, delivery))
      return
    draft.edges[id] = { id, from, to, direction, delivery }
  })
}

const sameDelivery = (a: Delivery, b: Delivery): boolean =>
  a.type === b.type && (a.type !== 'debounce' || a.ms === (b as { ms: number }).ms)

/**
 * Removes the edge between two nodes, whichever way it was made. No edge:
 * nothing changes.
 *
 * @category network builders
 */
export const disconnect = (a: string, b: string): NetworkEdit =>
  edit(`disconnect(${JSON.stringify(a)}, ${JSON.stringify(b)})`, (draft) => {
    const old = edgeBetween(draft, a, b)
    if (old !== undefined) Reflect.deleteProperty(draft.edges, old.id)
  })

/**
 * Sets the delivery of the edge between two nodes; no edge is a `UsageError`.
 *
 * @category network builders
 */
export const setDelivery = (a: string, b: string, delivery: Delivery): NetworkEdit => {
  const d = checked('setDelivery', 'delivery', DeliveryCodec, delivery)
  return edit(`setDelivery(${JSON.stringify(a)}, ${JSON.stringify(b)})`, (draft) => {
    const old = edgeBetween(draft, a, b)
    if (old === undefined) throw new UsageError('setDelivery', `no edge joins "${a}" and "${b}"`)
    if (!sameDelivery(old.delivery, d)) draft.edges[old.id]!.delivery = d
  })
}
