import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { ancestors, ancestorsOfAll } from '../../src/dag/traverse.js'
import { isVertex } from '../../src/dag/Vertex.js'
import {
  appendTo,
  assistant,
  execution,
  stop,
  subConversation,
  system,
  toolResults,
  tools,
  user,
  type Builder,
} from '../../src/conversation/build.js'
import type { Block, Conversation, Entry } from '../../src/conversation/Entry.js'
import { messages } from '../../src/conversation/project.js'
import { conversation, conversationHeads, settingsOf } from '../../src/testing/conversation.js'
import { buildPlan, planArbitrary } from '../../src/testing/conversationPlan.js'

const plain = { noNullPrototype: true } as const
const text = fc.string({ maxLength: 10 })

/** Every vertex of a set of heads, the histories of nested sub-conversations included. */
const everyVertex = (hs: readonly Conversation[]): Conversation[] => {
  const out: Conversation[] = []
  const seen = new Set<Conversation>()
  const todo = [...hs]
  while (todo.length > 0) {
    for (const v of ancestorsOfAll(todo.splice(0))) {
      if (seen.has(v)) continue
      seen.add(v)
      out.push(v)
      if (v.data.type === 'sub_conversation') todo.push(...v.data.heads)
    }
  }
  return out
}

/** The objects reachable from a value, not entering vertices nested in it. */
const objectsIn = (value: unknown): object[] => {
  const out: object[] = []
  const stack = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v !== 'object' || v === null || isVertex(v)) continue
    out.push(v)
    for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k])
  }
  return out
}

/** Builders that extend a conversation: messages, system prompts, stops, and parallel tool calls. */
const extension: fc.Arbitrary<Builder[]> = fc.array(
  fc.oneof(
    text.map((t) => user(t)),
    text.map((t) => assistant(t)),
    text.map((t) => system(t)),
    fc.nat({ max: 1000 }).map((n) => stop('end_turn', { output_tokens: n })),
    fc.array(text, { minLength: 1, maxLength: 3 }).map(
      (answers): Builder =>
        (on) =>
          appendTo(
            on,
            assistant(
              answers.map((_, i) => ({ type: 'tool_use', id: `x${i}`, name: 't', input: {} })),
            ),
            toolResults(answers.map((a, i) => ({ tool_use_id: `x${i}`, content: a })).reverse()),
          ),
    ),
  ),
  { maxLength: 6 },
)

describe('deep immutability', () => {
  it('every vertex, its parents, data, blocks and meta are frozen (deep immutability)', () => {
    fc.assert(
      fc.property(conversationHeads({ withMeta: true }), (hs) => {
        for (const v of everyVertex(hs)) {
          expect(Object.isFrozen(v)).toBe(true)
          expect(Object.isFrozen(v.parents)).toBe(true)
          for (const o of [...objectsIn(v.data), ...objectsIn(v.meta)]) {
            expect(Object.isFrozen(o)).toBe(true)
          }
        }
      }),
    )
  })

  it('assignment to a vertex or anything in it throws (deep immutability)', () => {
    fc.assert(
      fc.property(conversation(), (c) => {
        expect(() => {
          ;(c as { data: unknown }).data = null
        }).toThrow(TypeError)
        expect(() => {
          ;(c.parents as Conversation[]).push(c)
        }).toThrow(TypeError)
        expect(() => {
          ;(c.meta as Record<string, unknown>).x = 1
        }).toThrow(TypeError)
        expect(() => {
          ;(c.data as { type: string }).type = 'other'
        }).toThrow(TypeError)
        if (c.data.type === 'message' && typeof c.data.content !== 'string') {
          const blocks = c.data.content as Block[]
          expect(() => blocks.pop()).toThrow(TypeError)
        }
      }),
    )
  })
})

