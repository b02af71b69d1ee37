import { describe, expect, it } from 'vitest'
import { claudeParser } from '../../../src/interpreters/parsers/claude.js'
import { fixture, lineEnds } from './fixture.js'

const answer = fixture('claude-answer.txt')
const running = fixture('claude-running.txt')
const rating = fixture('claude-rating.txt')
const question = 'list the src folder and summarise package.json'

const box = ['─'.repeat(40), '> ', '─'.repeat(40), '  ? for shortcuts']
const screen = (...lines: string[]): string => [...lines, '', ...box].join('\n')

describe('claudeParser on a finished answer (raw Ink stream)', () => {
  const r = claudeParser.parse(answer, { input: question })

  it('splits the answer into thinking, two tool calls and text', () => {
    expect(r.sections.map((s) => s.type)).toEqual(['thinking', 'tool_call', 'tool_call', 'text'])
    expect(r.sections[0]).toEqual({
      type: 'thinking',
      content:
        "The user wants a listing of src/ and a summary of\npackage.json. I'll run ls, then read the manifest.",
      metadata: { label: 'Thinking…' },
    })
  })

  it('gives each tool call its name, its arguments (wrapped ones joined) and its result', () => {
    expect(r.sections[1]).toEqual({
      type: 'tool_call',
      content: 'index.ts\ninterpreters\nrun.sh\n42 package.json\n1',
      metadata: {
        tool: 'Bash',
        args: `ls src && wc -l package.json && grep -c '"dependencies"' package.json`,
      },
    })
    expect(r.sections[2]).toEqual({
      type: 'tool_call',
      content: 'Read 42 lines (ctrl+r to expand)',
      metadata: { tool: 'Read', args: 'package.json' },
    })
  })

  it('returns the prose as text, paragraphs kept', () => {
    expect(r.text).toBe(
      [
        'The src folder holds the library entry (index.ts), the',
        'interpreters, and a run.sh helper.',
        '',
        'package.json declares nerve, an ESM TypeScript library with two',
        'runtime dependencies: fp-ts and io-ts.',
      ].join('\n'),
    )
  })

  it("reads the turn's tokens from the last spinner line, which the screen no longer shows", () => {
    expect(r.turnTokens).toBe(1900)
  })

  it('leaves the total undefined when the status line under the box shows none', () => {
    expect(r.tokens).toBeUndefined()
  })

  it('is ready and complete once the input box is back', () => {
    expect(r.isReady).toBe(true)
    expect(r.isComplete).toBe(true)
    expect(claudeParser.isReady(answer)).toBe(true)
  })

  it('is not ready at any line between the submission and the last spinner frame', () => {
    const submitted = answer.indexOf(`\x1b[0m ${question}\r\n\r\n`)
    const lastSpinner = answer.lastIndexOf('esc to interrupt')
    const ends = lineEnds(answer).filter((e) => e > submitted && e <= lastSpinner + 40)
    expect(ends.length).toBeGreaterThan(20)
    expect(ends.filter((e) => claudeParser.isReady(answer.slice(0, e)))).toEqual([])
  })

  it('finds the same answer without the input: after the last prompt line with text', () => {
    expect(claudeParser.parse(answer).sections).toEqual(r.sections)
  })

  it('is ready but not complete when the input is not on the screen', () => {
    const other = claudeParser.parse(answer, { input: 'something never asked' })
    expect(other.isReady).toBe(true)
    expect(other.isComplete).toBe(false)
  })
})

describe('claudeParser on a running answer (rendered screen)', () => {
  const r = claudeParser.parse(running, { input: 'run the tests and fix what fails' })

  it('is not ready while the status line says esc to interrupt', () => {
    expect(claudeParser.isReady(running)).toBe(false)
    expect(r.isReady).toBe(false)
    expect(r.isComplete).toBe(false)
  })

  it('starts the answer after the prompt line carrying the input, not an earlier one', () => {
    expect(r.sections).toEqual([
      { type: 'text', content: "I'll run the test suite first.", metadata: {} },
      { type: 'tool_call', content: 'Running…', metadata: { tool: 'Bash', args: 'npm test' } },
    ])
  })

  it("reads the turn's tokens from the spinner line", () => {
    expect(r.turnTokens).toBe(2300)
  })
})

