import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addNode,
  applyChange,
  change,
  connect,
  defineSubnetwork,
  disconnect,
  loops,
  network,
  removeNode,
  removeSubnetwork,
  role,
  subnetworksOf,
  routesFrom,
  routesInto,
  setBudget,
  setDelivery,
  setLimits,
  setMode,
  setProvider,
  setRole,
  setTrigger,
  setWorkflow,
  UsageError,
} from 'nerve-agents'
import { agentNetwork, networkEdit } from 'nerve-agents/testing'

const pair = pipe(network('team'), addNode({ id: 'a' }), addNode({ id: 'b' }))

describe('network builders', () => {
  it('build frozen values and leave their input untouched', () => {
    const net = pipe(pair, connect('a', 'b'))
    expect(Object.isFrozen(net.nodes.a)).toBe(true)
    expect(Object.isFrozen(net.edges)).toBe(true)
    expect(Object.keys(pair.edges)).toEqual([])
  })

  it('connect bidirectionally by default, one way when asked', () => {
    const both = pipe(pair, connect('a', 'b'))
    expect(routesFrom(both, 'b').map((r) => r.to)).toEqual(['a'])
    expect(routesInto(both, 'b').map((r) => r.from)).toEqual(['a'])
    const oneWay = pipe(pair, connect('a', 'b', { direction: 'one-way' }))
    expect(routesFrom(oneWay, 'b')).toEqual([])
    expect(routesInto(oneWay, 'b').map((r) => r.edge.id)).toEqual(['a->b'])
  })

  it('join two nodes by at most one edge: connecting again replaces it', () => {
    const net = pipe(pair, connect('a', 'b'), connect('b', 'a', { direction: 'one-way' }))
    expect(Object.keys(net.edges)).toEqual(['b->a'])
    expect(pipe(net, disconnect('a', 'b')).edges).toEqual({})
  })

  it('return the same network when an edit changes nothing', () => {
    const net = pipe(pair, connect('a', 'b'))
    expect(pipe(net, connect('a', 'b'))).toBe(net)
    expect(pipe(net, setMode('a', 'interactive'))).toBe(net)
    expect(pipe(net, disconnect('a', 'zzz'))).toBe(net)
    expect(pipe(net, removeNode('zzz'))).toBe(net)
    expect(pipe(net, setTrigger('a', { type: 'any' }))).toBe(net)
  })

  it('remove a node with the edges that touch it', () => {
    const net = pipe(
      pair,
      addNode({ id: 'c' }),
      connect('a', 'b'),
      connect('b', 'c'),
      removeNode('b'),
    )
    expect(Object.keys(net.nodes)).toEqual(['a', 'c'])
    expect(net.edges).toEqual({})
  })

  it('apply roles: built-in by name, user-defined by value', () => {
    const reviewer = role('Reviewer', { system: 'Review.', tools: ['read'], mode: 'auto' })
    const net = pipe(pair, setRole('a', 'Verifier'), setRole('b', reviewer))
    expect(net.nodes.a!.role).toBe('Verifier')
    expect(net.nodes.a!.tools).toContain('bash')
    expect(net.nodes.b).toMatchObject({ role: 'Reviewer', system: 'Review.', mode: 'auto' })
    expect(() => setRole('a', 'Wizard')).toThrow(/no built-in role "Wizard"/)
  })

  it('set every field through a checked builder', () => {
    const net = pipe(
      pair,
      connect('a', 'b'),
      setDelivery('a', 'b', { type: 'debounce', ms: 20 }),
      setProvider('a', { type: 'mock', script: ['hi'] }),
      setBudget('a', { maxTokens: 100 }),
      setWorkflow('planning'),
      setLimits({ maxInFlight: 2 }),
    )
    expect(net.edges['a<->b']!.delivery).toEqual({ type: 'debounce', ms: 20 })
    expect(net.nodes.a!.budget).toEqual({ maxTokens: 100 })
    expect(net.workflow).toBe('planning')
    expect(net.limits.maxInFlight).toBe(2)
    expect(pipe(net, setBudget('a', undefined)).nodes.a!.budget).toBeUndefined()
  })

  it('refuse misuse with a UsageError naming the API and the value', () => {
    expect(() => pipe(pair, addNode({ id: 'a' }))).toThrow(
      /addNode\(\): the network "team" already has a node "a"/,
    )
    expect(() => pipe(pair, connect('a', 'ghost'))).toThrow(
      /connect\(\): the network "team" has no node "ghost"/,
    )
    expect(() => connect('a', 'b', { delivery: { type: 'debounce', ms: -1 } })).toThrow(UsageError)
    expect(() => addNode({ id: 'bad id' })).toThrow(/the node id/)
    expect(() => addNode({ id: 'a', colour: 'red' } as never)).toThrow(
      /"colour" is not a node field/,
    )
    expect(() => pipe(pair, setDelivery('a', 'b', { type: 'queue' }))).toThrow(/no edge joins/)
  })

  it('define sub-networks of existing nodes, which removing a node leaves', () => {
    const trio = pipe(pair, addNode({ id: 'c' }))
    const net = pipe(
      trio,
      defineSubnetwork('impl', { nodes: ['a', 'b', 'a'], budget: { maxTokens: 50 } }),
      defineSubnetwork('all', { nodes: ['a', 'b', 'c'] }),
    )
    expect(net.subnetworks!.impl).toEqual({
      id: 'impl',
      nodes: ['a', 'b'],
      budget: { maxTokens: 50 },
    })
    expect(Object.isFrozen(net.subnetworks!.impl!.nodes)).toBe(true)
    expect(subnetworksOf(net, 'a').map((g) => g.id)).toEqual(['impl', 'all'])
    expect(subnetworksOf(net, 'c').map((g) => g.id)).toEqual(['all'])
    const same = defineSubnetwork('impl', { nodes: ['a', 'b'], budget: { maxTokens: 50 } })(net)
    expect(same).toBe(net)
    const without = removeNode('a')(net)
    expect(without.subnetworks!.impl!.nodes).toEqual(['b'])
    expect(without.subnetworks!.all!.nodes).toEqual(['b', 'c'])
    expect(pipe(net, removeSubnetwork('impl'), removeSubnetwork('all'))).toEqual(trio)
    expect(removeSubnetwork('nope')(net)).toBe(net)
    expect(() => defineSubnetwork('x', { nodes: ['ghost'] })(net)).toThrow(
      /defineSubnetwork.*no node "ghost"/,
    )
    expect(() => defineSubnetwork('x', { nodes: ['a'], budget: { maxTokens: -1 } })).toThrow(
      /sub-network "x": budget/,
    )
    expect(() => defineSubnetwork('bad id', { nodes: [] })).toThrow(UsageError)
  })

  it('find the loops of a network, self-loops and cycles', () => {
    const net = pipe(
      network('n'),
      addNode({ id: 'a' }),
      addNode({ id: 'b' }),
      addNode({ id: 'c' }),
      addNode({ id: 'd' }),
      connect('a', 'b', { direction: 'one-way' }),
      connect('b', 'c', { direction: 'one-way' }),
      connect('c', 'a', { direction: 'one-way' }),
      connect('c', 'd', { direction: 'one-way' }),
    )
    expect(loops(net)).toEqual([['a', 'b', 'c']])
  })
})

