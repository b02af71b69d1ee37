/**
 * The patches the dashboard's network edits send (src/web/networkPatches.ts),
 * of its nodes, edges, sub-networks and its own settings,
 * checked against the daemon's own rules: applied to a network they make
 * exactly the edit asked for, and the network they leave is one the daemon
 * accepts (`checkPatches`, what `EDIT_NETWORK` runs first).
 */
import fc from 'fast-check'
import { applyPatches, enablePatches, type Patch as ImmerPatch } from 'immer'
import { describe, expect, it } from 'vitest'
import type { Network } from '../../src/network/index.js'
import { checkPatches } from '../../src/server/engine/networks.js'
import { agentNetwork } from '../../src/testing/index.js'
import {
  addSubnetworkPatches,
  directionPatches,
  fieldPatch,
  nodePatches,
  removeNodePatches,
  removeSubnetworkPatches,
  settingsPatches,
  subnetworkPatches,
  type Patch,
} from '../../src/web/networkPatches.js'

enablePatches()

const applied = (net: Network, patches: readonly Patch[]): Network =>
  applyPatches(net, patches as ImmerPatch[])

const networks = agentNetwork({ maxNodes: 5, maxSubnetworks: 2 })

/** A node's editable fields, some absent. */
const fields = fc.record(
  {
    role: fc.constantFrom('Coder', 'Verifier', 'Reviewer'),
    mode: fc.constantFrom('interactive', 'auto'),
    trigger: fc.oneof(
      fc.constantFrom({ type: 'any' }, { type: 'all' }, { type: 'manual' }),
      fc.integer({ min: 1, max: 10_000 }).map((everyMs) => ({ type: 'scheduled', everyMs })),
    ),
    provider: fc.constant({ type: 'mock', script: ['ok'] }),
    system: fc.string({ maxLength: 8 }),
    tools: fc.subarray(['read', 'grep', 'bash']),
    prompt: fc.string({ minLength: 1, maxLength: 8 }),
    budget: fc.record({ maxTokens: fc.nat(), maxCost: fc.nat() }, { requiredKeys: [] }),
    acceptance: fc.record({ command: fc.constant('true') }),
    assignment: fc.subarray(['src/', 'docs/']),
  },
  { requiredKeys: ['role', 'mode', 'trigger', 'provider', 'system', 'tools'] },
)

