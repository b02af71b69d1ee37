import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import {
  ancestorsOfAll,
  type Conversation,
  empty,
  messages,
  type Meta,
  subConversation,
  system,
  systemPrompt,
  toolDefinitions,
  user,
} from 'nerve-agents'
import {
  type ConversationDocument,
  type DecodeError,
  decodeNano,
  encodeNano,
  formatDecodeError,
  parseNano,
  stringifyNano,
} from 'nerve-agents/core'
import { describe, expect, it } from 'vitest'
import { conversations, longDocuments, shape } from './conversations.js'
import { mutated, pointsInto, resolve } from './hostile.js'

/** Written by nano-agent itself (`Node.save_graph`), kept as it is. */
const FIXTURE = new URL('fixtures/sub_agent_graph.json', import.meta.url)

const doc = (heads: readonly Conversation[]): ConversationDocument => ({ heads, metadata: {} })

const decoded = (u: unknown): ConversationDocument => {
  const r = decodeNano(u)
  if (E.isLeft(r)) throw new Error(formatDecodeError(r.left))
  return r.right
}

const failure = (u: unknown): DecodeError => {
  const r = decodeNano(u)
  if (E.isRight(r)) throw new Error('decoded')
  return r.left
}

const node = (
  id: string,
  parents: string[] = [],
  data: unknown = { type: 'system_prompt', content: id },
) => ({
  id,
  parent_ids: parents,
  data,
  timestamp: 1,
  metadata: {},
})

const graph = (nodes: Record<string, unknown>, heads: string[] = []): unknown => ({
  session_id: 's',
  created_at: 0,
  metadata: {},
  head_ids: heads,
  nodes,
})

describe('a graph file written by nano-agent', () => {
  const text = readFileSync(FIXTURE, 'utf8')
  const original = JSON.parse(text) as {
    created_at: number
    head_ids: string[]
    nodes: Record<string, unknown>
  }

  it('loads, with its session, heads and messages', () => {
    const r = parseNano(text)
    if (E.isLeft(r)) throw new Error(formatDecodeError(r.left))
    const d = r.right
    expect(d.sessionId).toBe('sub_agent_demo')
    expect(d.createdAt).toBe(original.created_at)
    expect(d.heads.map((h) => h.id)).toEqual(['1702cf3949b6'])
    expect(messages(d.heads).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(messages(d.heads)[0]).toEqual({
      type: 'message',
      role: 'user',
      content: 'Please review the file examples/hello_world.py for code quality.',
    })
    expect(systemPrompt(d.heads)).toBe(
      'You are a helpful assistant with access to code review tools.',
    )
    expect(toolDefinitions(d.heads).map((t) => t.name)).toEqual(['CodeReview'])
  })

  it('reads its sub_graph as a sub-conversation with its own messages', () => {
    const d = decoded(original)
    const sub = ancestorsOfAll(d.heads).find((v) => v.id === '547a56e01229')
    if (sub?.data.type !== 'sub_conversation') throw new Error('no sub-conversation')
    expect(sub.data.tool_name).toBe('CodeReviewer')
    expect(sub.data.depth).toBe(1)
    expect(sub.data.heads.map((h) => h.id)).toEqual(['0accb49ddc25'])
    expect(messages(sub.data.heads).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ])
  })

  it('keeps the timestamps as meta', () => {
    const d = decoded(original)
    expect(d.heads[0]?.meta).toEqual({ timestamp: 1769843959.381547 })
  })

  it('saves back the same nodes and head ids', () => {
    const d = decoded(JSON.parse(text))
    const back = JSON.parse(stringifyNano(d)) as typeof original
    expect(back.nodes).toEqual(original.nodes)
    expect(back.head_ids).toEqual(original.head_ids)
    expect(back).toEqual(original)
  })
})

