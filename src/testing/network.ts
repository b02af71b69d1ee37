import fc from 'fast-check'
import { UsageError } from '../errors.js'
import {
  addNode,
  connect,
  defineSubnetwork,
  disconnect,
  network as emptyNetwork,
  removeNode,
  removeSubnetwork,
  setDelivery,
  setMode,
  setTrigger,
  setWorkflow,
  type Delivery,
  type Network,
  type NetworkEdit,
} from '../network/index.js'

/**
 * What {@link agentNetwork} may generate. Every field is optional.
 *
 * @category arbitraries
 */
export interface NetworkConstraints {
  /** The fewest nodes, ≥ 1. Default 1. */
  readonly minNodes?: number
  /** The most nodes, ≥ `minNodes`. Default 6. */
  readonly maxNodes?: number
  /** Only these deliveries on edges. Default: queue, latest and debounce. */
  readonly deliveries?: readonly Delivery['type'][]
  /** Only these triggers on nodes. Default: any and all. */
  readonly triggers?: readonly ('any' | 'all')[]
  /** The most replies in a node's mock script. Default 3. */
  readonly maxScript?: number
  /** The most sub-networks (groups of the nodes, some with a budget). Default 0. */
  readonly maxSubnetworks?: number
}

const KEYS: ReadonlySet<string> = new Set([
  'minNodes',
  'maxNodes',
  'deliveries',
  'triggers',
  'maxScript',
  'maxSubnetworks',
])

const count = (name: string, value: unknown, fallback: number, min: number): number => {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(
      'agentNetwork',
      `constraints.${name} must be an integer ≥ ${min}, got ${typeof value === 'number' ? value : typeof value}`,
    )
  }
  return value
}

const deliveryOf = (type: Delivery['type'], ms: number): Delivery =>
  type === 'debounce' ? { type, ms } : { type }

/**
 * Networks of mock nodes (`n0`, `n1`, …, each with a short script) joined
 * by edges of every direction and the allowed deliveries, often with
 * cycles, and (when `maxSubnetworks` allows) sub-networks `g0`, `g1`, … of
 * them, some with budgets. Shrinks towards fewer nodes and edges.
 *
 * @category arbitraries
 * @example
 * import { agentNetwork } from 'nerve-agents/testing'
 * import fc from 'fast-check'
 * import assert from 'assert'
 *
 * fc.assert(fc.property(agentNetwork({ maxNodes: 4 }), (net) => {
 *   for (const e of Object.values(net.edges)) assert.ok(e.from in net.nodes && e.to in net.nodes)
 * }))
 */
export const agentNetwork = (constraints: NetworkConstraints = {}): fc.Arbitrary<Network> => {
  if (typeof constraints !== 'object' || (constraints as unknown) === null) {
    throw new UsageError('agentNetwork', 'constraints must be an object')
  }
  for (const key of Object.keys(constraints)) {
    if (!KEYS.has(key))
      throw new UsageError('agentNetwork', `constraints.${key} is not a constraint`)
  }
  const minNodes = count('minNodes', constraints.minNodes, 1, 1)
  const maxNodes = count('maxNodes', constraints.maxNodes, Math.max(6, minNodes), minNodes)
  const maxScript = count('maxScript', constraints.maxScript, 3, 1)
  const maxSubnetworks = count('maxSubnetworks', constraints.maxSubnetworks, 0, 0)
  const deliveries = constraints.deliveries ?? ['queue', 'latest', 'debounce']
  const triggers = constraints.triggers ?? ['any', 'all']
  if (deliveries.length === 0 || triggers.length === 0) {
    throw new UsageError('agentNetwork', 'constraints.deliveries and triggers must not be empty')
  }
  return fc.integer({ min: minNodes, max: maxNodes }).chain((n) => {
    const node = fc.record({
      trigger: fc.constantFrom(...triggers),
      script: fc.array(fc.string({ minLength: 1, maxLength: 8 }), {
        minLength: 1,
        maxLength: maxScript,
      }),
    })
    const edge = fc.record({
      from: fc.nat(n - 1),
      to: fc.nat(n - 1),
      oneWay: fc.boolean(),
      delivery: fc.constantFrom(...deliveries),
      ms: fc.integer({ min: 1, max: 50 }),
    })
    const group = fc.record({
      members: fc.uniqueArray(fc.nat(n - 1), { maxLength: n }),
      maxTokens: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
      maxSteps: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
    })
    return fc
      .tuple(
        fc.array(node, { minLength: n, maxLength: n }),
        fc.array(edge, { maxLength: n * 2 }),
        fc.array(group, { maxLength: maxSubnetworks }),
      )
      .map(([nodes, edges, groups]) => {
        let net = emptyNetwork('generated')
        nodes.forEach((d, i) => {
          net = addNode({
            id: `n${i}`,
            trigger: { type: d.trigger },
            provider: { type: 'mock', script: d.script },
          })(net)
        })
        for (const e of edges) {
          if (e.from === e.to) continue
          net = connect(`n${e.from}`, `n${e.to}`, {
            direction: e.oneWay ? 'one-way' : 'both',
            delivery: deliveryOf(e.delivery, e.ms),
          })(net)
        }
        groups.forEach((g, i) => {
          const budget = {
            ...(g.maxTokens !== undefined && { maxTokens: g.maxTokens }),
            ...(g.maxSteps !== undefined && { maxSteps: g.maxSteps }),
          }
          net = defineSubnetwork(`g${i}`, {
            nodes: g.members.map((m) => `n${m}`),
            ...(Object.keys(budget).length > 0 && { budget }),
          })(net)
        })
        return net
      })
  })
}

