import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import {
  canTransition,
  legalTransitions,
  nodeStates,
  showIllegalTransition,
  transition,
  type NodeState,
} from '../../src/node/NodeState.js'

const LEGAL: readonly [NodeState, NodeState][] = [
  ['created', 'starting'],
  ['created', 'stopped'],
  ['starting', 'ready'],
  ['starting', 'stopping'],
  ['starting', 'stopped'],
  ['ready', 'busy'],
  ['ready', 'stopping'],
  ['busy', 'ready'],
  ['busy', 'stopping'],
  ['stopping', 'stopped'],
]

describe('transition', () => {
  it('allows exactly the documented transitions', () => {
    for (const from of nodeStates) {
      for (const to of nodeStates) {
        const legal = LEGAL.some(([f, t]) => f === from && t === to)
        expect(canTransition(from, to)).toBe(legal)
        expect(transition(from, to)).toEqual(
          legal ? E.right(to) : E.left({ _tag: 'IllegalTransition', from, to }),
        )
      }
    }
  })

  it('never moves a state to itself and never leaves stopped', () => {
    for (const s of nodeStates) expect(canTransition(s, s)).toBe(false)
    expect(legalTransitions.stopped).toEqual([])
  })

  it('rejects values that are not states', () => {
    expect(E.isLeft(transition('nope' as NodeState, 'ready'))).toBe(true)
    expect(E.isLeft(transition('ready', 'nope' as NodeState))).toBe(true)
    expect(canTransition('toString' as NodeState, 'ready')).toBe(false)
  })

  it('renders an illegal transition with both states', () => {
    expect(showIllegalTransition({ _tag: 'IllegalTransition', from: 'stopped', to: 'ready' })).toBe(
      'a node in state "stopped" cannot go to "ready"',
    )
  })

  it('reaches stopped from every state by legal steps (law: the lifecycle always ends)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...nodeStates), fc.array(fc.nat()), (start, picks) => {
        let s: NodeState = start
        for (const p of picks) {
          const next = legalTransitions[s]
          if (next.length === 0) break
          s = next[p % next.length]!
        }
        const seen = new Set<NodeState>()
        while (s !== 'stopped' && !seen.has(s)) {
          seen.add(s)
          s = legalTransitions[s].includes('stopping') ? 'stopping' : legalTransitions[s][0]!
        }
        expect(s).toBe('stopped')
      }),
    )
  })
})
