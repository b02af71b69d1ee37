/**
 * Edits of one node of a network: add and remove it, apply a role, set its
 * mode, trigger, provider or budget. Each is a {@link NetworkEdit}; one
 * that changes nothing returns its input.
 */
import type { Draft } from 'immer'
import { UsageError } from '../../errors.js'
import type { Budget } from '../../runtime/index.js'
import { roleOf, type AgentRole } from './AgentRole.js'
import { edit, requireNode, sameJson, type NetworkEdit } from './editCore.js'
import type { NetworkNode, NodeMode, ProviderSpec, Trigger } from './Network.js'
import { networkNode, type NodeSpec } from './nodeSpec.js'
import { BudgetCodec, checked, ModeCodec, ProviderCodec, TriggerCodec } from './parts.js'

/**
 * Adds a node; an id the network has is a `UsageError`.
 *
 * @category network builders
 * @example
 * import { addNode, network } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const net = pipe(network('team'), addNode({ id: 'plan', role: 'Planner' }))
 * assert.strictEqual(net.nodes.plan!.role, 'Planner')
 * assert.ok(net.nodes.plan!.tools.includes('write'))
 */
export const addNode = (spec: NodeSpec): NetworkEdit => {
  const node = networkNode(spec, 'addNode')
  return edit(`addNode(${JSON.stringify(node.id)})`, (draft) => {
    if (draft.nodes[node.id] !== undefined) {
      throw new UsageError('addNode', `the network "${draft.id}" already has a node "${node.id}"`)
    }
    draft.nodes[node.id] = node as Draft<NetworkNode>
  })
}

/**
 * Removes a node, every edge that touches it, and its place in sub-networks.
 * Unknown ids change nothing.
 *
 * @category network builders
 */
export const removeNode = (id: string): NetworkEdit =>
  edit(`removeNode(${JSON.stringify(id)})`, (draft) => {
    if (draft.nodes[id] === undefined) return
    Reflect.deleteProperty(draft.nodes, id)
    for (const [key, e] of Object.entries(draft.edges)) {
      if (e.from === id || e.to === id) Reflect.deleteProperty(draft.edges, key)
    }
    for (const g of Object.values(draft.subnetworks ?? {})) {
      const at = g.nodes.indexOf(id)
      if (at >= 0) g.nodes.splice(at, 1)
    }
  })

const setField = <K extends keyof NetworkNode>(
  api: string,
  id: string,
  key: K,
  value: NetworkNode[K],
  same: (a: NetworkNode[K], b: NetworkNode[K]) => boolean = (a, b) => a === b,
): NetworkEdit =>
  edit(`${api}(${JSON.stringify(id)})`, (draft) => {
    const node = requireNode(api, draft, id)
    if (!same(node[key], value)) (node as Record<string, unknown>)[key] = value
  })

/**
 * Applies a role to a node: its name, system instructions, tools and mode.
 *
 * @category network builders
 * @example
 * import { addNode, network, setRole } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const net = pipe(network('team'), addNode({ id: 'a' }), setRole('a', 'Coder'))
 * assert.strictEqual(net.nodes.a!.mode, 'auto')
 * assert.ok(net.nodes.a!.tools.includes('bash'))
 */
export const setRole = (id: string, given: AgentRole | string): NetworkEdit => {
  const r = roleOf('setRole', given)
  return edit(`setRole(${JSON.stringify(id)})`, (draft) => {
    const node = requireNode('setRole', draft, id)
    if (node.role !== r.name) node.role = r.name
    if (node.system !== r.system) node.system = r.system
    if (node.mode !== r.mode) node.mode = r.mode
    if (!sameJson(node.tools, r.tools)) node.tools = [...r.tools]
  })
}

/**
 * Sets a node's mode.
 *
 * @category network builders
 */
export const setMode = (id: string, mode: NodeMode): NetworkEdit =>
  setField('setMode', id, 'mode', checked('setMode', 'mode', ModeCodec, mode))

/**
 * Sets a node's trigger.
 *
 * @category network builders
 * @example
 * import { addNode, network, setTrigger } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const net = pipe(network('team'), addNode({ id: 'a' }), setTrigger('a', { type: 'all' }))
 * assert.deepStrictEqual(net.nodes.a!.trigger, { type: 'all' })
 * assert.throws(() => setTrigger('a', { type: 'sometimes' } as never), /trigger/)
 */
export const setTrigger = (id: string, trigger: Trigger): NetworkEdit =>
  setField(
    'setTrigger',
    id,
    'trigger',
    checked('setTrigger', 'trigger', TriggerCodec, trigger),
    sameJson,
  )

/**
 * Sets a node's provider.
 *
 * @category network builders
 */
export const setProvider = (id: string, provider: ProviderSpec): NetworkEdit =>
  setField(
    'setProvider',
    id,
    'provider',
    checked('setProvider', 'provider', ProviderCodec, provider),
    sameJson,
  )

/**
 * Sets a node's budget (`undefined`: none).
 *
 * @category network builders
 */
export const setBudget = (id: string, budget: Budget | undefined): NetworkEdit => {
  const b = budget === undefined ? undefined : checked('setBudget', 'budget', BudgetCodec, budget)
  return edit(`setBudget(${JSON.stringify(id)})`, (draft) => {
    const node = requireNode('setBudget', draft, id)
    if (sameJson(node.budget, b)) return
    if (b === undefined) delete node.budget
    else node.budget = b
  })
}