describe('encodeNano', () => {
  it('writes messages without their type tag and entries as they are', () => {
    const c = pipe(
      empty,
      system('s', { id: 'a' }),
      user('hi', { id: 'b', meta: { timestamp: 5, k: 'v' } }),
    )
    expect(encodeNano(doc([c]))).toEqual({
      session_id: '',
      created_at: 0,
      metadata: {},
      head_ids: ['b'],
      nodes: {
        a: {
          id: 'a',
          parent_ids: [],
          data: { type: 'system_prompt', content: 's' },
          timestamp: 0,
          metadata: {},
        },
        b: {
          id: 'b',
          parent_ids: ['a'],
          data: { role: 'user', content: 'hi' },
          timestamp: 5,
          metadata: { k: 'v' },
        },
      },
    })
  })

  it('stamps nodes without a number timestamp with the one given', () => {
    const c = pipe(empty, user('hi', { meta: { timestamp: 'noon' } }))
    const json = encodeNano(doc([c]), { timestamp: 7, sessionId: 'x' })
    expect(json.nodes[c.id]).toMatchObject({ timestamp: 7, metadata: {} })
    expect(json.session_id).toBe('x')
    expect(json.created_at).toBe(7)
  })

  it('writes unknown blocks unwrapped and sub-conversations as sub_graph', () => {
    const raw = { type: 'server_tool_use', id: 'x' }
    const inner = pipe(empty, user([{ type: 'unknown', raw }], { id: 'i' }))
    const c = pipe(
      empty,
      subConversation(
        {
          tool_name: 'agent',
          tool_use_id: 't',
          system_prompt: 'p',
          heads: [inner],
          summary: 'ok',
          depth: 2,
        },
        { id: 's' },
      ),
    )
    expect(encodeNano(doc([c])).nodes.s?.data).toEqual({
      type: 'sub_graph',
      tool_name: 'agent',
      tool_use_id: 't',
      system_prompt: 'p',
      nodes: {
        i: {
          id: 'i',
          parent_ids: [],
          data: { role: 'user', content: [raw] },
          timestamp: 0,
          metadata: {},
        },
      },
      head_ids: ['i'],
      summary: 'ok',
      depth: 2,
    })
  })

  it('writes a vertex whose id is __proto__ as an own key', () => {
    const c = pipe(empty, user('hi', { id: '__proto__' }))
    const json = encodeNano(doc([c]))
    expect(Object.keys(json.nodes)).toEqual(['__proto__'])
    expect(
      pipe(
        parseNano(stringifyNano(doc([c]))),
        E.map((d) => d.heads[0]?.id),
      ),
    ).toEqual(E.right('__proto__'))
  })
})

describe('decodeNano', () => {
  it('adds the type tag to messages and keeps node ids', () => {
    const d = decoded(
      graph({ a: node('a'), b: node('b', ['a'], { role: 'assistant', content: 'yo' }) }, ['b']),
    )
    expect(messages(d.heads)).toEqual([{ type: 'message', role: 'assistant', content: 'yo' }])
    expect(ancestorsOfAll(d.heads).every((v) => v.hasId)).toBe(true)
  })

  it('makes the meta from the metadata and the timestamp', () => {
    const d = decoded(
      graph({ a: { ...node('a'), timestamp: 3, metadata: { usage: { n: 1 } } } }, ['a']),
    )
    expect(d.heads[0]?.meta).toEqual({ usage: { n: 1 }, timestamp: 3 })
  })

  it('accepts nodes in any order and, without head ids, takes the childless nodes', () => {
    const d = decoded(graph({ c: node('c', ['b']), b: node('b', ['a']), a: node('a') }))
    expect(d.heads.map((h) => h.id)).toEqual(['c'])
    expect(ancestorsOfAll(d.heads).map((v) => v.id)).toEqual(['a', 'b', 'c'])
  })
})

describe('decodeNano on bad input', () => {
  it('lists every value of the wrong shape with a JSON pointer', () => {
    const e = failure(
      graph({
        'a/b': node('a/b', [], { role: 'user', content: [{ type: 'text' }, 3] }),
        c: { id: 'c', parent_ids: 'a', data: { role: 'robot', content: '' }, timestamp: 'now' },
        d: node('d', [], {
          type: 'tool_execution',
          tool_name: 't',
          tool_use_id: 'u',
          result: [{ type: 'video' }],
          is_error: false,
        }),
      }),
    )
    expect(e).toEqual({
      _tag: 'Invalid',
      errors: [
        { path: '/nodes/a~1b/data/content/0/text', expected: 'string', actual: undefined },
        { path: '/nodes/a~1b/data/content/1', expected: 'Block', actual: 3 },
        { path: '/nodes/c/parent_ids', expected: 'Array<VertexId>', actual: 'a' },
        { path: '/nodes/c/data/role', expected: '"user" | "assistant"', actual: 'robot' },
        { path: '/nodes/c/timestamp', expected: 'number', actual: 'now' },
        {
          path: '/nodes/d/data/result/0',
          expected: 'TextBlock | ImageBlock',
          actual: { type: 'video' },
        },
      ],
    })
  })

  it('rejects data that is neither a known entry nor a message', () => {
    expect(failure(graph({ a: node('a', [], { type: 'mystery' }) }))).toEqual({
      _tag: 'Invalid',
      errors: [
        {
          path: '/nodes/a/data',
          expected:
            'SystemPrompt | ToolDefinitions | Message | ToolExecution | StopReason | SubGraph',
          actual: { type: 'mystery' },
        },
      ],
    })
  })

  it('reports a node stored under another key', () => {
    expect(failure(graph({ a: node('a'), k: node('b', ['a']) }))).toEqual({
      _tag: 'MismatchedId',
      key: 'k',
      id: 'b',
      path: '/nodes/k',
    })
  })

  it('reports missing parents, cycles and unknown heads', () => {
    expect(failure(graph({ a: node('a', ['z']) }))).toEqual({
      _tag: 'MissingParent',
      vertex: 'a',
      parent: 'z',
      path: '/nodes/a/parent_ids/0',
    })
    expect(failure(graph({ a: node('a', ['b']), b: node('b', ['a']) }))).toMatchObject({
      _tag: 'Cycle',
      cycle: ['a', 'b', 'a'],
      path: '/nodes/a',
    })
    expect(failure(graph({ a: node('a') }, ['nope']))).toEqual({
      _tag: 'UnknownHead',
      id: 'nope',
      path: '/head_ids/0',
    })
  })

  it('gives paths inside a sub_graph from the top of the file', () => {
    const sub = {
      type: 'sub_graph',
      tool_name: 't',
      tool_use_id: 'u',
      system_prompt: 'p',
      nodes: { x: node('y') },
      head_ids: ['y'],
      summary: '',
      depth: 1,
    }
    expect(failure(graph({ s: node('s', [], sub) }, ['s']))).toEqual({
      _tag: 'MismatchedId',
      key: 'x',
      id: 'y',
      path: '/nodes/s/data/nodes/x',
    })
  })
})

