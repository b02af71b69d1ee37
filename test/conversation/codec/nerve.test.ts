import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import {
  ancestorsOfAll,
  assistant,
  type Conversation,
  empty,
  messages,
  subConversation,
  system,
  toolResults,
  user,
} from 'nerve-agents'
import {
  type ConversationDocument,
  decodeConversation,
  type DecodeError,
  encodeConversation,
  encodeConversationPart,
  formatDecodeError,
  parseConversation,
  stringifyConversation,
} from 'nerve-agents/core'
import { describe, expect, it } from 'vitest'
import { conversations, longDocuments, shape } from './conversations.js'
import { mutated, pointsInto, resolve } from './hostile.js'

const doc = (heads: readonly Conversation[]): ConversationDocument => ({ heads, metadata: {} })

const decoded = (u: unknown): ConversationDocument => {
  const r = decodeConversation(u)
  if (E.isLeft(r)) throw new Error(formatDecodeError(r.left))
  return r.right
}

const failure = (u: unknown): DecodeError => {
  const r = decodeConversation(u)
  if (E.isRight(r)) throw new Error('decoded')
  return r.left
}

const file = (vertices: unknown[], heads: string[] = []): unknown => ({
  format: 'nerve/conversation',
  version: 1,
  heads,
  vertices,
})

const sys = (id: string, parents: string[] = [], content = id): unknown => ({
  id,
  parents,
  data: { type: 'system_prompt', content },
  meta: {},
})

const tooled = pipe(
  empty,
  system('Be brief.'),
  user('weather in Oslo and Lima?'),
  assistant([
    { type: 'thinking', thinking: 'two calls', signature: 'sig' },
    { type: 'tool_use', id: 'a', name: 'weather', input: { city: 'Oslo' } },
    { type: 'tool_use', id: 'b', name: 'weather', input: { city: 'Lima' } },
  ]),
  toolResults([
    { tool_use_id: 'a', content: '3°C' },
    { tool_use_id: 'b', content: [{ type: 'text', text: '24°C' }] },
  ]),
)

describe('encodeConversation', () => {
  it('writes the format, the head ids and every vertex in causal order', () => {
    const json = encodeConversation(doc([tooled]))
    expect(json.format).toBe('nerve/conversation')
    expect(json.version).toBe(1)
    expect(json.heads).toEqual([tooled.id])
    expect(json.vertices.map((v) => v.id)).toEqual(ancestorsOfAll([tooled]).map((v) => v.id))
    const seen = new Set<string>()
    for (const v of json.vertices) {
      for (const p of v.parents) expect(seen.has(p)).toBe(true)
      seen.add(v.id)
    }
  })

  it('writes messages with their type tag and entries as they are', () => {
    const c = pipe(empty, user('hi'))
    const [v] = encodeConversation(doc([c])).vertices
    expect(v?.data).toBe(c.data)
    expect(v?.data).toEqual({ type: 'message', role: 'user', content: 'hi' })
  })

  it('writes unknown blocks unwrapped', () => {
    const raw = { type: 'document', source: { url: 'x' } }
    const c = pipe(empty, user([{ type: 'unknown', raw }]))
    const [v] = encodeConversation(doc([c])).vertices
    expect(v?.data).toEqual({ type: 'message', role: 'user', content: [raw] })
  })

  it('writes a sub-conversation as its own nested heads and vertices', () => {
    const inner = pipe(empty, system('sub'), user('go'))
    const c = pipe(
      empty,
      subConversation({
        tool_name: 'agent',
        tool_use_id: 't',
        system_prompt: 'sub',
        heads: [inner],
        summary: 'done',
      }),
    )
    const [v] = encodeConversation(doc([c])).vertices
    expect(v?.data).toEqual({
      type: 'sub_conversation',
      tool_name: 'agent',
      tool_use_id: 't',
      system_prompt: 'sub',
      heads: [inner.id],
      vertices: encodeConversation(doc([inner])).vertices,
      summary: 'done',
      depth: 1,
    })
  })

  it('writes two vertex objects with the same id once', () => {
    const base = pipe(empty, system('s'))
    const a = pipe(base, user('same'))
    const b = pipe(base, user('same'))
    expect(a).not.toBe(b)
    const json = encodeConversation(doc([a, b]))
    expect(json.vertices.map((v) => v.id)).toEqual([base.id, a.id])
    expect(json.heads).toEqual([a.id, a.id])
    expect(decoded(json).heads.map((h) => h.id)).toEqual([a.id, a.id])
  })

  it('writes the metadata, session id and creation time of the document', () => {
    const json = encodeConversation({ heads: [], metadata: { k: 1 }, sessionId: 's', createdAt: 2 })
    expect(json).toEqual({
      format: 'nerve/conversation',
      version: 1,
      heads: [],
      vertices: [],
      metadata: { k: 1 },
      session_id: 's',
      created_at: 2,
    })
    expect(decoded(json)).toEqual({ heads: [], metadata: { k: 1 }, sessionId: 's', createdAt: 2 })
  })
})