describe('the patches of the page’s network edits', () => {
  it('fieldPatch makes before into after, and is empty when they are the same', () => {
    // immer copies a patch's value, and a copy cannot keep an own "__proto__" key: no page sends one
    const json = fc.jsonValue().filter((v) => !JSON.stringify(v).includes('"__proto__"'))
    const value = fc.option(json, { nil: undefined })
    fc.assert(
      fc.property(value, value, (before, after) => {
        const doc: Record<string, unknown> = before === undefined ? {} : { k: before }
        const patches = fieldPatch(['k'], before, after)
        expect(applyPatches(doc, patches as ImmerPatch[])).toEqual(
          after === undefined ? {} : { k: after },
        )
        if (JSON.stringify(before) === JSON.stringify(after)) expect(patches).toEqual([])
      }),
    )
  })

  it('nodePatches make the node exactly the form’s fields, and the daemon accepts the result', () => {
    fc.assert(
      fc.property(networks, fields, (net, after) => {
        const node = Object.values(net.nodes)[0]!
        const patches = nodePatches(node, after)
        expect(applied(net, patches).nodes[node.id]).toEqual({ id: node.id, ...after })
        expect(() => {
          checkPatches(net, patches as ImmerPatch[])
        }).not.toThrow()
      }),
    )
  })

  it('removeNodePatches take the node, every edge touching it and its sub-network places, as the daemon accepts', () => {
    fc.assert(
      fc.property(
        networks.chain((net) =>
          fc.tuple(fc.constant(net), fc.constantFrom(...Object.keys(net.nodes))),
        ),
        ([net, id]) => {
          const patches = removeNodePatches(net, id)
          const next = applied(net, patches)
          expect(next.nodes[id]).toBeUndefined()
          expect(Object.values(next.edges).filter((e) => e.from === id || e.to === id)).toEqual([])
          for (const g of Object.values(next.subnetworks ?? {})) expect(g.nodes).not.toContain(id)
          expect(Object.keys(next.nodes)).toHaveLength(Object.keys(net.nodes).length - 1)
          expect(() => {
            checkPatches(net, patches as ImmerPatch[])
          }).not.toThrow()
        },
      ),
    )
  })

  it('directionPatches move an edge to the id of its new direction, its delivery kept', () => {
    const withEdge = networks.filter((n) => Object.keys(n.edges).length > 0)
    fc.assert(
      fc.property(withEdge, fc.constantFrom('both', 'one-way'), (net, direction) => {
        const edge = Object.values(net.edges)[0]!
        const next = applied(net, directionPatches(edge, direction))
        const id = direction === 'both' ? `${edge.from}<->${edge.to}` : `${edge.from}->${edge.to}`
        expect(next.edges[id]).toEqual({ ...edge, id, direction })
        if (id !== edge.id) expect(next.edges[edge.id]).toBeUndefined()
        expect(Object.keys(next.edges)).toHaveLength(Object.keys(net.edges).length)
      }),
    )
  })

  const budget = fc.record(
    { maxSteps: fc.nat(), maxTokens: fc.nat(), maxCost: fc.nat() },
    { requiredKeys: [] },
  )
  const settings = fc.record(
    {
      workflow: fc.constantFrom('planning', 'implementation'),
      limits: fc.record({
        maxInFlight: fc.integer({ min: 1, max: 9 }),
        maxIterations: fc.integer({ min: 1, max: 99 }),
        stallAfter: fc.integer({ min: 1, max: 9 }),
        maxSpawned: fc.nat(9),
      }),
      budget: budget.filter((b) => Object.keys(b).length > 0),
    },
    { requiredKeys: ['workflow', 'limits'] },
  )

  it('settingsPatches make the network’s settings exactly the form’s, one patch per change, as the daemon accepts', () => {
    fc.assert(
      fc.property(networks, settings, (net, after) => {
        const patches = settingsPatches(net, after)
        const next = applied(net, patches)
        expect({ workflow: next.workflow, limits: next.limits, budget: next.budget }).toEqual({
          budget: undefined,
          ...after,
        })
        expect(applied(next, settingsPatches(next, after))).toBe(next)
        expect(settingsPatches(next, after)).toEqual([])
        expect(() => {
          checkPatches(net, patches as ImmerPatch[])
        }).not.toThrow()
      }),
    )
  })

  it('a sub-network added then removed leaves the network as it was, each step accepted by the daemon', () => {
    const cases = networks.chain((net) =>
      fc.tuple(
        fc.constant(net),
        fc.constantFrom('g0', 'g1', 'pair', 'team'),
        fc.subarray(Object.keys(net.nodes)),
        budget,
      ),
    )
    fc.assert(
      fc.property(cases, ([net, id, nodes, b]) => {
        const group = { id, nodes, ...(Object.keys(b).length > 0 && { budget: b }) }
        const add = addSubnetworkPatches(net, group)
        if (net.subnetworks?.[id] !== undefined) {
          expect(add).toBeUndefined()
          return
        }
        const added = applied(net, add!)
        expect(added.subnetworks?.[id]).toEqual(group)
        expect(() => {
          checkPatches(net, add as ImmerPatch[])
        }).not.toThrow()
        const remove = removeSubnetworkPatches(added, id)
        expect(applied(added, remove)).toEqual(net)
        expect(() => {
          checkPatches(added, remove as ImmerPatch[])
        }).not.toThrow()
      }),
    )
  })

  it('subnetworkPatches make a sub-network exactly the form’s members and budget, only what changed, as the daemon accepts', () => {
    const withGroup = networks.filter((n) => Object.keys(n.subnetworks ?? {}).length > 0)
    const cases = withGroup.chain((net) =>
      fc.tuple(
        fc.constant(net),
        fc.constantFrom(...Object.values(net.subnetworks!)),
        fc.subarray(Object.keys(net.nodes)),
        budget,
      ),
    )
    fc.assert(
      fc.property(cases, ([net, group, nodes, b]) => {
        const after = { nodes, ...(Object.keys(b).length > 0 && { budget: b }) }
        const patches = subnetworkPatches(group, after)
        const next = applied(net, patches).subnetworks![group.id]!
        expect(new Set(next.nodes)).toEqual(new Set(nodes))
        expect(next.budget).toEqual(after.budget)
        expect(() => {
          checkPatches(net, patches as ImmerPatch[])
        }).not.toThrow()
        // Nothing else changes; the same members in another order are no change.
        expect({ ...applied(net, patches), subnetworks: net.subnetworks }).toEqual(net)
        expect(subnetworkPatches(next, { ...after, nodes: [...nodes].reverse() })).toEqual([])
        const sameMembers =
          new Set(group.nodes).size === new Set(nodes).size &&
          nodes.every((n) => group.nodes.includes(n))
        expect(patches.some((p) => p.path.at(-1) === 'nodes')).toBe(!sameMembers)
      }),
    )
  })
})
