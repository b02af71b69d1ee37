import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { ancestorsOfAll } from '../../src/dag/traverse.js'
import {
  appendTo,
  assistant,
  empty,
  stop,
  subConversation,
  system,
  toolResults,
  tools,
  user,
} from '../../src/conversation/build.js'
import type { Conversation, Entry, Heads, ToolDefinition } from '../../src/conversation/Entry.js'
import {
  messageCount,
  messages,
  subConversations,
  systemPrompt,
  toolDefinitions,
  toolExecutions,
  usage,
} from '../../src/conversation/project.js'
import { CHECKPOINT, memoFootprint } from '../../src/conversation/projectionMemo.js'
import { conversationHeads } from '../../src/testing/conversation.js'

/** The projections computed the plain way: one walk of the whole history, no memo. */
const reference = (on: Heads) => {
  const hs = Array.isArray(on) ? (on as readonly Conversation[]) : [on as Conversation]
  const entries: Entry[] = ancestorsOfAll(hs).map((v) => v.data)
  const of = <K extends Entry['type']>(type: K) =>
    entries.filter((e): e is Extract<Entry, { type: K }> => e.type === type)
  const byName = new Map<string, ToolDefinition>()
  for (const e of of('tool_definitions')) for (const t of e.tools) byName.set(t.name, t)
  const total: Record<string, number> = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  }
  for (const s of of('stop_reason')) {
    for (const [k, n] of Object.entries(s.usage))
      if (typeof n === 'number') total[k] = (total[k] ?? 0) + n
  }
  return {
    messages: of('message'),
    executions: of('tool_execution'),
    subs: of('sub_conversation'),
    system: of('system_prompt')
      .map((s) => s.content)
      .join('\n\n'),
    tools: [...byName.values()],
    usage: total,
  }
}

const projected = (on: Heads) => ({
  messages: messages(on),
  executions: toolExecutions(on),
  subs: subConversations(on),
  system: systemPrompt(on),
  tools: toolDefinitions(on),
  usage: usage(on),
})

const schema = { type: 'object' }

/** One agent-loop round: the model asks for `k` tools, the results merge, the turn stops. */
const round = (c: Conversation, r: number, k: number): Conversation => {
  const ids = Array.from({ length: k }, (_, i) => `r${r}t${i}`)
  return pipe(
    c,
    assistant(ids.map((id) => ({ type: 'tool_use' as const, id, name: 'look', input: {} }))),
    toolResults(ids.map((id) => ({ tool_use_id: id, content: `seen ${id}` }))),
    stop('tool_use', { input_tokens: r, output_tokens: 1 }),
    user(`next ${r}`),
  )
}

