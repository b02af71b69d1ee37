import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { ancestors } from '../../src/dag/traverse.js'
import {
  append,
  appendTo,
  assistant,
  empty,
  execution,
  stop,
  subConversation,
  system,
  toolResults,
  tools,
  user,
  type ToolResult,
} from '../../src/conversation/build.js'
import type { Block, Conversation, Entry, ToolUseBlock } from '../../src/conversation/Entry.js'
import { messages } from '../../src/conversation/project.js'

const schema = { type: 'object' }
const use = (id: string, name = 'read'): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input: { path: `${id}.txt` },
})
const asking = (...ids: string[]): Conversation =>
  pipe(empty, user('go'), assistant(ids.map((id) => use(id))))

describe('empty and append', () => {
  it('empty is a frozen set of no heads', () => {
    expect(empty).toEqual([])
    expect(Object.isFrozen(empty)).toBe(true)
  })

  it('append on no heads starts a conversation with a root', () => {
    const c = pipe(empty, append({ type: 'system_prompt', content: 'x' }))
    expect(c.parents).toEqual([])
    expect(c.data).toEqual({ type: 'system_prompt', content: 'x' })
  })

  it('append on several heads merges them in order', () => {
    const a = pipe(empty, user('a'))
    const b = pipe(empty, user('b'))
    const m = pipe([b, a], append({ type: 'message', role: 'assistant', content: 'm' }))
    expect(m.parents).toEqual([b, a])
  })

  it('passes the vertex options through', () => {
    const c = pipe(
      empty,
      append({ type: 'system_prompt', content: 'x' }, { id: 's', meta: { t: 1 } }),
    )
    expect(c.id).toBe('s')
    expect(c.meta).toEqual({ t: 1 })
  })
})

describe('appendTo', () => {
  it('applies builders in order', () => {
    const c = appendTo(empty, system('s'), user('u'), assistant('a'))
    expect(ancestors(c).map((v) => v.data.type)).toEqual(['system_prompt', 'message', 'message'])
    expect(messages(c).map((m) => m.content)).toEqual(['u', 'a'])
  })

  it('returns the one head when there is nothing to apply', () => {
    const c = pipe(empty, user('u'))
    expect(appendTo(c)).toBe(c)
    expect(appendTo([c])).toBe(c)
  })

  it('throws a UsageError naming the number of heads it cannot join without a builder', () => {
    const a = pipe(empty, user('a'))
    const b = pipe(empty, user('b'))
    expect(() => appendTo([a, b])).toThrow(/appendTo\(\): needs a builder to join 2 heads/)
    expect(() => appendTo(empty)).toThrow(/join 0 heads/)
  })

  it('merges several heads with its first builder', () => {
    const a = pipe(empty, user('a'))
    const b = pipe(empty, user('b'))
    const m = appendTo([a, b], assistant('both'), user('next'))
    expect(m.parents[0]!.parents).toEqual([a, b])
  })
})

describe('system', () => {
  it('appends a system prompt', () => {
    expect(pipe(empty, system('Be brief.')).data).toEqual({
      type: 'system_prompt',
      content: 'Be brief.',
    })
  })

  it('throws a UsageError for content that is not a string', () => {
    expect(() => system(3 as unknown as string)).toThrow(/system\(\): content must be a string/)
  })
})

describe('tools', () => {
  it('appends tool definitions', () => {
    const defs = [{ name: 'read', description: 'reads', input_schema: schema }]
    expect(pipe(empty, user('u'), tools(defs)).data).toEqual({
      type: 'tool_definitions',
      tools: defs,
    })
  })

  it('returns the conversation unchanged when there are no definitions', () => {
    const c = pipe(empty, user('u'))
    expect(tools([])(c)).toBe(c)
    expect(tools([])([c])).toBe(c)
  })

  it('throws a UsageError for definitions that are not plain data', () => {
    const defs = [{ name: 'f', description: 'd', input_schema: { f: () => 1 } }]
    expect(() => tools(defs)).toThrow(/tools\(\): definitions must be plain JSON data/)
  })
})