/** What a vertex's meta becomes after a trip through nano-agent's format. */
const nanoMeta = (m: Meta): Meta => ({
  ...Object.fromEntries(Object.entries(m).filter(([k]) => k !== 'timestamp')),
  timestamp: typeof m.timestamp === 'number' ? m.timestamp : 0,
})

describe("nano-agent's format", () => {
  it('decode(encode(c)) preserves ids, parents, data and meta (with a timestamp)', () => {
    fc.assert(
      fc.property(conversations(), (heads) => {
        const back = decoded(encodeNano(doc(heads)))
        expect(shape(back.heads)).toEqual(shape(heads, nanoMeta))
      }),
      { numRuns: 150 },
    )
  })

  it('parse(stringify(c)) preserves what JSON can carry', () => {
    fc.assert(
      fc.property(conversations(8), (heads) => {
        const text = stringifyNano(doc(heads))
        const back = parseNano(text)
        if (E.isLeft(back)) throw new Error(formatDecodeError(back.left))
        expect(shape(back.right.heads)).toEqual(JSON.parse(JSON.stringify(shape(heads, nanoMeta))))
        expect(stringifyNano(back.right)).toBe(text)
      }),
      { numRuns: 60 },
    )
  })

  it('stringify writes the text of JSON.stringify(encode(c)), on documents of hundreds of vertices too', () => {
    const timestamps = fc.option(fc.integer({ min: 0, max: 2e9 }), { nil: undefined })
    fc.assert(
      fc.property(longDocuments, timestamps, (d, timestamp) => {
        const options = timestamp === undefined ? undefined : { timestamp, sessionId: 's' }
        expect(stringifyNano(d, options)).toBe(JSON.stringify(encodeNano(d, options)))
      }),
      { numRuns: 40 },
    )
  })

  it('stringify keeps the order of an object when ids are array indices', () => {
    const c = pipe(empty, user('b', { id: '12' }), user('a', { id: 'x' }), user('c', { id: '7' }))
    const text = stringifyNano(doc([c]))
    expect(text).toBe(JSON.stringify(encodeNano(doc([c]))))
    expect(Object.keys((JSON.parse(text) as { nodes: object }).nodes)).toEqual(['7', '12', 'x'])
  })

  it('a file with one value replaced or removed gives a typed error whose path leads to that value', () => {
    const files = conversations(6).chain((heads) => mutated(encodeNano(doc(heads))))
    fc.assert(
      fc.property(files, (u) => {
        const r = decodeNano(u)
        if (E.isRight(r)) return
        const e = r.left
        if (e._tag === 'Invalid') expect(pointsInto(u, e.errors)).toBe(true)
        else if (e._tag !== 'InvalidJson') expect(() => resolve(u, e.path)).not.toThrow()
        expect(formatDecodeError(e).length).toBeGreaterThan(0)
      }),
      { numRuns: 300 },
    )
  })

  it('no JSON value makes the decoder throw, and every error renders', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything()), (u) => {
        const text = pipe(
          decodeNano(u),
          E.match(formatDecodeError, () => 'decoded'),
        )
        expect(text.length).toBeGreaterThan(0)
      }),
      { numRuns: 300 },
    )
  })
})