describe('memoised projections', () => {
  it('agree with a walk of the whole history, whatever was projected before and in whatever order (memo law)', () => {
    fc.assert(
      fc.property(
        conversationHeads({ maxDepth: 12, maxBranches: 3 }),
        fc.func(fc.integer()),
        fc.array(fc.nat(), { maxLength: 12 }),
        (hs, rank, firsts) => {
          const vertices = ancestorsOfAll(hs)
          // Memos land in random places first, then every vertex is checked in a random order.
          for (const i of firsts) if (vertices.length > 0) projected(vertices[i % vertices.length]!)
          const order = [...vertices].sort((a, b) => rank(a.id) - rank(b.id))
          for (const v of order) expect(projected(v)).toEqual(reference(v))
          expect(projected(hs)).toEqual(reference(hs))
          expect(projected([...hs].reverse())).toEqual(reference([...hs].reverse()))
        },
      ),
      { numRuns: 150 },
    )
  })

  it('a merge of branches that forked before the memoised ancestor lists each entry once', () => {
    const base = pipe(empty, system('s'), user('q'))
    const left = pipe(base, assistant('left 1'), user('left 2'))
    const right = pipe(base, assistant('right 1'))
    messages(left) // memoised deep in the left branch
    const joined = appendTo([left, right], user('both'))
    expect(messages(joined).map((m) => m.content)).toEqual([
      'q',
      'left 1',
      'left 2',
      'right 1',
      'both',
    ])
    expect(messages([right, left]).map((m) => m.content)).toEqual([
      'q',
      'right 1',
      'left 1',
      'left 2',
    ])
  })

  it('merges conversations with no common history', () => {
    const a = pipe(empty, user('a'))
    const b = pipe(empty, user('b'), stop('end_turn', { input_tokens: 2 }))
    messages(a)
    expect(messages(appendTo([a, b], user('c'))).map((m) => m.content)).toEqual(['a', 'b', 'c'])
    expect(usage([a, b]).input_tokens).toBe(2)
  })

  it('answers a fresh list on every call, so a caller cannot change another answer', () => {
    const c = pipe(empty, user('u'), assistant('a'))
    const first = messages(c) as unknown[]
    first.pop()
    expect(messages(c)).toHaveLength(2)
    expect(messageCount(c)).toBe(2)
  })

  it('a long conversation projected on every head of the agent loop keeps memory linear: a memo per checkpoint, each entry held once', () => {
    const rounds = 400
    let c = pipe(
      empty,
      system('s'),
      tools([{ name: 'look', description: 'd', input_schema: schema }]),
      user('go'),
    )
    messages(c)
    for (let r = 0; r < rounds; r++) {
      c = round(c, r, 3)
      messages(c)
      usage(c)
    }
    const all = ancestorsOfAll([c])
    const footprint = memoFootprint(all)
    // Seven vertices a round: a checkpoint every ten rounds, and the tip.
    expect(footprint.memos).toBe(Math.floor((rounds * 7) / 70) + 1)
    expect(footprint.memos).toBeLessThanOrEqual(all.length / CHECKPOINT + 1)
    // Messages and executions, each held by one shared list: no list copied per head.
    expect(footprint.items).toBe(messageCount(c) + toolExecutions(c).length)
    expect(messageCount(c)).toBe(1 + rounds * 3)
    expect(usage(c).input_tokens).toBe((rounds * (rounds - 1)) / 2)
  })

  it('a fork projected after its sibling copies the shared prefix once, and both stay right', () => {
    const base = pipe(empty, user('q'), assistant('a'))
    messages(base)
    const one = pipe(base, user('one'))
    const two = pipe(base, user('two'))
    expect(messages(one).map((m) => m.content)).toEqual(['q', 'a', 'one'])
    expect(messages(two).map((m) => m.content)).toEqual(['q', 'a', 'two'])
    expect(messages(base).map((m) => m.content)).toEqual(['q', 'a'])
    // Each of the three holds its own list at most: nothing grows with the number of projections.
    for (let i = 0; i < 5; i++) for (const h of [base, one, two]) messages(h)
    expect(memoFootprint([base, one, two]).items).toBeLessThanOrEqual(3 + 3 + 2)
  })

  it('repeating messages on a growing head of 10⁴ messages costs the new entries, not the history', () => {
    let c: Conversation = pipe(empty, user('m0'))
    for (let i = 1; i < 1e4; i++) c = (i % 2 === 0 ? user : assistant)(`m${i}`)(c)
    messages(c)
    // The first projection of a head walks back only to its parent's memo.
    const next = pipe(c, user('more'))
    expect(memoFootprint([next]).memos).toBe(0)
    expect(messageCount(next)).toBe(1e4 + 1)
    expect(memoFootprint(ancestorsOfAll([next])).memos).toBeLessThanOrEqual(1e4 / CHECKPOINT + 1)
  })

  it('projects an older head again by walking back at most to a checkpoint, reusing the lists', () => {
    let c: Conversation = pipe(empty, user('m0'))
    const heads: Conversation[] = [c]
    for (let i = 1; i < 1000; i++) {
      c = (i % 2 === 0 ? user : assistant)(`m${i}`)(c)
      messages(c)
      heads.push(c)
    }
    const before = memoFootprint(ancestorsOfAll([c]))
    expect(before.items).toBe(1000)
    for (const i of [999, 500, 3, 640, 0]) {
      expect(messages(heads[i]!).map((m) => m.content)).toEqual(
        heads.slice(0, i + 1).map((_, k) => `m${k}`),
      )
    }
    // Re-projected heads share the tip's list; only heads before the first checkpoint start their own.
    expect(memoFootprint(ancestorsOfAll([c])).items).toBeLessThanOrEqual(before.items + CHECKPOINT)
  })

  it('keeps sub-conversations without entering them', () => {
    const inner = pipe(empty, user('inner'))
    const c = pipe(
      empty,
      user('outer'),
      subConversation({
        tool_name: 'a',
        tool_use_id: 't',
        system_prompt: '',
        heads: [inner],
        summary: 's',
      }),
    )
    expect(subConversations(c).map((s) => s.summary)).toEqual(['s'])
    expect(messages(c).map((m) => m.content)).toEqual(['outer'])
  })
})
