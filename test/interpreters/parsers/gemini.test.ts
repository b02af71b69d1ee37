import { describe, expect, it } from 'vitest'
import { geminiParser } from '../../../src/interpreters/parsers/gemini.js'
import { fixture, lineEnds } from './fixture.js'

const answer = fixture('gemini-answer.txt')
const question = 'what does package.json declare?'

describe('geminiParser', () => {
  const r = geminiParser.parse(answer, { input: question })

  it('returns each ✦ block as a text section and a tool box as a tool call', () => {
    expect(r.sections).toEqual([
      { type: 'text', content: "I'll read the file first.", metadata: {} },
      { type: 'tool_call', content: '', metadata: { tool: 'ReadFile', args: 'package.json' } },
      {
        type: 'text',
        content:
          'package.json declares nerve, a TypeScript library with two\nruntime dependencies, fp-ts and io-ts.',
        metadata: {},
      },
    ])
    expect(r.text).toBe(
      "I'll read the file first.\n\npackage.json declares nerve, a TypeScript library with two\nruntime dependencies, fp-ts and io-ts.",
    )
  })

  it('is ready and complete once the input box is back; it shows no tokens', () => {
    expect(r.isReady).toBe(true)
    expect(r.isComplete).toBe(true)
    expect(r.tokens).toBeUndefined()
  })

  it('is not ready at any line between the submission and the last spinner frame', () => {
    const submitted = answer.indexOf(`\x1b[0m ${question}\r\n\r\n`)
    const lastSpinner = answer.lastIndexOf('esc to cancel')
    const ends = lineEnds(answer).filter((e) => e > submitted && e <= lastSpinner + 20)
    expect(ends.length).toBeGreaterThan(10)
    expect(ends.filter((e) => geminiParser.isReady(answer.slice(0, e)))).toEqual([])
  })

  it('is ready on the first empty input box, before any question', () => {
    const firstBox = answer.indexOf('(98% context left)')
    expect(geminiParser.isReady(answer.slice(0, firstBox + 40))).toBe(true)
  })

  it('boxes the answer in after the last prompt line carrying the input', () => {
    const twice = `> ${question}\n\n✦ Old answer.\n\n${answer}`
    expect(geminiParser.parse(twice, { input: question }).sections).toEqual(r.sections)
  })
})

describe('geminiParser on tool boxes', () => {
  it('keeps the lines inside a tool box as its result, list items included', () => {
    const raw = [
      '> run ls',
      '',
      '╭──────────────────────────╮',
      '│ ✔  Shell ls -1           │',
      '│                          │',
      '│    a.txt                 │',
      '│    - b.txt               │',
      '╰──────────────────────────╯',
      '✦ Two files.',
      '',
      '╭──────────────────────────╮',
      '│ >   Type your message    │',
      '╰──────────────────────────╯',
    ].join('\n')
    expect(geminiParser.parse(raw, { input: 'run ls' }).sections).toEqual([
      { type: 'tool_call', content: 'a.txt\n- b.txt', metadata: { tool: 'Shell', args: 'ls -1' } },
      { type: 'text', content: 'Two files.', metadata: {} },
    ])
  })
})