describe('user and assistant', () => {
  it('append messages with a string or blocks', () => {
    const c = pipe(empty, user('hi'), assistant([{ type: 'text', text: 'hello' }]))
    expect(messages(c)).toEqual([
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ])
  })

  it('accept every known block type, unknown blocks kept verbatim included', () => {
    const blocks: Block[] = [
      { type: 'text', text: 't' },
      { type: 'thinking', thinking: 'th', signature: 's' },
      { type: 'redacted_thinking', data: 'd' },
      use('a'),
      { type: 'tool_result', tool_use_id: 'a', content: 'r' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } },
      { type: 'compaction', content: 'c' },
      { type: 'unknown', raw: { type: 'server_tool_use', x: 1 } },
    ]
    expect(pipe(empty, assistant(blocks)).data).toEqual({
      type: 'message',
      role: 'assistant',
      content: blocks,
    })
  })

  it('throw a clear UsageError when a string is mixed with blocks', () => {
    const mixed = ['look', { type: 'text', text: 'here' }] as unknown as Block[]
    expect(() => user(mixed)).toThrow(UsageError)
    expect(() => user(mixed)).toThrow(
      /user\(\): content\[0\] is a string among blocks: give one string or an array of blocks, not both/,
    )
    expect(() => assistant([{ type: 'text', text: 'a' }, 'b'] as unknown as Block[])).toThrow(
      /assistant\(\): content\[1\] is a string among blocks/,
    )
  })

  it('throw a UsageError naming an unknown block type and its index', () => {
    const odd = [{ type: 'text', text: 'a' }, { type: 'video' }] as unknown as Block[]
    expect(() => user(odd)).toThrow(/user\(\): content\[1\] has unknown block type "video"/)
    expect(() => assistant([{ text: 'no type' }] as unknown as Block[])).toThrow(
      /content\[0\] has unknown block type undefined/,
    )
  })

  it('throw a UsageError for content that is neither a string nor an array', () => {
    expect(() => user({ type: 'text' } as unknown as Block[])).toThrow(
      /content must be a string or an array of blocks/,
    )
  })

  it('copy mutable blocks, so changing them afterwards changes nothing', () => {
    const block = { type: 'text' as const, text: 'a' }
    const blocks: Block[] = [block]
    const c = pipe(empty, user(blocks))
    block.text = 'changed'
    blocks.push({ type: 'text', text: 'more' })
    expect(c.data).toEqual({
      type: 'message',
      role: 'user',
      content: [{ type: 'text', text: 'a' }],
    })
    expect(Object.isFrozen(block)).toBe(false)
  })

  it('copy blocks frozen only on the outside, whose insides could still change', () => {
    const block = { type: 'text' as const, text: 'a' }
    const c = pipe(empty, user(Object.freeze([block])))
    block.text = 'changed'
    expect(messages(c)[0]!.content).toEqual([{ type: 'text', text: 'a' }])
    expect(Object.isFrozen(block)).toBe(false)
  })

  it('share deeply frozen blocks instead of copying them', () => {
    const blocks = Object.freeze([Object.freeze({ type: 'text' as const, text: 'a' })])
    expect((pipe(empty, user(blocks)).data as { content: unknown }).content).toBe(blocks)
  })
})

describe('execution', () => {
  it('records one tool execution, not an error unless said', () => {
    const c = pipe(asking('a'), execution('read', { tool_use_id: 'a', content: 'text of a' }))
    expect(c.data).toEqual({
      type: 'tool_execution',
      tool_name: 'read',
      tool_use_id: 'a',
      result: 'text of a',
      is_error: false,
    })
    const failed = pipe(
      asking('a'),
      execution('read', { tool_use_id: 'a', content: 'no such file', is_error: true }),
    )
    expect((failed.data as { is_error: boolean }).is_error).toBe(true)
  })
})

describe('toolResults', () => {
  it('fans out one execution per call and merges them into one message in call order', () => {
    const asked = asking('a', 'b', 'c')
    const merged = pipe(
      asked,
      toolResults([
        { tool_use_id: 'c', content: 'C' },
        { tool_use_id: 'a', content: 'A', is_error: true },
        { tool_use_id: 'b', content: [{ type: 'text', text: 'B' }] },
      ]),
    )
    expect(merged.parents.map((p) => p.data)).toEqual([
      { type: 'tool_execution', tool_name: 'read', tool_use_id: 'a', result: 'A', is_error: true },
      {
        type: 'tool_execution',
        tool_name: 'read',
        tool_use_id: 'b',
        result: [{ type: 'text', text: 'B' }],
        is_error: false,
      },
      { type: 'tool_execution', tool_name: 'read', tool_use_id: 'c', result: 'C', is_error: false },
    ])
    for (const p of merged.parents) expect(p.parents).toEqual([asked])
    expect(merged.data).toEqual({
      type: 'message',
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'A', is_error: true },
        {
          type: 'tool_result',
          tool_use_id: 'b',
          content: [{ type: 'text', text: 'B' }],
          is_error: false,
        },
        { type: 'tool_result', tool_use_id: 'c', content: 'C', is_error: false },
      ],
    })
  })

  it('puts results given in any order in call order', () => {
    const ids = ['a', 'b', 'c', 'd', 'e']
    const results: ToolResult[] = ids.map((id) => ({ tool_use_id: id, content: id.toUpperCase() }))
    const asked = asking(...ids)
    const inOrder = pipe(asked, toolResults(results))
    fc.assert(
      fc.property(
        fc.shuffledSubarray(results, { minLength: ids.length, maxLength: ids.length }),
        (shuffled) => {
          const merged = pipe(asked, toolResults(shuffled))
          const content = messages(merged).at(-1)!.content as readonly Block[]
          expect(content.map((b) => (b as { tool_use_id: string }).tool_use_id)).toEqual(ids)
          expect(merged.id).toBe(inOrder.id)
        },
      ),
    )
  })

  it('makes a single call a chain, not a merge', () => {
    const merged = pipe(asking('a'), toolResults([{ tool_use_id: 'a', content: 'A' }]))
    expect(merged.parents).toHaveLength(1)
    expect(merged.parents[0]!.data.type).toBe('tool_execution')
  })

  it('answers the tool uses of every head it is given', () => {
    const one = asking('a')
    const two = pipe(empty, user('other'), assistant([use('b', 'write')]))
    const merged = toolResults([
      { tool_use_id: 'b', content: 'B' },
      { tool_use_id: 'a', content: 'A' },
    ])([one, two])
    expect(merged.parents.map((p) => (p.data as { tool_name: string }).tool_name)).toEqual([
      'read',
      'write',
    ])
    for (const p of merged.parents) expect(p.parents).toEqual([one, two])
  })

  it('throws a UsageError naming a tool use without a result', () => {
    expect(() => pipe(asking('a', 'b'), toolResults([{ tool_use_id: 'a', content: 'A' }]))).toThrow(
      /toolResults\(\): no result for tool use "b" \(read\)/,
    )
  })

  it('throws a UsageError naming a tool use answered twice', () => {
    expect(() =>
      pipe(
        asking('a', 'b'),
        toolResults([
          { tool_use_id: 'a', content: 'A' },
          { tool_use_id: 'b', content: 'B' },
          { tool_use_id: 'a', content: 'again' },
        ]),
      ),
    ).toThrow(/toolResults\(\): results\[2\] answers tool use "a" twice/)
  })

  it('throws a UsageError naming a result for an unknown tool use', () => {
    expect(() =>
      pipe(
        asking('a'),
        toolResults([
          { tool_use_id: 'a', content: 'A' },
          { tool_use_id: 'zz', content: '?' },
        ]),
      ),
    ).toThrow(/toolResults\(\): results\[1\] answers unknown tool use "zz"/)
    expect(() => pipe(empty, user('u'), toolResults([{ tool_use_id: 'a', content: 'A' }]))).toThrow(
      UsageError,
    )
  })

  it('returns the conversation unchanged when there are no tool uses and no results', () => {
    const c = pipe(empty, user('u'), assistant('no tools'))
    expect(toolResults([])(c)).toBe(c)
    expect(toolResults([])([c])).toBe(c)
  })
})

