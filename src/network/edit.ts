import {
  applyPatches,
  enablePatches,
  produce,
  produceWithPatches,
  type Draft,
  type Patch,
} from 'immer'
import { UsageError } from '../errors.js'
import { validateName, showInvalidName } from '../node/index.js'
import type { Budget } from '../runtime/index.js'
import {
  defaultLimits,
  edgeBetween,
  edgeId,
  type Acceptance,
  type Delivery,
  type Direction,
  type Limits,
  type Network,
  type NetworkNode,
  type NodeMode,
  type ProviderSpec,
  type Trigger,
  type WorkflowMode,
} from './Network.js'
import {
  AcceptanceCodec,
  BudgetCodec,
  checked,
  DeliveryCodec,
  DirectionCodec,
  LimitsCodec,
  ModeCodec,
  ProviderCodec,
  StringList,
  TriggerCodec,
  WorkflowCodec,
} from './parts.js'
import { roleOf, type AgentRole } from './AgentRole.js'

enablePatches()

/**
 * One edit of a network: a pure function from a network to the next one
 * (pipeable), carrying the immer recipe that {@link change} runs to get the
 * edit's patches. An edit that changes nothing returns its input (`===`).
 *
 * @category network builders
 */
export interface NetworkEdit {
  (net: Network): Network
  /** What the edit does, for messages: `addNode("a")`. */
  readonly label: string
  /** @internal the draft recipe. */
  readonly recipe: (draft: Draft<Network>) => void
}

/**
 * An edit as JSON patches: the next network, the patches that lead to it,
 * and the inverse patches that lead back (undo).
 *
 * @category network builders
 */
export interface NetworkChange {
  readonly network: Network
  readonly patches: readonly Patch[]
  readonly inverse: readonly Patch[]
}

const edit = (label: string, recipe: (draft: Draft<Network>) => void): NetworkEdit => {
  const f = (net: Network): Network => produce(requireNetwork(label, net), recipe)
  return Object.freeze(Object.assign(f, { label, recipe }))
}

const requireNetwork = (api: string, net: unknown): Network => {
  if ((net as Network | null)?._tag !== 'Network') {
    throw new UsageError(api, `expects a Network, got ${typeof net}`)
  }
  return net as Network
}

const requireId = (api: string, what: string, id: unknown): string => {
  const v = validateName(id)
  if (v._tag === 'Left') throw new UsageError(api, `${what}: ${showInvalidName(v.left)}`)
  return v.right
}

const requireNode = (api: string, draft: Draft<Network>, id: string): Draft<NetworkNode> => {
  const node = draft.nodes[id]
  if (node === undefined) {
    throw new UsageError(api, `the network "${draft.id}" has no node "${id}"`)
  }
  return node
}

/**
 * A new, empty network.
 *
 * @category network builders
 * @example
 * import { network } from 'nerve'
 * import assert from 'assert'
 *
 * const net = network('team', { workflow: 'planning' })
 * assert.deepStrictEqual(Object.keys(net.nodes), [])
 * assert.strictEqual(net.limits.maxIterations, 25)
 * assert.ok(Object.isFrozen(net))
 */
export const network = (
  id: string,
  options: {
    readonly workflow?: WorkflowMode
    readonly limits?: Partial<Limits>
    readonly budget?: Budget
  } = {},
): Network => {
  requireId('network', 'the network id', id)
  const workflow = checked(
    'network',
    'options.workflow',
    WorkflowCodec,
    options.workflow ?? 'implementation',
  )
  const limits = checked('network', 'options.limits', LimitsCodec, options.limits ?? {})
  const budget =
    options.budget === undefined
      ? undefined
      : checked('network', 'options.budget', BudgetCodec, options.budget)
  return produce(
    {
      _tag: 'Network',
      id,
      workflow,
      limits: { ...defaultLimits, ...limits },
      ...(budget !== undefined && { budget }),
      nodes: {},
      edges: {},
    } as Network,
    () => undefined,
  )
}

/**
 * What {@link addNode} takes: an id and, optionally, every other field of
 * a {@link NetworkNode}. A `role` (a built-in name or a {@link AgentRole})
 * gives `system`, `tools` and `mode` unless they are given.
 *
 * @category network builders
 */
export interface NodeSpec {
  readonly id: string
  readonly role?: AgentRole | string
  readonly mode?: NodeMode
  readonly trigger?: Trigger
  readonly provider?: ProviderSpec
  readonly system?: string
  readonly tools?: readonly string[]
  readonly prompt?: string
  readonly budget?: Budget
  readonly acceptance?: Acceptance
  readonly assignment?: readonly string[]
}

const SPEC_KEYS: ReadonlySet<string> = new Set([
  'id',
  'role',
  'mode',
  'trigger',
  'provider',
  'system',
  'tools',
  'prompt',
  'budget',
  'acceptance',
  'assignment',
])

/**
 * A node made from a spec: checked (a `UsageError` names the bad field) and
 * with defaults filled in. The default provider is the LLM provider named
 * `default`; the default trigger `any`; the default mode the role's, else
 * `interactive`.
 *
 * @category network builders
 */
