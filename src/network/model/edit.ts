/**
 * A network as a value edited through immer: a new network, the edits of
 * the whole network (workflow, limits), and {@link change}, which runs
 * edits as one change with JSON patches and inverse patches, and
 * {@link applyChange}. Node and edge edits live in nodeEdits and edgeEdits.
 */
import { applyPatches, enablePatches, produce, produceWithPatches, type Patch } from 'immer'
import { UsageError } from '../../errors.js'
import type { Budget } from '../../runtime/index.js'
import {
  edit,
  requireId,
  requireNetwork,
  type NetworkChange,
  type NetworkEdit,
} from './editCore.js'
import { defaultLimits, type Limits, type Network, type WorkflowMode } from './Network.js'
import { BudgetCodec, checked, LimitsCodec, WorkflowCodec } from './parts.js'

enablePatches()

export type { NetworkChange, NetworkEdit } from './editCore.js'

/**
 * A new, empty network.
 *
 * @category network builders
 * @example
 * import { network } from 'nerve-agents'
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
 * import { addNode, applyChange, change, network, setMode } from 'nerve-agents'
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

/**
 * An edit made of JSON patches (a client's, or those of {@link change}):
 * through {@link change} it yields the same patches and their inverse.
 *
 * @category network builders
 * @example
 * import { addNode, change, fromPatches, network } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const net = pipe(network('team'), addNode({ id: 'a' }))
 * const patches = [{ op: 'replace' as const, path: ['nodes', 'a', 'mode'], value: 'auto' }]
 * const c = change(fromPatches(patches))(net)
 * assert.strictEqual(c.network.nodes.a?.mode, 'auto')
 * assert.deepStrictEqual(c.patches, patches)
 */
export const fromPatches = (patches: readonly Patch[]): NetworkEdit =>
  edit(`patches(${patches.length})`, (draft) => {
    applyPatches(draft, patches as Patch[])
  })

export type { Patch } from 'immer'