describe('decodeConversation', () => {
  it('keeps the ids of the file, so nothing is hashed on load', () => {
    const d = decoded(file([sys('x'), sys('y', ['x'])], ['y']))
    const all = ancestorsOfAll(d.heads)
    expect(all.every((v) => v.hasId)).toBe(true)
    expect(all.map((v) => v.id)).toEqual(['x', 'y'])
  })

  it('accepts vertices in any order', () => {
    const json = encodeConversation(doc([tooled]))
    const reversed = { ...json, vertices: [...json.vertices].reverse() }
    const d = decoded(reversed)
    expect(shape(d.heads)).toEqual(shape([tooled]))
  })

  it('builds frozen vertices with frozen data', () => {
    const d = decoded(JSON.parse(stringifyConversation(doc([tooled]))))
    for (const v of ancestorsOfAll(d.heads)) {
      expect(Object.isFrozen(v)).toBe(true)
      expect(Object.isFrozen(v.data)).toBe(true)
      expect(Object.isFrozen(v.meta)).toBe(true)
    }
    expect(Object.isFrozen(d)).toBe(true)
    expect(Object.isFrozen(d.heads)).toBe(true)
  })

  it('wraps blocks of unknown types and keeps them whole', () => {
    const raw = { type: 'document', source: { data: [1, 2, 3] } }
    const d = decoded(
      file(
        [
          {
            id: 'm',
            parents: [],
            data: { type: 'message', role: 'user', content: [raw] },
            meta: {},
          },
        ],
        ['m'],
      ),
    )
    expect(messages(d.heads)[0]?.content).toEqual([{ type: 'unknown', raw }])
  })

  it('takes the vertices without children as heads when none are listed', () => {
    const d = decoded(file([sys('a'), sys('b', ['a']), sys('c', ['a'])]))
    expect(d.heads.map((h) => h.id)).toEqual(['b', 'c'])
  })

  it('reads a missing meta as empty', () => {
    const d = decoded(
      file([{ id: 'a', parents: [], data: { type: 'system_prompt', content: 'x' } }], ['a']),
    )
    expect(d.heads[0]?.meta).toEqual({})
  })

  it('loads a chain of a million vertices listed newest first', () => {
    const n = 1_000_000
    const vertices: unknown[] = []
    const data = { type: 'system_prompt', content: 'x' }
    for (let i = n - 1; i >= 0; i--) {
      vertices.push({ id: `v${i}`, parents: i === 0 ? [] : [`v${i - 1}`], data, meta: {} })
    }
    const d = decoded(file(vertices, [`v${n - 1}`]))
    let depth = 0
    for (let v: Conversation | undefined = d.heads[0]; v !== undefined; v = v.parents[0]) depth++
    expect(depth).toBe(n)
  })
})

