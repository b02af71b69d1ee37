import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  ancestors,
  assistant,
  type Conversation,
  empty,
  stop,
  subConversation,
  system,
  tools,
  UsageError,
  user,
} from '../../../src/index.js'
import { renderText } from '../../../src/core.js'
import { weather } from './conversations.js'

const short = (v: Conversation): string => v.id.slice(0, 8)

describe('renderText', () => {
  it('draws a parallel fan-out in lanes and joins it at the merge, in causal order', () => {
    const c = weather()
    const [sys, ask, asked, a, b, cc, merged] = ancestors(c).map(short)
    expect(renderText(c)).toBe(
      [
        `conversation · 8 vertices · 1 head: ${short(c)}`,
        `● SYSTEM ${sys}`,
        '│   You are terse.',
        `● USER ${ask}`,
        '│   Weather in Oslo, Lima and Rome?',
        `● ASSISTANT ${asked} · fan-out → 3 branches`,
        '│   Checking.',
        '│   TOOL_USE a weather {"city":"Oslo"}',
        '│   TOOL_USE b weather {"city":"Lima"}',
        '│   TOOL_USE c weather {"city":"Rome"}',
        '├─┬─┐',
        `● │ │ EXEC ${a} weather (a)`,
        '│ │ │   3°C',
        `│ ● │ EXEC ${b} weather (b)`,
        '│ │ │   24°C',
        '│ │ │   sunny',
        `│ │ ● EXEC ${cc} weather (c) error`,
        '│ │ │   18°C',
        '├─┴─┘',
        `● USER ${merged} · merge ← ${a}, ${b}, ${cc}`,
        '│   RESULT a: 3°C',
        '│   RESULT b: 24°C',
        '│     sunny',
        '│   RESULT c (error): 18°C',
        `● ASSISTANT ${short(c)} · head`,
        '    Oslo 3, Lima 24, Rome 18.',
        '',
      ].join('\n'),
    )
  })

  it('names every head and keeps a lane for each open branch', () => {
    const base = pipe(empty, system('Be brief.'), user('hi'))
    const left = pipe(base, assistant('hello'), user('more'))
    const right = pipe(base, assistant('hey'))
    const lines = renderText([left, right]).split('\n')
    expect(lines[0]).toBe(`conversation · 5 vertices · 2 heads: ${short(left)}, ${short(right)}`)
    expect(lines).toContain('├─┐')
    expect(lines).toContain(`● │ USER ${short(left)} · head`)
    expect(lines).toContain(`  ● ASSISTANT ${short(right)} · head`)
    expect(lines.filter((l) => l.endsWith('· head'))).toHaveLength(2)
  })

  it('draws only the heads of the given vertices when one is an ancestor of another', () => {
    const a = pipe(empty, user('a'))
    const b = pipe(a, assistant('b'))
    expect(renderText([a, b])).toBe(renderText(b))
  })

  it('labels system prompts, tool definitions and stop reasons with their details', () => {
    const c = pipe(
      empty,
      tools([{ name: 'read', description: 'Reads a file', input_schema: {} }]),
      user('go'),
      stop('end_turn', { input_tokens: 12, output_tokens: 3 }),
    )
    const text = renderText(c)
    expect(text).toMatch(/● TOOLS \w{8} 1 tool\n│ {3}read — Reads a file\n/)
    expect(text).toMatch(/● STOP \w{8} end_turn · in 12 · out 3 · head\n$/)
  })

  it('draws a sub-conversation nested and indented under its vertex', () => {
    const inner = pipe(empty, system('You research.'), user('find it'), assistant('found'))
    const c = pipe(
      empty,
      user('ask'),
      subConversation({
        tool_name: 'research',
        tool_use_id: 'toolu_1',
        system_prompt: 'You research.',
        heads: [inner],
        summary: 'It was found.',
      }),
    )
    const lines = renderText(c).split('\n')
    const at = lines.findIndex((l) => l.startsWith('● SUBGRAPH'))
    expect(lines[at]).toBe(`● SUBGRAPH ${short(c)} research (toolu_1) · depth 1 · head`)
    expect(lines.slice(at + 1, at + 8)).toEqual([
      `    ┊ conversation · 3 vertices · 1 head: ${short(inner)}`,
      `    ┊ ● SYSTEM ${short(inner.parents[0]!.parents[0]!)}`,
      '    ┊ │   You research.',
      `    ┊ ● USER ${short(inner.parents[0]!)}`,
      '    ┊ │   find it',
      `    ┊ ● ASSISTANT ${short(inner)} · head`,
      '    ┊     found',
    ])
    expect(lines[at + 8]).toBe('    summary: It was found.')
  })

  it('summarises a sub-conversation instead when asked', () => {
    const inner = pipe(empty, user('find it'), assistant('found'))
    const c = pipe(
      empty,
      subConversation({
        tool_name: 'research',
        tool_use_id: 't',
        system_prompt: 'You research.',
        heads: [inner],
        summary: 'Found.',
      }),
    )
    const text = renderText(c, { subConversations: 'summary' })
    expect(text).toContain('    system: You research.\n    summary: Found.\n')
    expect(text).toContain(`    nested · 2 vertices · 1 head: ${short(inner)}\n`)
    expect(text).not.toContain('┊')
    expect(text).not.toContain(short(inner.parents[0]!))
  })

  it('cuts long lines to maxWidth and long contents to maxLines', () => {
    const c = pipe(empty, user(`${'x'.repeat(30)}\nsecond\nthird\nfourth`))
    const lines = renderText(c, { maxWidth: 10, maxLines: 2 }).split('\n')
    expect(lines.slice(2, 5)).toEqual(['    xxxxxxxxx…', '    second', '    … 2 more lines'])
  })

  it('cuts by code points, never inside a surrogate pair', () => {
    const c = pipe(empty, user('😀😀😀😀😀\n😀😀😀'))
    expect(renderText(c, { maxWidth: 3 })).toContain('    😀😀…\n    😀😀😀\n')
  })

  it('cuts by default at 100 characters and 8 lines, and not at all with Infinity', () => {
    const long = pipe(empty, user('y'.repeat(150)))
    expect(renderText(long)).toContain(`${'y'.repeat(99)}…`)
    expect(renderText(long, { maxWidth: Infinity })).toContain('y'.repeat(150))
    const tall = pipe(empty, user(Array.from({ length: 12 }, (_, i) => `l${i}`).join('\n')))
    expect(renderText(tall)).toContain('l7\n    … 4 more lines\n')
    expect(renderText(tall, { maxLines: Infinity })).toContain('l11\n')
  })

  it('prints control characters and direction overrides as visible escapes', () => {
    const c = pipe(empty, user('red \u001b[31m\u202e\tx\r\ny'))
    expect(renderText(c)).toContain('    red \\x1b[31m\\u202e  x\n    y\n')
  })

  it('says an empty conversation has no vertices', () => {
    expect(renderText(empty)).toBe('conversation · 0 vertices\n')
  })

  it('is deterministic', () => {
    expect(renderText(weather())).toBe(renderText(weather()))
  })

  it('rejects what is not a conversation and bad options with a UsageError', () => {
    expect(() => renderText('hi' as never)).toThrow(UsageError)
    expect(() => renderText([weather(), {}] as never)).toThrow(/element 1/)
    expect(() => renderText(weather(), { maxWidth: 0 })).toThrow(/options.maxWidth/)
    expect(() => renderText(weather(), { maxLines: 1.5 })).toThrow(/options.maxLines/)
    expect(() => renderText(weather(), { subConversations: 'all' as never })).toThrow(
      /options.subConversations/,
    )
  })
})
