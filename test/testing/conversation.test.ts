import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { ancestors, ancestorsOfAll, heads } from '../../src/dag/traverse.js'
import type { Block, Conversation, Entry } from '../../src/conversation/Entry.js'
import { messages } from '../../src/conversation/project.js'
import {
  conversation,
  conversationHeads,
  type BlockKind,
  type ConversationConstraints,
} from '../../src/testing/index.js'

const ALL_KINDS: readonly BlockKind[] = [
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'image',
  'compaction',
]

/** The vertices of each conversation: the outer one, then each nested sub-conversation's. */
const graphsOf = (hs: readonly Conversation[]): Conversation[][] => {
  const graphs: Conversation[][] = []
  const todo: (readonly Conversation[])[] = [hs]
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const vs = [...ancestorsOfAll(next)]
    graphs.push(vs)
    for (const v of vs) if (v.data.type === 'sub_conversation') todo.push(v.data.heads)
  }
  return graphs
}
const everyVertex = (hs: readonly Conversation[]): Conversation[] => graphsOf(hs).flat()

/** Every block an entry holds, tool result content included. */
const blocksOf = (e: Entry): Block[] => {
  const nested = (content: string | readonly Block[]): Block[] =>
    typeof content === 'string'
      ? []
      : content.flatMap((b) => [b, ...(b.type === 'tool_result' ? nested(b.content) : [])])
  if (e.type === 'message') return nested(e.content)
  if (e.type === 'tool_execution') return nested(e.result)
  return []
}

/** The number of vertices along the longest path of a graph. */
const longestPath = (vs: readonly Conversation[]): number => {
  const depth = new Map<Conversation, number>()
  for (const v of vs) depth.set(v, 1 + Math.max(0, ...v.parents.map((p) => depth.get(p)!)))
  return Math.max(0, ...depth.values())
}

const sample = <T>(arb: fc.Arbitrary<T>): T[] => fc.sample(arb, { seed: 42, numRuns: 300 })