/**
 * Edits that apply to `net` (node ids from it, plus new ones): add and
 * remove nodes, connect and disconnect, set modes, triggers, deliveries and
 * the workflow, define and remove sub-networks. For laws about {@link change} and live editing.
 *
 * @category arbitraries
 */
export const networkEdit = (net: Network): fc.Arbitrary<NetworkEdit> => {
  const ids = Object.keys(net.nodes)
  const fresh = fc.integer({ min: 0, max: 99 }).map((i) => `x${i}`)
  const any = ids.length === 0 ? fresh : fc.oneof(fc.constantFrom(...ids), fresh)
  const existing = ids.length === 0 ? undefined : fc.constantFrom(...ids)
  const groupIds = Object.keys(net.subnetworks ?? {})
  const options: fc.Arbitrary<NetworkEdit>[] = [
    fc.constantFrom<'planning' | 'implementation'>('planning', 'implementation').map(setWorkflow),
    any.filter((id) => !(id in net.nodes)).map((id) => addNode({ id })),
    any.map(removeNode),
    fc.constantFrom('g0', 'g1', ...groupIds).map(removeSubnetwork),
  ]
  if (existing !== undefined) {
    options.push(
      fc.tuple(existing, existing).map(([a, b]) => connect(a, b)),
      fc.tuple(existing, existing).map(([a, b]) => disconnect(a, b)),
      fc
        .tuple(existing, fc.constantFrom<'auto' | 'interactive'>('auto', 'interactive'))
        .map(([a, m]) => setMode(a, m)),
      fc
        .tuple(existing, fc.constantFrom<'any' | 'all' | 'manual'>('any', 'all', 'manual'))
        .map(([a, t]) => setTrigger(a, { type: t })),
      fc
        .tuple(
          fc.constantFrom('g0', 'g1', ...groupIds),
          fc.uniqueArray(existing, { maxLength: ids.length }),
          fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
        )
        .map(([g, nodes, maxTokens]) =>
          defineSubnetwork(g, { nodes, ...(maxTokens !== undefined && { budget: { maxTokens } }) }),
        ),
    )
    const edges = Object.values(net.edges)
    if (edges.length > 0) {
      options.push(
        fc
          .tuple(
            fc.constantFrom(...edges),
            fc.constantFrom<Delivery>({ type: 'queue' }, { type: 'latest' }),
          )
          .map(([e, d]) => setDelivery(e.from, e.to, d)),
      )
    }
  }
  return fc.oneof(...options)
}

/**
 * A deterministic scheduler for network runs: the `schedule` option of
 * `startNetwork` that offers nodes a firing in an order shuffled by a
 * seeded generator (mulberry32). The same seed gives the same order of
 * calls, so with scripted providers and a fake clock a run is reproducible,
 * and different seeds explore different interleavings.
 *
 * @category schedulers
 * @example
 * import { seededSchedule } from 'nerve-agents/testing'
 * import assert from 'assert'
 *
 * const a = seededSchedule(7)
 * const b = seededSchedule(7)
 * const ids = ['n0', 'n1', 'n2', 'n3']
 * assert.deepStrictEqual([a(ids), a(ids)], [b(ids), b(ids)])
 * assert.deepStrictEqual([...a(ids)].sort(), ids)
 */
export const seededSchedule = (seed: number): ((ids: readonly string[]) => readonly string[]) => {
  if (!Number.isSafeInteger(seed)) {
    throw new UsageError('seededSchedule', `the seed must be a safe integer, got ${String(seed)}`)
  }
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return (ids) => {
    const out = [...ids]
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1))
      const tmp = out[i]!
      out[i] = out[j]!
      out[j] = tmp
    }
    return out
  }
}