export const networkNode = (spec: NodeSpec, api = 'networkNode'): NetworkNode => {
  if (typeof spec !== 'object' || (spec as unknown) === null) {
    throw new UsageError(api, 'expects a node spec object with an id')
  }
  const id = requireId(api, 'the node id', spec.id)
  for (const key of Object.keys(spec)) {
    if (!SPEC_KEYS.has(key)) throw new UsageError(api, `node "${id}": "${key}" is not a node field`)
  }
  const at = `node "${id}"`
  const r = spec.role === undefined ? undefined : roleOf(api, spec.role)
  const system = spec.system ?? r?.system ?? ''
  if (typeof system !== 'string') throw new UsageError(api, `${at}: system must be a string`)
  if (spec.prompt !== undefined && typeof spec.prompt !== 'string') {
    throw new UsageError(api, `${at}: prompt must be a string`)
  }
  const node: NetworkNode = {
    id,
    role: r?.name ?? 'Agent',
    mode: checked(api, `${at}: mode`, ModeCodec, spec.mode ?? r?.mode ?? 'interactive'),
    trigger: checked(api, `${at}: trigger`, TriggerCodec, spec.trigger ?? { type: 'any' }),
    provider: checked(
      api,
      `${at}: provider`,
      ProviderCodec,
      spec.provider ?? { type: 'llm', provider: 'default' },
    ),
    system,
    tools: checked(api, `${at}: tools`, StringList, spec.tools ?? r?.tools ?? []),
    ...(spec.prompt !== undefined && { prompt: spec.prompt }),
    ...(spec.budget !== undefined && {
      budget: checked(api, `${at}: budget`, BudgetCodec, spec.budget),
    }),
    ...(spec.acceptance !== undefined && {
      acceptance: checked(api, `${at}: acceptance`, AcceptanceCodec, spec.acceptance),
    }),
    ...(spec.assignment !== undefined && {
      assignment: checked(api, `${at}: assignment`, StringList, spec.assignment),
    }),
  }
  return node
}

/**
 * Adds a node; an id the network has is a `UsageError`.
 *
 * @category network builders
 * @example
 * import { addNode, network } from 'nerve'
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
 * Removes a node and every edge that touches it. Unknown ids change nothing.
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
  })

/**
 * Joins two nodes with an edge, bidirectional unless `direction` is
 * `one-way`; `delivery` defaults to `queue`. Two nodes are joined by at
 * most one edge: connecting them again replaces it.
 *
 * @category network builders
 * @example
 * import { addNode, connect, network } from 'nerve'
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

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * Applies a role to a node: its name, system instructions, tools and mode.
 *
 * @category network builders
 * @example
 * import { addNode, network, setRole } from 'nerve'
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
 * import { addNode, network, setTrigger } from 'nerve'
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

/**
 * Sets the network's workflow mode.
 *
 * @category network builders
 */
export const setWorkflow = (workflow: WorkflowMode): NetworkEdit => {
  const w = checked('setWorkflow', 'workflow', WorkflowCodec, workflow)
  return edit(`setWorkflow(${JSON.stringify(w)})`, (draft) => {
    if (draft.workflow !== w) draft.workflow = w
  })
}

/**
 * Sets some of the network's limits.
 *
 * @category network builders
 */
export const setLimits = (limits: Partial<Limits>): NetworkEdit => {
  const l = checked('setLimits', 'limits', LimitsCodec, limits)
  return edit('setLimits', (draft) => {
    for (const [k, v] of Object.entries(l) as [keyof Limits, number][]) {
      if (draft.limits[k] !== v) draft.limits[k] = v
    }
  })
}

/**
 * Runs edits in turn as one change: the next network, its JSON patches and
 * the inverse patches (apply them with {@link applyChange} to undo).
 *
 * @category network builders
 * @example
 * import { addNode, applyChange, change, network, setMode } from 'nerve'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const before = pipe(network('team'), addNode({ id: 'a' }))
 * const { network: after, patches, inverse } = change(setMode('a', 'auto'))(before)
 * assert.deepStrictEqual(patches, [{ op: 'replace', path: ['nodes', 'a', 'mode'], value: 'auto' }])
 * assert.deepStrictEqual(applyChange(inverse)(after), before)
 */
export const change =
  (...edits: readonly NetworkEdit[]) =>
  (net: Network): NetworkChange => {
    requireNetwork('change', net)
    edits.forEach((e, i) => {
      if (typeof (e as Partial<NetworkEdit> | undefined)?.recipe !== 'function') {
        throw new UsageError(
          'change',
          `edits[${i}] is not a network edit (build one with addNode, connect, …)`,
        )
      }
    })
    const [network, patches, inverse] = produceWithPatches(net, (draft) => {
      for (const e of edits) e.recipe(draft)
    })
    return Object.freeze({
      // Edits that undo each other leave no patch: the input is the answer, as for any no-op.
      network: patches.length === 0 ? net : network,
      patches: Object.freeze(patches),
      inverse: Object.freeze(inverse),
    })
  }

/**
 * Applies JSON patches (from {@link change}, or received from elsewhere) to
 * a network: the next frozen network.
 *
 * @category network builders
 */
export const applyChange =
  (patches: readonly Patch[]) =>
  (net: Network): Network =>
    applyPatches(requireNetwork('applyChange', net), patches as Patch[])

export type { Patch } from 'immer'