describe('no mutation of inputs', () => {
  const block: fc.Arbitrary<Block> = fc.oneof(
    fc.record({ type: fc.constant('text' as const), text }, plain),
    fc.record({ type: fc.constant('thinking' as const), thinking: text, signature: text }, plain),
    fc.record(
      {
        type: fc.constant('image' as const),
        source: fc.record(
          {
            type: fc.constant('base64' as const),
            media_type: fc.constant('image/png'),
            data: fc.base64String(),
          },
          plain,
        ),
      },
      plain,
    ),
  )
  const inputs = fc.record(
    {
      blocks: fc.array(block, { minLength: 1, maxLength: 4 }),
      definitions: fc.array(
        fc.record(
          {
            name: text,
            description: text,
            input_schema: fc.dictionary(text, fc.dictionary(text, text, plain), plain),
          },
          plain,
        ),
        { maxLength: 3 },
      ),
      calls: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), {
        minLength: 1,
        maxLength: 3,
      }),
      input: fc.dictionary(text, fc.array(text), plain),
      resultBlocks: fc.array(fc.record({ type: fc.constant('text' as const), text }, plain)),
      usage: fc.record({ input_tokens: fc.nat(), reasoning_tokens: fc.nat() }, plain),
    },
    plain,
  )

  it('builders change neither the conversation nor the blocks, definitions and results given (no mutation of inputs)', () => {
    fc.assert(
      fc.property(conversation(), inputs, (c, given) => {
        const historyBefore = ancestors(c)
        const idsBefore = historyBefore.map((v) => v.id)
        const messagesBefore = JSON.stringify(messages(c))
        const heads = [c]
        const uses = given.calls.map((id) => ({
          type: 'tool_use' as const,
          id,
          name: 't',
          input: given.input,
        }))
        const results = given.calls.map((id, i) => ({
          tool_use_id: id,
          content: i % 2 === 0 ? given.resultBlocks : 'done',
        }))
        const before = structuredClone({ given, uses, results })

        user(given.blocks)(c)
        assistant(given.blocks)([c, c])
        tools(given.definitions)(c)
        stop('end_turn', given.usage)(c)
        execution('t', results[0]!)(c)
        pipe(c, assistant(uses), toolResults([...results].reverse()))
        subConversation({
          tool_name: 'agent',
          tool_use_id: 'a',
          system_prompt: '',
          heads,
          summary: '',
        })(c)

        expect({ given, uses, results }).toStrictEqual(before)
        expect(Object.isFrozen(heads)).toBe(false)
        expect(heads).toEqual([c])
        for (const o of objectsIn({ given, uses, results })) expect(Object.isFrozen(o)).toBe(false)
        const historyAfter = ancestors(c)
        expect(historyAfter).toHaveLength(historyBefore.length)
        historyAfter.forEach((v, i) => {
          expect(v).toBe(historyBefore[i])
        })
        expect(historyAfter.map((v) => v.id)).toEqual(idsBefore)
        expect(JSON.stringify(messages(c))).toBe(messagesBefore)
      }),
    )
  })

  it('mutating a block array after building does not change the built vertex (no mutation of inputs)', () => {
    fc.assert(
      fc.property(
        conversation(),
        fc.array(block, { minLength: 1, maxLength: 4 }),
        text,
        (c, blocks, t) => {
          const built = user(blocks)(c)
          const id = built.id
          const snapshot = structuredClone(built.data)
          blocks.push({ type: 'text', text: t })
          ;(blocks[0] as { type: string }).type = 'changed'
          blocks.reverse()
          expect(built.data).toStrictEqual(snapshot)
          expect(pipe(c, user(snapshot.type === 'message' ? snapshot.content : '')).id).toBe(id)
        },
      ),
    )
  })
})

describe('a builder that changes nothing returns its input', () => {
  it('tools([]), toolResults([]) and appendTo with no builder return the conversation itself (identity)', () => {
    fc.assert(
      fc.property(conversation(), (c) => {
        expect(tools([])(c)).toBe(c)
        expect(tools([])([c])).toBe(c)
        expect(appendTo(c)).toBe(c)
        expect(appendTo([c])).toBe(c)
        const pending =
          c.data.type === 'message' &&
          c.data.role === 'assistant' &&
          typeof c.data.content !== 'string' &&
          c.data.content.some((b) => b.type === 'tool_use')
        if (!pending) expect(toolResults([])(c)).toBe(c)
      }),
    )
  })
})

describe('determinism', () => {
  it('the same builder sequence gives the same ids (determinism)', () => {
    const s = settingsOf('conversation')
    fc.assert(
      fc.property(planArbitrary(s), (plan) => {
        const first = buildPlan(plan, s)
        const second = buildPlan(plan, s)
        expect(second.last).not.toBe(first.last)
        expect(second.points.map((v) => v.id)).toEqual(first.points.map((v) => v.id))
        expect(second.heads.map((v) => v.id)).toEqual(first.heads.map((v) => v.id))
        expect(everyVertex(second.heads).map((v) => v.id)).toEqual(
          everyVertex(first.heads).map((v) => v.id),
        )
      }),
    )
  })
})

describe('branch independence', () => {
  it('building on one reference never changes what another sees (branch independence)', () => {
    fc.assert(
      fc.property(conversationHeads(), fc.nat(), extension, (hs, pick, builders) => {
        const all = ancestorsOfAll(hs)
        const seen = (v: Conversation) => ({
          id: v.id,
          parents: [...v.parents],
          messages: JSON.stringify(messages(v)),
          ancestors: ancestors(v).map((x) => x.id),
        })
        const before = all.map(seen)
        const from = all[pick % all.length]!
        const extended = appendTo(from, ...builders)
        const joined = appendTo([extended, ...hs], user('joined'))
        expect(ancestors(joined)).toContain(from)
        expect(all.map(seen)).toEqual(before)
      }),
    )
  })
})

describe('messages of an extension', () => {
  it('messages of an extended conversation extend the messages of the original (prefix law)', () => {
    fc.assert(
      fc.property(
        conversation(),
        conversation({ maxDepth: 4 }),
        fc.boolean(),
        extension,
        (c, other, join, builders) => {
          const original = messages(c)
          const start = join ? appendTo([c, other], assistant('joined')) : c
          const extended = messages(appendTo(start, ...builders))
          expect(extended.length).toBeGreaterThanOrEqual(original.length)
          original.forEach((m, i) => {
            expect(extended[i]).toBe(m)
          })
        },
      ),
    )
  })
})

describe('sub-conversations', () => {
  it('entries hold their nested heads, which are conversations in their own right', () => {
    fc.assert(
      fc.property(conversationHeads({ subConversations: true }), (hs) => {
        for (const v of everyVertex(hs)) {
          const e: Entry = v.data
          if (e.type !== 'sub_conversation') continue
          expect(e.heads.length).toBeGreaterThan(0)
          for (const h of e.heads) expect(isVertex(h)).toBe(true)
        }
      }),
    )
  })
})