describe('decodeConversation on bad input', () => {
  it('lists every value of the wrong shape, each with a JSON pointer', () => {
    const e = failure(
      file([
        sys('a'),
        {
          id: 'b',
          parents: ['a'],
          data: { type: 'message', role: 'user', content: [{ type: 'text', text: 1 }, 'x'] },
        },
        { id: '', parents: [7], data: { type: 'nope' } },
      ]),
    )
    expect(e).toEqual({
      _tag: 'Invalid',
      errors: [
        { path: '/vertices/1/data/content/0/text', expected: 'string', actual: 1 },
        { path: '/vertices/1/data/content/1', expected: 'Block', actual: 'x' },
        { path: '/vertices/2/id', expected: 'VertexId', actual: '' },
        { path: '/vertices/2/parents/0', expected: 'VertexId', actual: 7 },
        { path: '/vertices/2/data', expected: 'Entry', actual: { type: 'nope' } },
      ],
    })
  })

  it('names the top-level fields that are wrong', () => {
    expect(failure({ format: 'other', version: 2, heads: 'h' })).toEqual({
      _tag: 'Invalid',
      errors: [
        { path: '/format', expected: '"nerve/conversation"', actual: 'other' },
        { path: '/version', expected: '1', actual: 2 },
        { path: '/heads', expected: 'Array<VertexId>', actual: 'h' },
        { path: '/vertices', expected: 'UnknownArray', actual: undefined },
      ],
    })
    expect(failure(null)).toEqual({
      _tag: 'Invalid',
      errors: [{ path: '', expected: 'NerveConversation', actual: null }],
    })
  })

  it('reports a missing parent with the vertex and the parent', () => {
    expect(failure(file([sys('a'), sys('b', ['a', 'z'])]))).toEqual({
      _tag: 'MissingParent',
      vertex: 'b',
      parent: 'z',
      path: '/vertices/1/parents/1',
    })
  })

  it('reports a duplicate id where it appears again', () => {
    expect(failure(file([sys('a'), sys('b', ['a']), sys('a', [], 'other')]))).toEqual({
      _tag: 'DuplicateId',
      vertex: 'a',
      path: '/vertices/2/id',
    })
  })

  it('reports a cycle with the ids around it', () => {
    expect(failure(file([sys('r'), sys('a', ['b']), sys('b', ['a'])]))).toEqual({
      _tag: 'Cycle',
      vertex: 'a',
      cycle: ['a', 'b', 'a'],
      path: '/vertices/1',
    })
    expect(failure(file([sys('s', ['s'])]))).toMatchObject({ _tag: 'Cycle', cycle: ['s', 's'] })
  })

  it('reports a head that is not a vertex', () => {
    expect(failure(file([sys('a')], ['a', 'q']))).toEqual({
      _tag: 'UnknownHead',
      id: 'q',
      path: '/heads/1',
    })
  })

  it('gives paths inside a sub-conversation from the top of the file', () => {
    const sub = (vertices: unknown[], heads: string[]): unknown => ({
      id: 's',
      parents: [],
      data: {
        type: 'sub_conversation',
        tool_name: 't',
        tool_use_id: 'u',
        system_prompt: 'p',
        heads,
        vertices,
        summary: '',
        depth: 1,
      },
      meta: {},
    })
    expect(failure(file([sub([sys('a'), sys('b', ['x'])], ['b'])], ['s']))).toEqual({
      _tag: 'MissingParent',
      vertex: 'b',
      parent: 'x',
      path: '/vertices/0/data/vertices/1/parents/0',
    })
    expect(failure(file([sub([{ id: 'a', parents: [], data: 5 }], ['a'])], ['s']))).toEqual({
      _tag: 'Invalid',
      errors: [{ path: '/vertices/0/data/vertices/0/data', expected: 'Entry', actual: 5 }],
    })
  })

  it('reports text that is not JSON', () => {
    const r = parseConversation('{"format": ')
    expect(E.isLeft(r) && r.left._tag).toBe('InvalidJson')
  })

  it('keeps a tool input nested 100000 deep, as it is not walked', () => {
    let deep: unknown = []
    for (let i = 0; i < 100_000; i++) deep = [deep]
    const json = file(
      [
        {
          id: 'a',
          parents: [],
          data: {
            type: 'message',
            role: 'assistant',
            content: [{ type: 'tool_use', id: 't', name: 'n', input: { deep } }],
          },
        },
      ],
      ['a'],
    )
    const d = decoded(json)
    const text = stringifyConversation(d)
    expect(text.length).toBeGreaterThan(200_000)
    expect(
      pipe(
        parseConversation(text),
        E.map((x) => x.heads[0]?.id),
      ),
    ).toEqual(E.right('a'))
  })

  it('rejects content nested 100000 deep at its first block', () => {
    let deep: unknown = []
    for (let i = 0; i < 100_000; i++) deep = [deep]
    const e = failure(
      file([{ id: 'a', parents: [], data: { type: 'message', role: 'user', content: [deep] } }]),
    )
    expect(e._tag === 'Invalid' && e.errors.map((x) => x.path)).toEqual([
      '/vertices/0/data/content/0',
    ])
  })

  it('reads and writes sub-conversations nested 10000 deep', () => {
    // Given ids: hashing the id of a vertex that holds vertices recurses (see Vertex).
    let c: Conversation = pipe(empty, user('innermost', { id: 'in' }))
    for (let i = 0; i < 10_000; i++) {
      c = pipe(
        empty,
        subConversation(
          { tool_name: 't', tool_use_id: `u${i}`, system_prompt: '', heads: [c], summary: '' },
          { id: `s${i}` },
        ),
      )
    }
    const text = stringifyConversation(doc([c]))
    const back = parseConversation(text)
    expect(
      pipe(
        back,
        E.map((d) => d.heads[0]?.id),
      ),
    ).toEqual(E.right('s9999'))
    expect(pipe(back, E.map(stringifyConversation))).toEqual(E.right(text))
  })
})

