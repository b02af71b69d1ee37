import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TriggerCodec } from '../../src/network/model/parts.js'
import { kindOf, TRIGGERS, type Trigger } from '../../src/network/model/triggers/index.js'
import { decodeNetwork, networkFileSchema } from 'nerve-agents/network'

/** One value of every kind of the table (both shapes of `scheduled`). */
const VALUES: readonly Trigger[] = [
  { type: 'any' },
  { type: 'all' },
  { type: 'manual' },
  { type: 'scheduled', cron: '*/5 * * * *' },
  { type: 'scheduled', everyMs: 250 },
]

const triggerSchemas = (): readonly unknown[] => {
  const nodes = (
    networkFileSchema() as unknown as { properties: { nodes: Record<string, unknown> } }
  ).properties.nodes
  const node = (nodes.additionalProperties ?? nodes.items) as {
    properties: { trigger: { anyOf: readonly unknown[] } }
  }
  return node.properties.trigger.anyOf
}

describe('the trigger table', () => {
  it('is the one place a kind is listed: the codec accepts exactly its kinds', () => {
    expect(new Set(VALUES.map((v) => v.type))).toEqual(new Set(Object.keys(TRIGGERS)))
    for (const v of VALUES) {
      expect(TriggerCodec.decode(v)).toEqual(E.right(v))
      expect(kindOf(v)).toBe(TRIGGERS[v.type])
    }
    fc.assert(
      fc.property(fc.string(), (type) => {
        expect(E.isRight(TriggerCodec.decode({ type }))).toBe(
          Object.hasOwn(TRIGGERS, type) && type !== 'scheduled',
        )
      }),
    )
  })

  it('makes the network file schema: one branch per shape of each kind', () => {
    const consts = triggerSchemas().map(
      (s) => (s as { properties: { type: { const: string } } }).properties.type.const,
    )
    expect(consts.sort()).toEqual(['all', 'any', 'manual', 'scheduled', 'scheduled'])
  })

  it('rejects a kind it does not list, at the trigger’s type', () => {
    const file = { id: 'n', nodes: [{ id: 'a', trigger: { type: 'sometimes' } }] }
    const r = decodeNetwork(file)
    expect(E.isLeft(r) && r.left.map((e) => e.path)).toEqual(['/nodes/0/trigger/type'])
  })

  it('takes a name of Object.prototype for no kind: a typed error, not a crash', () => {
    const file = {
      id: 'n',
      nodes: [{ id: 'a', trigger: { type: 'toString' }, provider: { type: 'constructor' } }],
    }
    const r = decodeNetwork(file)
    expect(E.isLeft(r) && r.left.map((e) => e.path)).toEqual([
      '/nodes/0/trigger/type',
      '/nodes/0/provider/type',
    ])
  })

  it('says when envelopes waiting on the inputs fire a node', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(3), { maxLength: 5 }), (waiting) => {
        expect(TRIGGERS.any.ready!(waiting)).toBe(waiting.some((n) => n > 0))
        expect(TRIGGERS.all.ready!(waiting)).toBe(waiting.length > 0 && !waiting.includes(0))
      }),
    )
    // manual and scheduled nodes fire only when told or when their alarm rings
    expect(kindOf({ type: 'manual' }).ready).toBeUndefined()
    expect(kindOf({ type: 'scheduled', everyMs: 5 }).ready).toBeUndefined()
    expect(TRIGGERS.all.joins).toBe(true)
    expect(kindOf({ type: 'any' }).joins).toBeUndefined()
  })

  it('arms the clock of a scheduled node only', () => {
    expect(VALUES.map((v) => kindOf(v).arm?.(v))).toEqual([
      undefined,
      undefined,
      undefined,
      { cron: '*/5 * * * *' },
      { everyMs: 250 },
    ])
  })
})