describe('stop', () => {
  it('appends a stop reason with zero counts for what is not given', () => {
    expect(
      pipe(empty, user('u'), stop('end_turn', { output_tokens: 5, reasoning_tokens: 2 })).data,
    ).toEqual({
      type: 'stop_reason',
      reason: 'end_turn',
      usage: {
        input_tokens: 0,
        output_tokens: 5,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        reasoning_tokens: 2,
      },
    })
    expect((pipe(empty, stop('max_tokens')).data as { usage: unknown }).usage).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    })
  })
})

describe('subConversation', () => {
  it('records a nested conversation by its heads, at depth 1 unless given', () => {
    const inner = pipe(empty, system('sub'), user('task'), assistant('done'))
    const c = pipe(
      empty,
      user('delegate'),
      subConversation({
        tool_name: 'agent',
        tool_use_id: 't1',
        system_prompt: 'sub',
        heads: [inner],
        summary: 'done',
      }),
    )
    const data = c.data as Extract<Entry, { type: 'sub_conversation' }>
    expect(data.type).toBe('sub_conversation')
    expect(data.heads[0]).toBe(inner)
    expect(data.depth).toBe(1)
    expect(Object.isFrozen(data.heads)).toBe(true)
    const deeper = pipe(
      empty,
      subConversation({
        tool_name: 'agent',
        tool_use_id: 't1',
        system_prompt: 'sub',
        heads: [inner],
        summary: 'done',
        depth: 2,
      }),
    )
    expect((deeper.data as { depth: number }).depth).toBe(2)
  })

  it('takes part in the id through the ids of the nested heads', () => {
    const sub = (inner: Conversation): Conversation =>
      pipe(
        empty,
        subConversation({
          tool_name: 'agent',
          tool_use_id: 't1',
          system_prompt: 's',
          heads: [inner],
          summary: '',
        }),
      )
    expect(sub(pipe(empty, user('a'))).id).toBe(sub(pipe(empty, user('a'))).id)
    expect(sub(pipe(empty, user('a'))).id).not.toBe(sub(pipe(empty, user('b'))).id)
  })
})

describe('toolResults on conversations it cannot answer', () => {
  it('refuses an assistant message that uses one tool use id twice', () => {
    const c = pipe(
      empty,
      assistant([
        { type: 'tool_use', id: 'x', name: 'a', input: {} },
        { type: 'tool_use', id: 'x', name: 'b', input: {} },
      ]),
    )
    expect(() => toolResults([{ tool_use_id: 'x', content: 'r' }])(c)).toThrow(
      /"x" is used by two calls/,
    )
  })

  it('refuses results for a conversation without tool uses, or with no heads', () => {
    expect(() => toolResults([])(empty)).toThrow(UsageError)
    expect(() =>
      toolResults([{ tool_use_id: 'x', content: 'r' }])(pipe(empty, user('hi'))),
    ).toThrow(/does not end in an assistant message with tool uses/)
  })
})
