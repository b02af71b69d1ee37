import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { causalOrder } from '../../../src/conversation/codec/buildDag.js'
import type { Conversation } from '../../../src/conversation/Entry.js'
import { ancestorsOfAll } from '../../../src/dag/traverse.js'
import { vertex } from '../../../src/dag/Vertex.js'

const say = (i: number) => ({ type: 'message', role: 'user', content: `m${i % 5}` }) as const

/**
 * A DAG of user messages (vertex i has up to three parents among 0..i-1, or
 * none) built twice: in the second copy some vertices are the first copy's
 * objects and the others are built again from equal content, so they are
 * distinct objects with the ids of the first copy's. Some heads of each.
 */
const twinDags = fc
  .record({
    plan: fc.array(fc.array(fc.nat(), { maxLength: 3 }), { minLength: 1, maxLength: 20 }),
    rebuilt: fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
    picks: fc.array(fc.tuple(fc.boolean(), fc.nat()), { minLength: 1, maxLength: 5 }),
  })
  .map(({ plan, rebuilt, picks }) => {
    const build = (fresh: (i: number) => boolean, from: Conversation[]): Conversation[] => {
      const vs: Conversation[] = []
      plan.forEach((ps, i) => {
        const parents = i === 0 ? [] : [...new Set(ps.map((p) => vs[p % i]!))]
        vs.push(fresh(i) ? vertex(parents, say(i)) : from[i]!)
      })
      return vs
    }
    const first = build(() => true, [])
    const second = build((i) => rebuilt[i]!, first)
    return picks.map(([which, i]) => (which ? second : first)[i % plan.length]!)
  })

/** The reference: a recursive walk that takes each id once, the first object met. */
const byId = (heads: readonly Conversation[]): Conversation[] => {
  const out: Conversation[] = []
  const seen = new Set<string>()
  const visit = (v: Conversation): void => {
    if (seen.has(v.id)) return
    seen.add(v.id)
    v.parents.forEach(visit)
    out.push(v)
  }
  heads.forEach(visit)
  return out
}

describe('causalOrder', () => {
  it('lists each id once, the first object met, in causal order, with or without twins', () => {
    fc.assert(
      fc.property(twinDags, (heads) => {
        const order = causalOrder(heads)
        const reference = byId(heads)
        expect(order.map((v) => v.id)).toEqual(reference.map((v) => v.id))
        expect(order.every((v, i) => v === reference[i])).toBe(true)
        // the marks it leaves do not change a later walk by identity
        expect(ancestorsOfAll(heads)).toEqual(ancestorsOfAll(heads, (v) => v))
      }),
      { numRuns: 300 },
    )
  })

  it('finds twins whose first parents are twins too, far below the fork', () => {
    const chain = (n: number): Conversation => {
      let v: Conversation = vertex([], say(0))
      for (let i = 1; i < n; i++) v = vertex([v], say(i))
      return v
    }
    const [a, b] = [chain(50), chain(50)]
    expect(a).not.toBe(b)
    const order = causalOrder([a, b])
    expect(order.map((v) => v.id)).toEqual(byId([a]).map((v) => v.id))
  })
})