describe('the Nerve format', () => {
  it('decode(encode(c)) preserves ids, parents, data and meta', () => {
    fc.assert(
      fc.property(conversations(), (heads) => {
        const back = decoded(encodeConversation(doc(heads)))
        expect(shape(back.heads)).toEqual(shape(heads))
      }),
      { numRuns: 150 },
    )
  })

  it('a part holds the vertices of the whole file that no known vertex reaches, in its order, with every head', () => {
    fc.assert(
      fc.property(conversations(), fc.array(fc.nat(), { maxLength: 4 }), (heads, picks) => {
        const whole = encodeConversation(doc(heads))
        const ids = whole.vertices.map((v) => v.id)
        const known = ids.length === 0 ? [] : picks.map((i) => ids[i % ids.length]!)
        // What a reader holding `known` holds: them and their ancestors, by the file's parents.
        const parents = new Map(whole.vertices.map((v) => [v.id, v.parents]))
        const held = new Set<string>()
        const todo = [...known]
        for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
          if (held.has(id)) continue
          held.add(id)
          todo.push(...parents.get(id)!)
        }
        const part = encodeConversationPart(doc(heads), [...known, 'not-a-vertex'])
        expect(part.heads).toEqual(whole.heads)
        expect(part.vertices).toEqual(whole.vertices.filter((v) => !held.has(v.id)))
      }),
      { numRuns: 150 },
    )
  })

  it('stringify writes the text of JSON.stringify(encode(c)), on documents of hundreds of vertices too', () => {
    fc.assert(
      fc.property(longDocuments, (d) => {
        expect(stringifyConversation(d)).toBe(JSON.stringify(encodeConversation(d)))
      }),
      { numRuns: 40 },
    )
  })

  it('parse(stringify(c)) preserves what JSON can carry', () => {
    fc.assert(
      fc.property(conversations(8), (heads) => {
        const text = stringifyConversation(doc(heads))
        const back = parseConversation(text)
        if (E.isLeft(back)) throw new Error(formatDecodeError(back.left))
        expect(shape(back.right.heads)).toEqual(JSON.parse(JSON.stringify(shape(heads))))
        expect(stringifyConversation(back.right)).toBe(text)
      }),
      { numRuns: 60 },
    )
  })

  it('a file with one value replaced or removed gives a typed error whose path leads to that value', () => {
    const files = conversations(6).chain((heads) => mutated(encodeConversation(doc(heads))))
    fc.assert(
      fc.property(files, (u) => {
        const r = decodeConversation(u)
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
          decodeConversation(u),
          E.match(formatDecodeError, () => 'decoded'),
        )
        expect(text.length).toBeGreaterThan(0)
      }),
      { numRuns: 300 },
    )
  })
})
