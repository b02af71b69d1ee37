import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import {
  decodeNetwork,
  encodeNetwork,
  type NetworkFileError,
  showNetworkFileError,
} from 'nerve-agents/network'
import { agentNetwork } from 'nerve-agents/testing'

const errorsOf = (u: unknown): readonly NetworkFileError[] => {
  const r = decodeNetwork(u)
  return E.isLeft(r) ? r.left : []
}

describe('network files', () => {
  it('decode a team with built-in and user-defined roles', () => {
    const r = decodeNetwork({
      format: 'nerve/network',
      version: 1,
      id: 'team',
      workflow: 'planning',
      roles: { Scout: { system: 'Look around.', mode: 'auto' } },
      nodes: [
        { id: 'plan', role: 'Planner', provider: { type: 'mock', script: ['ok'] } },
        { id: 'scout', role: 'Scout', trigger: { type: 'scheduled', everyMs: 1000 } },
      ],
      edges: [
        { from: 'plan', to: 'scout', direction: 'one-way', delivery: { type: 'debounce', ms: 5 } },
      ],
    })
    expect(E.isRight(r)).toBe(true)
    const net = (r as E.Right<import('nerve-agents').Network>).right
    expect(net.workflow).toBe('planning')
    expect(net.nodes.scout).toMatchObject({ role: 'Scout', system: 'Look around.', mode: 'auto' })
    expect(net.edges['plan->scout']!.delivery).toEqual({ type: 'debounce', ms: 5 })
  })

  it('name duplicate ids, unknown nodes in edges and unknown roles with their JSON path', () => {
    const errors = errorsOf({
      id: 'team',
      nodes: [{ id: 'a' }, { id: 'a' }, { id: 'b', role: 'Wizard' }],
      edges: [
        { from: 'a', to: 'ghost' },
        { from: 'b', to: 'a' },
        { from: 'a', to: 'b' },
      ],
    })
    expect(errors).toEqual([
      { _tag: 'DuplicateId', path: '/nodes/1/id', id: 'a' },
      { _tag: 'UnknownRole', path: '/nodes/2/role', role: 'Wizard' },
      { _tag: 'UnknownNode', path: '/edges/0/to', ref: 'ghost' },
      { _tag: 'DuplicateEdge', path: '/edges/2', from: 'a', to: 'b' },
    ])
    expect(errors.map(showNetworkFileError)[2]).toBe('/edges/0/to: no node "ghost" in the network')
  })

  it('are strict: unknown keys, bad delivery options and bad names are errors', () => {
    expect(
      errorsOf({
        id: 'bad id',
        colour: 'red',
        nodes: [{ id: 'a', trigger: { type: 'scheduled', cron: 'every day' } }],
        edges: [{ from: 'a', to: 'a', delivery: { type: 'debounce', ms: -3 } }],
      }),
    ).toEqual([
      { _tag: 'UnknownKey', path: '/colour' },
      {
        _tag: 'WrongType',
        path: '/nodes/0/trigger/cron',
        expected: 'a cron expression (5 or 6 fields)',
        actual: 'every day',
      },
      { _tag: 'WrongType', path: '/edges/0/delivery/ms', expected: 'a number ≥ 0', actual: -3 },
    ])
    expect(errorsOf({ id: 'x y', nodes: [] })).toEqual([
      {
        _tag: 'InvalidName',
        path: '/id',
        reason: expect.stringContaining('is not a valid name') as string,
      },
    ])
    expect(errorsOf({ id: 'x' })).toEqual([{ _tag: 'MissingKey', path: '/nodes' }])
  })

  it('decode how a CLI agent node runs (model, own config, forward target), strictly', () => {
    const provider = {
      type: 'cli',
      agent: 'codex-cli',
      model: 'gpt-5',
      ownConfig: true,
      forward: 'https://gateway.example/openai',
    }
    const r = decodeNetwork({ id: 'cli', nodes: [{ id: 'a', provider }] })
    expect(E.isRight(r) && r.right.nodes.a!.provider).toEqual(provider)
    expect(
      errorsOf({
        id: 'cli',
        nodes: [
          {
            id: 'a',
            provider: { type: 'cli', agent: 'gemini-cli', forward: 'gateway', home: '/h' },
          },
        ],
      }),
    ).toEqual([
      { _tag: 'UnknownKey', path: '/nodes/0/provider/home' },
      {
        _tag: 'WrongType',
        path: '/nodes/0/provider/forward',
        expected: 'an http(s) URL',
        actual: 'gateway',
      },
    ])
  })

  it('decode sub-networks, naming unknown nodes and repeated ids with their path', () => {
    const file = {
      id: 'team',
      nodes: [{ id: 'a' }, { id: 'b' }],
      subnetworks: [{ id: 'pair', nodes: ['a', 'b'], budget: { maxCost: 2 } }],
    }
    const r = decodeNetwork(file)
    expect(E.isRight(r) && r.right.subnetworks).toEqual({
      pair: { id: 'pair', nodes: ['a', 'b'], budget: { maxCost: 2 } },
    })
    const errors = errorsOf({
      ...file,
      subnetworks: [
        { id: 'pair', nodes: ['a', 'ghost'] },
        { id: 'pair', nodes: [], budget: { maxTokens: 'lots' } },
      ],
    })
    expect(errors).toEqual([
      {
        _tag: 'WrongType',
        path: '/subnetworks/1/budget/maxTokens',
        expected: expect.any(String) as string,
        actual: 'lots',
      },
    ])
    const named = errorsOf({
      ...file,
      subnetworks: [
        { id: 'pair', nodes: ['a', 'ghost'] },
        { id: 'pair', nodes: [] },
      ],
    })
    expect(named).toEqual([
      { _tag: 'UnknownNode', path: '/subnetworks/0/nodes/1', ref: 'ghost' },
      { _tag: 'DuplicateSubnetwork', path: '/subnetworks/1/id', id: 'pair' },
    ])
    expect(named.map(showNetworkFileError)[1]).toBe(
      '/subnetworks/1/id: the sub-network id "pair" is already used',
    )
  })

  it('law: encoding then decoding gives the same network', () => {
    fc.assert(
      fc.property(agentNetwork({ maxSubnetworks: 3 }), (net) => {
        expect(decodeNetwork(JSON.parse(JSON.stringify(encodeNetwork(net))))).toEqual(E.right(net))
      }),
    )
  })
})