describe('conversation', () => {
  it('produces conversations whose every tool use is answered once, later, with unique ids', () => {
    fc.assert(
      fc.property(conversation(), (c) => {
        const asked: string[] = []
        const answered: string[] = []
        for (const m of messages(c)) {
          for (const b of typeof m.content === 'string' ? [] : m.content) {
            if (b.type === 'tool_use') asked.push(b.id)
            if (b.type === 'tool_result') {
              expect(asked).toContain(b.tool_use_id)
              answered.push(b.tool_use_id)
            }
          }
        }
        expect(new Set(asked).size).toBe(asked.length)
        expect([...answered].sort()).toEqual([...asked].sort())
      }),
    )
  })

  it('produces some branching, merging, tool fan-out and sub-conversations by default', () => {
    const all = sample(conversationHeads()).flatMap((hs) => everyVertex(hs))
    expect(all.some((v) => v.parents.length > 1)).toBe(true)
    expect(all.some((v) => v.data.type === 'tool_execution')).toBe(true)
    expect(all.some((v) => v.data.type === 'sub_conversation')).toBe(true)
    expect(all.some((v) => v.data.type === 'stop_reason')).toBe(true)
    expect(all.some((v) => v.data.type === 'tool_definitions')).toBe(true)
    expect(sample(conversationHeads()).some((hs) => hs.length > 1)).toBe(true)
  })

  it('shrinks a failing conversation to a short one', () => {
    const result = fc.check(
      fc.property(conversation(), (c) => messages(c).length < 4),
      { seed: 7 },
    )
    expect(result.failed).toBe(true)
    const [c] = result.counterexample!
    expect(messages(c)).toHaveLength(4)
    expect(ancestors(c).length).toBeLessThanOrEqual(6)
  })

  it('keeps every path within maxDepth, in sub-conversations too', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 8 })
          .chain((d) => fc.tuple(fc.constant(d), conversationHeads({ maxDepth: d }))),
        ([d, hs]) => {
          for (const g of graphsOf(hs)) expect(longestPath(g)).toBeLessThanOrEqual(d)
        },
      ),
    )
  })

  it('reaches depths close to maxDepth', () => {
    const depths = sample(conversationHeads({ maxDepth: 6 })).map((hs) =>
      longestPath(ancestorsOfAll(hs)),
    )
    expect(Math.max(...depths)).toBe(6)
  })

  it('gives no vertex more children than maxBranches, and no more roots', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 4 })
          .chain((m) => fc.tuple(fc.constant(m), conversationHeads({ maxBranches: m }))),
        ([m, hs]) => {
          for (const g of graphsOf(hs)) {
            const children = new Map<Conversation | 'root', number>()
            for (const v of g) {
              for (const p of v.parents.length === 0 ? ['root' as const] : v.parents) {
                children.set(p, (children.get(p) ?? 0) + 1)
              }
            }
            for (const n of children.values()) expect(n).toBeLessThanOrEqual(m)
          }
        },
      ),
    )
  })

  it('builds a chain with one head when maxBranches is 1', () => {
    fc.assert(
      fc.property(conversationHeads({ maxBranches: 1 }), (hs) => {
        expect(hs).toHaveLength(1)
        for (const v of ancestorsOfAll(hs)) expect(v.parents.length).toBeLessThanOrEqual(1)
      }),
    )
  })

  it('makes no merge vertex when merges is false', () => {
    fc.assert(
      fc.property(conversationHeads({ merges: false }), (hs) => {
        for (const v of everyVertex(hs)) expect(v.parents.length).toBeLessThanOrEqual(1)
      }),
    )
  })

  it('uses only the block kinds allowed', () => {
    fc.assert(
      fc.property(
        fc
          .subarray([...ALL_KINDS])
          .chain((kinds) => fc.tuple(fc.constant(kinds), conversationHeads({ blockKinds: kinds }))),
        ([kinds, hs]) => {
          for (const v of everyVertex(hs)) {
            for (const b of blocksOf(v.data)) expect(kinds).toContain(b.type)
          }
        },
      ),
    )
  })

  it('uses each allowed block kind somewhere', () => {
    const all = sample(conversationHeads()).flatMap((hs) => everyVertex(hs))
    const used = new Set(all.flatMap((v) => blocksOf(v.data).map((b) => b.type)))
    expect([...used].sort()).toEqual([...ALL_KINDS].sort())
  })

  it('answers parallel tool calls through one merged message of results', () => {
    const all = sample(conversationHeads({ parallelTools: true })).flatMap((hs) => everyVertex(hs))
    const answers = all.filter((v) => blocksOf(v.data).some((b) => b.type === 'tool_result'))
    expect(answers.some((v) => v.parents.length > 1)).toBe(true)
    for (const v of answers) {
      const ids = blocksOf(v.data).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))
      expect(v.parents.map((p) => (p.data as { tool_use_id?: string }).tool_use_id)).toEqual(ids)
    }
  })

  it('answers one tool call at a time after its execution when parallelTools is false', () => {
    fc.assert(
      fc.property(conversationHeads({ parallelTools: false }), (hs) => {
        for (const v of everyVertex(hs)) {
          const results = blocksOf(v.data).filter((b) => b.type === 'tool_result')
          if (results.length === 0) continue
          expect(results).toHaveLength(1)
          expect(v.parents).toHaveLength(1)
          expect(v.parents[0]!.data).toMatchObject({
            type: 'tool_execution',
            tool_use_id: (results[0] as { tool_use_id: string }).tool_use_id,
          })
        }
      }),
    )
  })

  it('makes no tool calls when tool blocks are not allowed', () => {
    fc.assert(
      fc.property(conversationHeads({ blockKinds: ['text', 'tool_use'] }), (hs) => {
        for (const v of everyVertex(hs)) expect(v.data.type).not.toBe('tool_execution')
      }),
    )
  })

  it('makes no sub-conversation when subConversations is false', () => {
    fc.assert(
      fc.property(conversationHeads({ subConversations: false }), (hs) => {
        for (const v of ancestorsOfAll(hs)) expect(v.data.type).not.toBe('sub_conversation')
      }),
    )
  })

  it('nests sub-conversations one level only', () => {
    fc.assert(
      fc.property(conversationHeads(), (hs) => {
        for (const v of ancestorsOfAll(hs)) {
          if (v.data.type !== 'sub_conversation') continue
          for (const inner of ancestorsOfAll(v.data.heads)) {
            expect(inner.data.type).not.toBe('sub_conversation')
          }
        }
      }),
    )
  })

  it('leaves meta empty unless withMeta is true', () => {
    fc.assert(
      fc.property(conversationHeads(), (hs) => {
        for (const v of everyVertex(hs)) expect(v.meta).toEqual({})
      }),
    )
    const all = sample(conversationHeads({ withMeta: true })).flatMap((hs) => everyVertex(hs))
    expect(all.some((v) => Object.keys(v.meta).length > 0)).toBe(true)
  })
})

