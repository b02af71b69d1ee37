/**
 * Edits of a network's sub-networks: define one (its nodes and budget) or
 * remove it. A node removed from the network leaves its sub-networks too.
 */
import type { Draft } from 'immer'
import { UsageError } from '../../errors.js'
import type { Budget } from '../../runtime/index.js'
import { edit, requireId, requireNode, sameJson, type NetworkEdit } from './editCore.js'
import type { Subnetwork } from './Network.js'
import { BudgetCodec, checked, StringList } from './parts.js'

/**
 * Defines (or redefines) a sub-network: a named group of the network's
 * nodes with a budget of its own. Its usage rolls up from its nodes'
 * firings; when the budget is spent a run halts all of its nodes with a
 * {@link SubnetworkBudgetExceeded}. An unknown node is a `UsageError`.
 *
 * @category network builders
 * @example
 * import { addNode, defineSubnetwork, network } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const net = pipe(
 *   network('team'),
 *   addNode({ id: 'code' }), addNode({ id: 'test' }),
 *   defineSubnetwork('impl', { nodes: ['code', 'test'], budget: { maxTokens: 10_000 } }),
 * )
 * assert.deepStrictEqual(net.subnetworks!.impl!.nodes, ['code', 'test'])
 * assert.throws(() => defineSubnetwork('x', { nodes: ['ghost'] })(net), /no node "ghost"/)
 */
export const defineSubnetwork = (
  id: string,
  spec: { readonly nodes: readonly string[]; readonly budget?: Budget },
): NetworkEdit => {
  const api = 'defineSubnetwork'
  requireId(api, 'the sub-network id', id)
  if (typeof spec !== 'object' || (spec as unknown) === null) {
    throw new UsageError(api, 'expects { nodes, budget? }')
  }
  const nodes = checked(api, `sub-network "${id}": nodes`, StringList, spec.nodes)
  const budget =
    spec.budget === undefined
      ? undefined
      : checked(api, `sub-network "${id}": budget`, BudgetCodec, spec.budget)
  const group: Subnetwork = {
    id,
    nodes: [...new Set(nodes)],
    ...(budget !== undefined && { budget }),
  }
  return edit(`${api}(${JSON.stringify(id)})`, (draft) => {
    for (const n of group.nodes) requireNode(api, draft, n)
    const old = draft.subnetworks?.[id]
    if (old !== undefined && sameJson(old, group)) return
    draft.subnetworks ??= {}
    draft.subnetworks[id] = group as Draft<Subnetwork>
  })
}

/**
 * Removes a sub-network (its nodes stay). Unknown ids change nothing.
 *
 * @category network builders
 */
export const removeSubnetwork = (id: string): NetworkEdit =>
  edit(`removeSubnetwork(${JSON.stringify(id)})`, (draft) => {
    if (draft.subnetworks?.[id] === undefined) return
    Reflect.deleteProperty(draft.subnetworks, id)
    if (Object.keys(draft.subnetworks).length === 0) delete draft.subnetworks
  })