describe('change', () => {
  it('gives the patches of an edit and their inverse', () => {
    const { network: next, patches, inverse } = change(connect('a', 'b'))(pair)
    expect(patches).toEqual([
      {
        op: 'add',
        path: ['edges', 'a<->b'],
        value: { id: 'a<->b', from: 'a', to: 'b', direction: 'both', delivery: { type: 'queue' } },
      },
    ])
    expect(inverse).toEqual([{ op: 'remove', path: ['edges', 'a<->b'] }])
    expect(applyChange(inverse)(next)).toEqual(pair)
  })

  const edited = agentNetwork({ maxNodes: 5, maxSubnetworks: 2 }).chain((net) =>
    fc.tuple(fc.constant(net), fc.array(networkEdit(net), { minLength: 1, maxLength: 4 })),
  )
  const safely = (f: () => unknown): boolean => {
    try {
      f()
      return true
    } catch (e) {
      if (e instanceof UsageError) return false
      throw e
    }
  }

  it('law: applying the patches gives the next network, the inverse gives the one before', () => {
    fc.assert(
      fc.property(edited, ([net, edits]) => {
        let result: ReturnType<ReturnType<typeof change>> | undefined
        if (!safely(() => (result = change(...edits)(net)))) return
        const { network: next, patches, inverse } = result!
        expect(applyChange(patches)(net)).toEqual(next)
        expect(applyChange(inverse)(next)).toEqual(net)
        expect(next).toEqual(edits.reduce((n, e) => e(n), net))
      }),
    )
  })

  it('law: a change without patches returns its input', () => {
    fc.assert(
      fc.property(edited, ([net, edits]) => {
        let result: ReturnType<ReturnType<typeof change>> | undefined
        if (!safely(() => (result = change(...edits)(net)))) return
        if (result!.patches.length === 0) expect(result!.network).toBe(net)
      }),
    )
  })
})