describe('conversationHeads', () => {
  it('produces a non-empty set of heads, none an ancestor of another', () => {
    fc.assert(
      fc.property(conversationHeads(), (hs) => {
        expect(hs.length).toBeGreaterThan(0)
        expect(heads(hs)).toEqual(hs)
        expect(Object.isFrozen(hs)).toBe(true)
      }),
    )
  })
})

describe('constraints', () => {
  const bad: readonly [string, unknown, RegExp][] = [
    [
      'maxDepth',
      { maxDepth: -1 },
      /constraints\.maxDepth must be an integer of at least 1, got -1/,
    ],
    ['maxDepth', { maxDepth: 0 }, /maxDepth .* got 0/],
    ['maxDepth', { maxDepth: 1.5 }, /maxDepth .* got 1\.5/],
    ['maxDepth', { maxDepth: '3' }, /maxDepth .* got "3"/],
    ['maxBranches', { maxBranches: 0 }, /constraints\.maxBranches must be an integer .* got 0/],
    ['merges', { merges: 'yes' }, /constraints\.merges must be a boolean, got "yes"/],
    ['withMeta', { withMeta: 1 }, /constraints\.withMeta must be a boolean, got 1/],
    [
      'subConversations',
      { subConversations: null },
      /subConversations must be a boolean, got null/,
    ],
    ['blockKinds', { blockKinds: 'text' }, /constraints\.blockKinds must be an array/],
    [
      'blockKinds',
      { blockKinds: ['text', 'unknown'] },
      /constraints\.blockKinds\[1\] must be one of .* got "unknown"/,
    ],
    ['blockKinds', { blockKinds: ['video'] }, /blockKinds\[0\] .* got "video"/],
    [
      'parallelTools',
      { blockKinds: ['text'], parallelTools: true },
      /constraints\.parallelTools needs 'tool_use' and 'tool_result'/,
    ],
    ['an unknown key', { maxdepth: 3 }, /unknown constraint "maxdepth"/],
    ['a non-object', 5, /constraints must be an object, got 5/],
  ]

  for (const [name, constraints, message] of bad) {
    it(`rejects a bad ${name} at once with a UsageError naming it: ${JSON.stringify(constraints)}`, () => {
      const c = constraints as ConversationConstraints
      expect(() => conversation(c)).toThrow(UsageError)
      expect(() => conversation(c)).toThrow(message)
      expect(() => conversation(c)).toThrow(/^conversation\(\): /)
      expect(() => conversationHeads(c)).toThrow(/^conversationHeads\(\): /)
    })
  }

  it('accepts every valid combination it is given', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            maxDepth: fc.integer({ min: 1, max: 20 }),
            maxBranches: fc.integer({ min: 1, max: 5 }),
            merges: fc.boolean(),
            blockKinds: fc.subarray([...ALL_KINDS]),
            subConversations: fc.boolean(),
            withMeta: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
        (constraints) => {
          const [hs] = fc.sample(conversationHeads(constraints), { numRuns: 1 })
          expect(hs!.length).toBeGreaterThan(0)
        },
      ),
      { numRuns: 50 },
    )
  })
})
