import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import {
  BlockCodec,
  ContentCodec,
  MessageCodec,
  NanoMessageCodec,
  StopReasonCodec,
  ToolResultBlockCodec,
  ToolResultContentCodec,
  ToolUseBlockCodec,
  UnknownBlockCodec,
  UsageCodec,
} from 'nerve-agents/core'
import { describe, expect, it } from 'vitest'

/** The paths (JSON pointers) and expected types of a failed decoding. */
const problems = (r: t.Validation<unknown>): [string, string][] =>
  E.isRight(r)
    ? []
    : r.left.map((e) => [
        e.context
          .slice(1)
          .map((c) => `/${c.key}`)
          .join(''),
        e.context[e.context.length - 1]!.type.name,
      ])

describe('BlockCodec', () => {
  it('decodes known blocks as they are', () => {
    const b = { type: 'tool_use', id: 't', name: 'read', input: { path: 'a' } }
    const r = BlockCodec.decode(b)
    expect(E.isRight(r) && r.right).toBe(b)
  })

  it('keeps a block of an unknown type as raw, the very object', () => {
    const raw = { type: 'web_search_result', url: 'u', nested: { a: [1] } }
    const r = BlockCodec.decode(raw)
    expect(r).toEqual(E.right({ type: 'unknown', raw }))
    expect(E.isRight(r) && r.right.type === 'unknown' && r.right.raw).toBe(raw)
  })

  it("treats a block tagged 'unknown' on the wire as one more unknown type", () => {
    const raw = { type: 'unknown', raw: { type: 'x' } }
    expect(BlockCodec.decode(raw)).toEqual(E.right({ type: 'unknown', raw }))
  })

  it('encodes an unknown block back to its raw object, a known one to itself', () => {
    const raw = { type: 'x', v: 1 }
    expect(BlockCodec.encode({ type: 'unknown', raw })).toBe(raw)
    const text = { type: 'text', text: 'hi' } as const
    expect(BlockCodec.encode(text)).toBe(text)
  })

  it('rejects a known block of the wrong shape at the field', () => {
    expect(problems(BlockCodec.decode({ type: 'thinking', thinking: 'x' }))).toEqual([
      ['/signature', 'string'],
    ])
    expect(
      problems(BlockCodec.decode({ type: 'image', source: { type: 'url', url: 'u' } })),
    ).toEqual([
      ['/source/type', '"base64"'],
      ['/source/media_type', 'string'],
      ['/source/data', 'string'],
    ])
  })

  it('rejects what is not a tagged object', () => {
    for (const u of [null, 'text', 3, [], {}, { type: 4 }])
      expect(problems(BlockCodec.decode(u))).toEqual([['', 'Block']])
  })

  it('guards the decoded form', () => {
    expect(BlockCodec.is({ type: 'unknown', raw: { type: 'x' } })).toBe(true)
    expect(BlockCodec.is({ type: 'x' })).toBe(false)
    expect(UnknownBlockCodec.is({ type: 'unknown', raw: {} })).toBe(false)
  })
})

describe('ContentCodec', () => {
  it('returns the same array when no block changes', () => {
    const content = [{ type: 'text', text: 'a' }]
    const r = ContentCodec.decode(content)
    expect(E.isRight(r) && r.right).toBe(content)
  })

  it('copies the array only to wrap unknown blocks, and collects every error', () => {
    const content = [{ type: 'text', text: 'a' }, { type: 'x' }]
    const r = ContentCodec.decode(content)
    expect(r).toEqual(
      E.right([
        { type: 'text', text: 'a' },
        { type: 'unknown', raw: { type: 'x' } },
      ]),
    )
    expect(content[1]).toEqual({ type: 'x' })
    expect(problems(ContentCodec.decode([{ type: 'text' }, 5, 'x']))).toEqual([
      ['/0/text', 'string'],
      ['/1', 'Block'],
      ['/2', 'Block'],
    ])
    expect(problems(ContentCodec.decode(7))).toEqual([['', 'string | Array<Block>']])
  })
})

describe('tool results', () => {
  it('accept text and image blocks only', () => {
    expect(
      problems(ToolResultContentCodec.decode([{ type: 'text', text: 'a' }, { type: 'document' }])),
    ).toEqual([['/1', 'TextBlock | ImageBlock']])
  })

  it('may leave is_error out, but not give it another type', () => {
    const b = { type: 'tool_result', tool_use_id: 't', content: 'ok' }
    expect(ToolResultBlockCodec.decode(b)).toEqual(E.right(b))
    expect(problems(ToolResultBlockCodec.decode({ ...b, is_error: 'no' }))).toEqual([
      ['/is_error', 'boolean'],
    ])
  })

  it('keep a tool input of any depth without walking it', () => {
    let deep: unknown = {}
    for (let i = 0; i < 100_000; i++) deep = { deep }
    expect(
      E.isRight(ToolUseBlockCodec.decode({ type: 'tool_use', id: 'i', name: 'n', input: deep })),
    ).toBe(true)
  })
})

describe('messages', () => {
  it('of the Nerve format carry their tag', () => {
    const m = { type: 'message', role: 'user', content: 'hi' }
    expect(MessageCodec.decode(m)).toEqual(E.right(m))
    expect(
      problems(MessageCodec.decode({ type: 'message', role: 'system', content: 'hi' })),
    ).toEqual([['/role', '"user" | "assistant"']])
  })

  it("of nano-agent's format get their tag on decoding and lose it on encoding", () => {
    const raw = { type: 'x' }
    expect(NanoMessageCodec.decode({ role: 'assistant', content: [raw] })).toEqual(
      E.right({ type: 'message', role: 'assistant', content: [{ type: 'unknown', raw }] }),
    )
    expect(
      NanoMessageCodec.encode({
        type: 'message',
        role: 'assistant',
        content: [{ type: 'unknown', raw }],
      }),
    ).toEqual({
      role: 'assistant',
      content: [raw],
    })
  })
})

describe('stop reasons', () => {
  it('need the four Anthropic counts and take the optional ones', () => {
    const usage = {
      input_tokens: 1,
      output_tokens: 2,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    }
    expect(UsageCodec.decode({ ...usage, total_tokens: 3 })).toEqual(
      E.right({ ...usage, total_tokens: 3 }),
    )
    expect(
      problems(
        StopReasonCodec.decode({
          type: 'stop_reason',
          reason: 'end_turn',
          usage: { input_tokens: 1 },
        }),
      ),
    ).toEqual([
      ['/usage/output_tokens', 'number'],
      ['/usage/cache_creation_input_tokens', 'number'],
      ['/usage/cache_read_input_tokens', 'number'],
    ])
  })
})
