import { pipe } from 'fp-ts/lib/function.js'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
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
import {
  head,
  messages,
  systemPrompt,
  toolDefinitions,
  usage,
} from '../../src/conversation/project.js'

const schema = { type: 'object' }
const def = (name: string, description: string) => ({ name, description, input_schema: schema })

describe('messages', () => {
  it('lists the messages in causal order and nothing else', () => {
    const inner = pipe(empty, user('inner'))
    const c = pipe(
      empty,
      system('s'),
      tools([def('read', 'r')]),
      user('u'),
      assistant([{ type: 'tool_use', id: 'a', name: 'read', input: {} }]),
      toolResults([{ tool_use_id: 'a', content: 'A' }]),
      stop('end_turn'),
      subConversation({
        tool_name: 'agent',
        tool_use_id: 't',
        system_prompt: '',
        heads: [inner],
        summary: '',
      }),
      assistant('done'),
    )
    expect(messages(c).map((m) => [m.role, m.content])).toEqual([
      ['user', 'u'],
      ['assistant', [{ type: 'tool_use', id: 'a', name: 'read', input: {} }]],
      ['user', [{ type: 'tool_result', tool_use_id: 'a', content: 'A', is_error: false }]],
      ['assistant', 'done'],
    ])
  })

  it('is empty for no heads', () => {
    expect(messages(empty)).toEqual([])
  })

  it('lists each message of a merge once, the first head history first', () => {
    const base = pipe(empty, user('base'))
    const a = pipe(base, assistant('a'))
    const b = pipe(base, assistant('b'))
    expect(messages(appendTo([b, a], user('joined'))).map((m) => m.content)).toEqual([
      'base',
      'b',
      'a',
      'joined',
    ])
    expect(messages([a, b]).map((m) => m.content)).toEqual(['base', 'a', 'b'])
  })

  it('returns the entries themselves, frozen', () => {
    const c = pipe(empty, user('u'))
    expect(messages(c)[0]).toBe(c.data)
    expect(Object.isFrozen(messages(c)[0])).toBe(true)
  })
})

describe('systemPrompt', () => {
  it('joins every system prompt of the history with a blank line', () => {
    expect(systemPrompt(pipe(empty, system('a'), user('u'), system('b')))).toBe('a\n\nb')
  })

  it('is empty when there is none', () => {
    expect(systemPrompt(pipe(empty, user('u')))).toBe('')
    expect(systemPrompt(empty)).toBe('')
  })
})

describe('toolDefinitions', () => {
  it('collects the definitions of the history', () => {
    const c = pipe(empty, tools([def('read', 'r')]), user('u'), tools([def('write', 'w')]))
    expect(toolDefinitions(c).map((t) => t.name)).toEqual(['read', 'write'])
  })

  it('replaces an earlier definition of the same name in its place', () => {
    const c = pipe(
      empty,
      tools([def('read', 'old'), def('write', 'w')]),
      tools([def('search', 's'), def('read', 'new')]),
    )
    expect(toolDefinitions(c).map((t) => [t.name, t.description])).toEqual([
      ['read', 'new'],
      ['write', 'w'],
      ['search', 's'],
    ])
  })

  it('is empty when no tools are defined', () => {
    expect(toolDefinitions(pipe(empty, user('u')))).toEqual([])
  })
})

describe('usage', () => {
  it('adds up the four counts of every stop reason', () => {
    const c = pipe(
      empty,
      user('a'),
      stop('end_turn', { input_tokens: 3, output_tokens: 1, cache_read_input_tokens: 10 }),
      user('b'),
      stop('end_turn', { input_tokens: 4, cache_creation_input_tokens: 2 }),
    )
    expect(usage(c)).toEqual({
      input_tokens: 7,
      output_tokens: 1,
      cache_creation_input_tokens: 2,
      cache_read_input_tokens: 10,
    })
  })

  it('adds the optional counts only when some stop reason reported them', () => {
    const c = pipe(
      empty,
      stop('end_turn', { reasoning_tokens: 5 }),
      stop('end_turn', { reasoning_tokens: 1, total_tokens: 9 }),
      stop('end_turn'),
    )
    const u = usage(c)
    expect(u.reasoning_tokens).toBe(6)
    expect(u.total_tokens).toBe(9)
    expect('cached_tokens' in u).toBe(false)
  })

  it('counts a stop reason shared by two branches once', () => {
    const base = pipe(empty, user('u'), stop('end_turn', { output_tokens: 2 }))
    const a = pipe(base, stop('end_turn', { output_tokens: 1 }))
    const b = pipe(base, stop('end_turn', { output_tokens: 4 }))
    expect(usage([a, b]).output_tokens).toBe(7)
  })

  it('is all zeros when there is no stop reason', () => {
    expect(usage(pipe(empty, user('u')))).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    })
  })
})

describe('head', () => {
  it('finds the single head of a set of vertices', () => {
    const a = pipe(empty, user('a'))
    const b = pipe(a, assistant('b'))
    expect(head([a, b])).toEqual(E.right(b))
    expect(head([b, a, b])).toEqual(E.right(b))
  })

  it('names how many heads there are when there are several', () => {
    const a = pipe(empty, user('a'))
    const b = pipe(a, assistant('b'))
    const c = pipe(a, assistant('c'))
    expect(head([a, b, c])).toEqual(E.left({ _tag: 'NotSingleHead', count: 2, heads: [b, c] }))
  })

  it('names a count of 0 when there is no head', () => {
    expect(head([])).toEqual(E.left({ _tag: 'NotSingleHead', count: 0, heads: [] }))
  })
})
