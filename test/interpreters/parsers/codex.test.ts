import { describe, expect, it } from 'vitest'
import { codexParser } from '../../../src/interpreters/parsers/codex.js'

const question = 'what does package.json declare?'
const header = [
  '╭──────────────────────────────╮',
  '│ >_ OpenAI Codex (v0.58.0)    │',
  '╰──────────────────────────────╯',
  '',
]
const answer = [
  `› ${question}`,
  '',
  "• I'll read the file first.",
  '',
  '• Explored',
  '  └ Read package.json',
  '',
  '• Ran npm test',
  '  └ > nerve@0.1.0 test',
  '    > vitest run',
  '',
  '• package.json declares nerve, a TypeScript library with two',
  '  runtime dependencies, fp-ts and io-ts.',
  '',
]
const composer = ['› Ask Codex to do anything', '', '  100% context left · ? for shortcuts']
const screen = [...header, ...answer, ...composer].join('\n')

describe('codexParser', () => {
  const r = codexParser.parse(screen, { input: question })

  it('returns each • cell as a text section, and the cells of tool work as tool calls', () => {
    expect(r.sections).toEqual([
      { type: 'text', content: "I'll read the file first.", metadata: {} },
      { type: 'tool_call', content: 'Read package.json', metadata: { tool: 'Explored', args: '' } },
      {
        type: 'tool_call',
        content: '> nerve@0.1.0 test\n> vitest run',
        metadata: { tool: 'Ran', args: 'npm test' },
      },
      {
        type: 'text',
        content:
          'package.json declares nerve, a TypeScript library with two\nruntime dependencies, fp-ts and io-ts.',
        metadata: {},
      },
    ])
    expect(r.isReady).toBe(true)
    expect(r.isComplete).toBe(true)
    expect(r.tokens).toBeUndefined()
  })

  it('is not ready while the status line says esc to interrupt, nor without the composer', () => {
    const working = [
      ...header,
      `› ${question}`,
      '',
      '• Working (3s • esc to interrupt)',
      ...composer,
    ]
    expect(codexParser.isReady(working.join('\n'))).toBe(false)
    expect(codexParser.isReady([...header, ...answer].join('\n'))).toBe(false)
    expect(codexParser.isReady([...header, ...composer].join('\n'))).toBe(true)
  })

  it('boxes the answer in after the last prompt carrying the input, in either prompt style', () => {
    const twice = [`› ${question}`, '', '• Old answer.', '', screen].join('\n')
    expect(codexParser.parse(twice, { input: question }).sections).toEqual(r.sections)
    const older = screen.replaceAll('› ', '▌ ')
    expect(codexParser.parse(older, { input: question }).sections).toEqual(r.sections)
  })

  it('is not complete when the input is not on the screen', () => {
    const other = codexParser.parse(screen, { input: 'something else entirely' })
    expect(other.isReady).toBe(true)
    expect(other.isComplete).toBe(false)
  })
})
