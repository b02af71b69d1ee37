import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { screenLines, stripAnsi } from '../../../src/interpreters/parsers/ansi.js'
import { parsers } from '../../../src/interpreters/parsers/registry.js'

/** Pieces a terminal stream is made of, and pieces of the screens the parsers look for. */
const fragments = [
  '\x1b[',
  '\x1b]0;',
  '\x1b\\',
  '\x07',
  '\x1b[?2004h',
  '\x1b[?2004l',
  '\x1b[1;32m',
  '\x1b[0m',
  '\x1b[2K',
  '\x1b[1A',
  '\x1b[999B',
  '\x1b[3D',
  '\x1b[G',
  '\x1b[2J',
  '\x1b[J',
  '\x1b[12;40H',
  '\x1b(B',
  '\x1b7',
  '\x1b8',
  '\x9b',
  '\r',
  '\n',
  '\r\n',
  '\b',
  '\t',
  ';',
  '9',
  'm',
  ' ',
  '$ ',
  '>>> ',
  '> ',
  '❯ ',
  '  ? for shortcuts   19552 tokens',
  '-- INSERT --   99.9k tokens',
  '↑ 15.8k tokens',
  '─'.repeat(20),
  '│',
  '╭──────╮',
  '⏺ ',
  '⏺ Bash(',
  ')',
  '  ⎿  ',
  '∴ Thinking…',
  '✦ ',
  '│ ✔  ReadFile x │',
  '✻ Working… (3s · ↓ 1.2k tokens · esc to interrupt)',
  'esc to cancel',
  '1: Bad 2: Fine',
  '? for shortcuts',
  '🙂',
  '\ud800',
]

const terminalText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...fragments),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.string({ unit: fc.constantFrom(...fragments), maxLength: 20 }),
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''))

/** A huge line of text or of blanks (an erased row: a regex that backtracks over blank runs shows here). */
const hugeLine = fc
  .tuple(fc.integer({ min: 10_000, max: 300_000 }), fc.constantFrom('x', ' ', '│ '), terminalText)
  .map(([n, fill, rest]) => `${fill.repeat(n)}${rest}${'─'.repeat(n / 10)}`)

const input = fc.option(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('hi', '')), {
  nil: undefined,
})

describe('every parser', () => {
  for (const parser of Object.values(parsers)) {
    it(`${parser.name}: never throws, says a boolean, and agrees with itself on readiness`, () => {
      fc.assert(
        fc.property(terminalText, input, (raw, given) => {
          const ready = parser.isReady(raw)
          expect(typeof ready).toBe('boolean')
          const r = parser.parse(raw, given === undefined ? {} : { input: given })
          expect(r.raw).toBe(raw)
          expect(r.isReady).toBe(ready)
          expect(!r.isComplete || r.isReady).toBe(true)
          expect(Object.isFrozen(r) && Object.isFrozen(r.sections)).toBe(true)
          for (const s of r.sections) {
            expect(['text', 'thinking', 'tool_call']).toContain(s.type)
            expect(Object.isFrozen(s) && Object.isFrozen(s.metadata)).toBe(true)
          }
          expect(typeof r.text).toBe('string')
          for (const count of [r.tokens, r.turnTokens]) {
            expect(count === undefined || (Number.isSafeInteger(count) && count >= 0)).toBe(true)
          }
        }),
        { numRuns: 300 },
      )
    })

    it(`${parser.name}: never throws on huge lines`, () => {
      fc.assert(
        fc.property(hugeLine, (raw) => {
          expect(typeof parser.isReady(raw)).toBe('boolean')
          expect(parser.parse(raw, { input: 'x' }).raw).toBe(raw)
        }),
        { numRuns: 10 },
      )
    })
  }
})

describe('stripAnsi and screenLines', () => {
  it('leave no escape or control character but line ends', () => {
    fc.assert(
      fc.property(terminalText, (raw) => {
        // eslint-disable-next-line no-control-regex
        const control = /[\x00-\x09\x0b-\x1f\x7f\x9b]/
        expect(stripAnsi(raw)).not.toMatch(control)
        expect(screenLines(raw).join('\n')).not.toMatch(control)
      }),
    )
  })

  it('stripAnsi is idempotent', () => {
    fc.assert(
      fc.property(terminalText, (raw) => {
        const once = stripAnsi(raw)
        expect(stripAnsi(once)).toBe(once)
      }),
    )
  })

  it('agree on a stream without cursor moves', () => {
    // eslint-disable-next-line no-control-regex
    const move = /\x1b\[[0-?]*[ -/]*[A-HJKdfsu]|\x1b[78MDE]|\x9b/g
    const withoutMoves = (raw: string): string => {
      const next = raw.replace(move, '')
      return next === raw ? raw : withoutMoves(next) // a removal may join a new sequence
    }
    const noMoves = terminalText.map(withoutMoves)
    fc.assert(
      fc.property(noMoves, (raw) => {
        expect(screenLines(raw).join('\n')).toBe(stripAnsi(raw))
      }),
    )
  })
})