describe('claudeParser on a rating prompt', () => {
  const r = claudeParser.parse(rating, { input: "thanks, that's all" })

  it('leaves the rating prompt, the suggestion and the box out of the content', () => {
    expect(r.sections).toEqual([
      {
        type: 'text',
        content: "You're welcome — the branch is ready for review.",
        metadata: {},
      },
    ])
    expect(r.text).not.toMatch(/How is Claude|Dismiss|Try "|shortcuts/)
  })

  it('is ready: the boxed input prompt is back', () => {
    expect(r.isReady).toBe(true)
    expect(r.isComplete).toBe(true)
  })
})

describe('claudeParser on small screens', () => {
  it('is not ready while any of the busy phrases shows, box or not', () => {
    for (const phrase of ['esc to interrupt', 'Esc to cancel', 'ctrl+c to interrupt']) {
      expect(claudeParser.isReady(screen('> hi', '', `✻ Working… (2s · ${phrase})`))).toBe(false)
    }
  })

  it('is not ready without an input box', () => {
    expect(claudeParser.isReady('> hi\n\n⏺ Hello')).toBe(false)
  })

  it('parses k and M suffixes and separators in token counts', () => {
    const turn = (status: string): number | undefined =>
      claudeParser.parse(screen('> hi', '', status)).turnTokens
    expect(turn('✻ Working… (3s · ↓ 1.2k tokens · esc to interrupt)')).toBe(1200)
    expect(turn('✻ Working… (3s · 345 tokens · esc to interrupt)')).toBe(345)
    expect(turn('✻ Working… (3s · ↑ 3.4M tokens · esc to interrupt)')).toBe(3_400_000)
    expect(turn('✻ Working… (3s · 1,234 tokens · esc to interrupt)')).toBe(1234)
    const total = (count: string): number | undefined =>
      claudeParser.parse(
        ['> hi', '', '⏺ Hi', '', ...box.slice(0, 3), `  ? for shortcuts        ${count}`].join(
          '\n',
        ),
      ).tokens
    expect(total('99.9k tokens')).toBe(99_900)
    expect(total('1.2M tokens')).toBe(1_200_000)
    expect(total('102,451 tokens')).toBe(102_451)
    expect(total('7 tokens')).toBe(7)
  })

  it('does not read a token count out of the prose', () => {
    const r = claudeParser.parse(screen('> hi', '', '⏺ That took 345 tokens.'))
    expect(r.tokens).toBeUndefined()
    expect(r.turnTokens).toBeUndefined()
  })

  it('reads ● as the answer marker and an MCP tool name with its server', () => {
    const r = claudeParser.parse(
      screen(
        '❯ docs?',
        '',
        '● context7 - resolve-library-id (MCP)(libraryName: "io-ts")',
        '  ⎿  found 3',
      ),
    )
    expect(r.sections).toEqual([
      {
        type: 'tool_call',
        content: 'found 3',
        metadata: { tool: 'context7 - resolve-library-id (MCP)', args: 'libraryName: "io-ts"' },
      },
    ])
  })

  it('keeps a collapsed thinking line as its own content', () => {
    const r = claudeParser.parse(
      screen('> hi', '', '∴ Thought for 3s (ctrl+o to show thinking)', '', '⏺ Hi'),
    )
    expect(r.sections[0]).toEqual({
      type: 'thinking',
      content: 'Thought for 3s (ctrl+o to show thinking)',
      metadata: { label: 'Thought for 3s (ctrl+o to show thinking)' },
    })
  })
})

describe('claudeParser on answers that talk about the status line', () => {
  it('stays ready when the answer itself says esc to interrupt', () => {
    const raw = screen(
      '> how do I stop you?',
      '',
      '⏺ Press Esc: the status line says "esc to interrupt" while I work,',
      '  and "esc to cancel" in a dialog.',
    )
    expect(claudeParser.isReady(raw)).toBe(true)
    expect(claudeParser.parse(raw).text).toContain('"esc to cancel" in a dialog.')
  })

  it('reads the older ✻ Thinking… line as thinking, and a list item with … as text', () => {
    const r = claudeParser.parse(
      screen(
        '> hi',
        '',
        '✻ Thinking…',
        '',
        '  Short.',
        '',
        '⏺ Steps:',
        '  * first…',
        '  * second…',
      ),
    )
    expect(r.sections).toEqual([
      { type: 'thinking', content: 'Short.', metadata: { label: 'Thinking…' } },
      { type: 'text', content: 'Steps:\n* first…\n* second…', metadata: {} },
    ])
  })
})

describe('claudeParser on the token counts of real Claude Code screens', () => {
  it('reads the total from the status line under the box in vim mode (-- INSERT --), not from the prose', () => {
    const r = claudeParser.parse(fixture('claude-insert.txt'), {
      input: 'how much context is left?',
    })
    expect(r.tokens).toBe(102_451)
    expect(r.turnTokens).toBeUndefined()
    expect(r.text).toBe('Plenty: the last reads were small, about 2400 tokens in all.')
    expect(r.isComplete).toBe(true)
  })

  it("takes the spinner's ↑ 15.8k tokens for the turn, and the status line's 19552 for the total", () => {
    const r = claudeParser.parse(fixture('claude-thinking.txt'), { input: 'refactor the parser' })
    expect(r.tokens).toBe(19_552)
    expect(r.turnTokens).toBe(15_800)
    expect(r.isReady).toBe(false)
  })

  it('reads the last total of a raw stream (99.9k after 97.1k and 98.5k) and the last turn count', () => {
    const raw = fixture('claude-long.txt')
    const r = claudeParser.parse(raw, { input: 'write the tests for the fork step' })
    expect(r.tokens).toBe(99_900)
    expect(r.turnTokens).toBe(2800)
    expect(r.text).toBe('The fork step has its tests: 64 lines, all passing.')
    expect(r.isComplete).toBe(true)
  })

  it('reads the total the screen showed at each point of a raw stream', () => {
    const raw = fixture('claude-long.txt')
    const totals = new Set(
      lineEnds(raw)
        .map((e) => claudeParser.parse(raw.slice(0, e)).tokens)
        .filter((t) => t !== undefined),
    )
    expect([...totals]).toEqual([97_100, 98_500, 99_900])
  })
})

describe('claudeParser on counts no screen shows', () => {
  it('reads no total from a count too large to be exact', () => {
    const r = claudeParser.parse(
      [
        '> hi',
        '',
        '⏺ Hi',
        '',
        ...box.slice(0, 3),
        `  ? for shortcuts  ${'9'.repeat(30)} tokens`,
      ].join('\n'),
    )
    expect(r.tokens).toBeUndefined()
  })
})
