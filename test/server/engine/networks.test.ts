import { readFileSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { applyChange, type Network, type Patch } from '../../../src/network/index.js'
import type { EngineEvent, NetworkInfo, NetworkPatches } from '../../../src/server/index.js'
import { connectedPeers, type Peer } from '../kit.js'

const connected = connectedPeers()

const review = JSON.parse(
  readFileSync(new URL('../../../examples/review.network.json', import.meta.url), 'utf8'),
) as { id: string }

/** A planner that asks to run a shell command while planning: an approval request. */
const planning = {
  format: 'nerve/network',
  version: 1,
  id: 'plan',
  workflow: 'planning',
  nodes: [
    {
      id: 'planner',
      role: 'Planner',
      tools: ['bash'],
      provider: {
        type: 'mock',
        script: [{ tools: [{ name: 'bash', input: { command: 'echo hi > note.txt' } }] }, 'ok'],
      },
    },
  ],
  edges: [],
}

const errorOf = async (p: Peer, method: string, params: unknown) => {
  const r = await p.call(method, params)
  expect(r.error).toBeDefined()
  return { code: r.error!.code, ...r.error!.data } as { code: number; tag: string; path?: string }
}

const networkEvents = (p: Peer, networkId: string): EngineEvent[] =>
  p.events().filter((e) => (e as { networkId?: string }).networkId === networkId)

describe('network commands', () => {
  it('create, send and stop a network; its events come tagged with its id, in order', async () => {
    const p = await connected()
    const root = await mkdtemp(join(tmpdir(), 'nerve-net-'))
    const { subscription } = await p.ok<{ subscription: string }>('SUBSCRIBE', {
      networkId: 'review',
    })
    const created = await p.ok<NetworkInfo>('CREATE_NETWORK', { network: review, root })
    expect(created).toMatchObject({ networkId: 'review', sessionId: 'default', root })
    expect(created.state).toBe('running')
    expect(Object.keys(created.network.nodes)).toEqual(['writer', 'reviewer'])

    const { envelope } = await p.ok<{ envelope: { fromNodeId: string; toNodeId: string } }>(
      'SEND_ENVELOPE',
      { networkId: 'review', nodeId: 'writer', message: 'Write a haiku about queues' },
    )
    expect(envelope).toMatchObject({ fromNodeId: 'user', toNodeId: 'writer' })
    const stopped = await p.ok<NetworkInfo>('STOP_NETWORK', { networkId: 'review' })
    expect(stopped).toMatchObject({ state: 'finished', outcome: 'done', done: ['writer'] })

    const events = p.events(subscription)
    const types = events.map((e) => e.type)
    // Its creation first, with the network as GET_NETWORK answers it: a reader learns of it at once.
    expect(events[0]).toMatchObject({
      type: 'NETWORK_CREATED',
      networkId: 'review',
      sessionId: 'default',
      info: { networkId: 'review', state: 'running', network: { id: 'review' } },
    })
    expect(types[1]).toBe('ENVELOPE_DELIVERED')
    expect(types).toEqual(
      expect.arrayContaining(['NODE_FIRING', 'NODE_FIRED', 'NODE_DONE', 'NETWORK_COMPLETED']),
    )
    expect(types.at(-1)).toBe('NETWORK_COMPLETED')
    expect(events.every((e) => (e as { networkId?: string }).networkId === 'review')).toBe(true)
    const { envelopes } = await p.ok<{ envelopes: unknown[] }>('GET_ENVELOPES', {
      networkId: 'review',
    })
    expect(envelopes).toHaveLength(stopped.envelopes)
    expect(types.filter((t) => t === 'ENVELOPE_DELIVERED')).toHaveLength(envelopes.length)
    const { networks } = await p.ok<{ networks: NetworkInfo[] }>('LIST_NETWORKS')
    expect(networks.map((n) => [n.networkId, n.outcome])).toEqual([['review', 'done']])
  })

  it('publish live edits as patches that take a mirrored network to the new one; undo applies the inverse', async () => {
    const p = await connected()
    await p.ok('SUBSCRIBE', { networkId: 'live' })
    await p.ok('CREATE_NETWORK', { network: review, networkId: 'live', root: tmpdir() })
    const before = (await p.ok<NetworkInfo>('GET_NETWORK', { networkId: 'live' })).network
    const set = await p.ok<NetworkPatches>('SET_NODE_MODE', {
      networkId: 'live',
      nodeId: 'reviewer',
      mode: 'auto',
    })
    expect(set.patches).toEqual([
      { op: 'replace', path: ['nodes', 'reviewer', 'mode'], value: 'auto' },
    ])
    const edited = await p.ok<NetworkPatches>('EDIT_NETWORK', {
      networkId: 'live',
      patches: [{ op: 'replace', path: ['limits', 'maxIterations'], value: 7 }],
    })
    await p.ok('SET_WORKFLOW_MODE', { networkId: 'live', workflow: 'planning' })
    const after = (await p.ok<NetworkInfo>('GET_NETWORK', { networkId: 'live' })).network
    expect(after.limits.maxIterations).toBe(7)
    expect(after.workflow).toBe('planning')

    const patched = networkEvents(p, 'live').filter((e) => e.type === 'NETWORK_PATCHED')
    expect(patched).toHaveLength(3)
    const mirrored = patched.reduce(
      (net, e) => applyChange((e as unknown as { patches: Patch[] }).patches)(net),
      before,
    )
    expect(mirrored).toEqual(after)

    expect(await p.ok('UNDO_NETWORK', { networkId: 'live' })).toEqual({ undone: true })
    const undone = (await p.ok<NetworkInfo>('GET_NETWORK', { networkId: 'live' })).network
    expect(undone.workflow).toBe('implementation')
    expect(applyChange(edited.inverse)(undone).limits.maxIterations).toBe(
      before.limits.maxIterations,
    )
    await p.ok('CANCEL_NETWORK', { networkId: 'live' })
  })

  it('ask for approvals as events and take the decision from APPROVE', async () => {
    const p = await connected()
    const root = await mkdtemp(join(tmpdir(), 'nerve-net-'))
    await p.ok('SUBSCRIBE', { networkId: 'plan' })
    await p.ok('CREATE_NETWORK', { network: planning, root })
    await p.ok('SEND_ENVELOPE', { networkId: 'plan', nodeId: 'planner', message: 'look' })
    const asked = await p.waitFor((e) => e.type === 'APPROVAL_REQUESTED', 15_000)
    const request = (asked as unknown as { request: { id: string; target: string } }).request
    expect(request.target).toBe('echo hi > note.txt')
    const info = await p.ok<NetworkInfo>('GET_NETWORK', { networkId: 'plan' })
    expect(info.pending.map((r) => r.id)).toEqual([request.id])

    expect(await errorOf(p, 'APPROVE', { networkId: 'plan', requestId: 'nope' })).toMatchObject({
      tag: 'UnknownApproval',
      path: '/requestId',
    })
    await p.ok('APPROVE', { networkId: 'plan', requestId: request.id, by: 'ana' })
    const decided = await p.waitFor((e) => e.type === 'APPROVAL_DECIDED')
    expect(decided).toMatchObject({ decision: { decision: 'approved', by: 'ana' } })
    await p.ok('STOP_NETWORK', { networkId: 'plan' })
    expect(readFileSync(join(root, 'note.txt'), 'utf8')).toBe('hi\n')
  })

  it('pause, resume and cancel; a cancelled network ends cancelled', async () => {
    const p = await connected()
    await p.ok('CREATE_NETWORK', { network: review, root: tmpdir() })
    expect((await p.ok<NetworkInfo>('PAUSE_NETWORK', { networkId: 'review' })).state).toBe('paused')
    expect((await p.ok<NetworkInfo>('RESUME_NETWORK', { networkId: 'review' })).state).toBe(
      'running',
    )
    const cancelled = await p.ok<NetworkInfo>('CANCEL_NETWORK', { networkId: 'review' })
    expect(cancelled).toMatchObject({ state: 'finished', outcome: 'cancelled' })
    expect(await p.ok<NetworkInfo>('STOP_NETWORK', { networkId: 'review' })).toEqual(cancelled)
    const types = networkEvents(p, 'review').map((e) => e.type)
    expect(types).toEqual([]) // nobody subscribed
  })

  it('answer bad input with a typed error naming where, and change nothing', async () => {
    const p = await connected()
    const bad = { ...review, nodes: [{ id: 'a', provider: { type: 'mock', script: 3 } }] }
    expect(await errorOf(p, 'CREATE_NETWORK', { network: bad })).toMatchObject({
      tag: 'NetworkFileInvalid',
      path: '/network/nodes/0/provider/script',
    })
    expect(await errorOf(p, 'GET_NETWORK', { networkId: 'ghost' })).toMatchObject({
      tag: 'UnknownNetwork',
      path: '/networkId',
    })
    await p.ok('SUBSCRIBE', { networkId: 'review' })
    await p.ok('CREATE_NETWORK', { network: review, root: tmpdir() })
    const before = (await p.ok<NetworkInfo>('GET_NETWORK', { networkId: 'review' })).network
    expect(await errorOf(p, 'CREATE_NETWORK', { network: review })).toMatchObject({
      tag: 'NetworkExists',
      path: '/networkId',
    })
    expect(
      await errorOf(p, 'SEND_ENVELOPE', { networkId: 'review', nodeId: 'ghost', message: 'x' }),
    ).toMatchObject({ tag: 'UnknownNetworkNode', path: '/nodeId' })
    expect(
      await errorOf(p, 'EDIT_NETWORK', {
        networkId: 'review',
        patches: [{ op: 'remove', path: ['nodes', 'reviewer'] }],
      }),
    ).toMatchObject({ tag: 'InvalidPatch', path: '/patches' })
    expect(
      await errorOf(p, 'EDIT_NETWORK', {
        networkId: 'review',
        patches: [{ op: 'replace', path: ['nodes', 'ghost', 'mode'], value: 'auto' }],
      }),
    ).toMatchObject({ tag: 'InvalidPatch', path: '/patches' })
    // What is wrong is said where the patch pointed, in the network value (edges by id).
    const negative = await p.call('EDIT_NETWORK', {
      networkId: 'review',
      patches: [
        {
          op: 'replace',
          path: ['edges', 'writer<->reviewer', 'delivery'],
          value: { type: 'debounce', ms: -5 },
        },
      ],
    })
    expect(negative.error?.message).toBe(
      'the patched network is not valid: /edges/writer<->reviewer/delivery/ms: expected a number ≥ 0, got -5',
    )
    expect(negative.error?.data).toMatchObject({
      tag: 'InvalidPatch',
      errors: [{ _tag: 'WrongType', path: '/edges/writer<->reviewer/delivery/ms' }],
    })
    expect(
      await errorOf(p, 'SET_NODE_MODE', { networkId: 'review', nodeId: 'writer', mode: 'fast' }),
    ).toMatchObject({ tag: 'InvalidParams', path: '/mode' })
    const net: Network = (await p.ok<NetworkInfo>('GET_NETWORK', { networkId: 'review' })).network
    expect(net).toEqual(before)
    expect(networkEvents(p, 'review').filter((e) => e.type === 'NETWORK_PATCHED')).toEqual([])
  })

  it('edit the network’s own settings (workflow, limits, budget, sub-networks) as strictly as its file', async () => {
    const p = await connected()
    await p.ok('CREATE_NETWORK', { network: review, networkId: 'own', root: tmpdir() })
    const before = (await p.ok<NetworkInfo>('GET_NETWORK', { networkId: 'own' })).network
    const settings = [
      { op: 'replace', path: ['workflow'], value: 'planning' },
      { op: 'replace', path: ['limits', 'stallAfter'], value: 5 },
      { op: 'add', path: ['budget'], value: { maxTokens: 900, maxCost: 2 } },
      {
        op: 'add',
        path: ['subnetworks'],
        value: { pair: { id: 'pair', nodes: ['writer', 'reviewer'], budget: { maxSteps: 4 } } },
      },
    ]
    await p.ok('EDIT_NETWORK', { networkId: 'own', patches: settings })
    const after = (await p.ok<NetworkInfo>('GET_NETWORK', { networkId: 'own' })).network
    expect(after).toMatchObject({
      workflow: 'planning',
      limits: { ...before.limits, stallAfter: 5 },
      budget: { maxTokens: 900, maxCost: 2 },
      subnetworks: { pair: { id: 'pair', nodes: ['writer', 'reviewer'] } },
    })
    const refused = async (patch: object) => {
      const r = await p.call('EDIT_NETWORK', { networkId: 'own', patches: [patch] })
      expect(r.error?.data).toMatchObject({ tag: 'InvalidPatch', path: '/patches' })
      return r.error!.message.replace('the patched network is not valid: ', '')
    }
    expect(await refused({ op: 'replace', path: ['limits', 'maxIterations'], value: -1 })).toBe(
      '/limits/maxIterations: expected a whole number ≥ 1, got -1',
    )
    expect(await refused({ op: 'replace', path: ['budget', 'maxCost'], value: -2 })).toBe(
      '/budget/maxCost: expected a number ≥ 0, got -2',
    )
    expect(
      await refused({
        op: 'add',
        path: ['subnetworks', 'x'],
        value: { id: 'x', nodes: ['ghost'] },
      }),
    ).toBe('/subnetworks/x/nodes/0: no node "ghost" in the network')
    // What the file format would quietly fill in or leave out is refused, not run.
    expect(await refused({ op: 'remove', path: ['limits', 'stallAfter'] })).toBe(
      '/limits/stallAfter: is required',
    )
    expect(await refused({ op: 'remove', path: ['workflow'] })).toBe('/workflow: is required')
    expect(await refused({ op: 'add', path: ['colour'], value: 'red' })).toBe(
      '/colour: is not a known key',
    )
    expect(
      await refused({ op: 'add', path: ['subnetworks', 'x'], value: { id: 'y', nodes: [] } }),
    ).toBe('/subnetworks/x/id: expected "x", got "y"')
    expect((await p.ok<NetworkInfo>('GET_NETWORK', { networkId: 'own' })).network).toEqual(after)
    expect(await p.ok('UNDO_NETWORK', { networkId: 'own' })).toEqual({ undone: true })
    expect((await p.ok<NetworkInfo>('GET_NETWORK', { networkId: 'own' })).network).toEqual(before)
    await p.ok('CANCEL_NETWORK', { networkId: 'own' })
  })
})
