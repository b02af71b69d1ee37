/**
 * Text on its way into the dashboard's terminal (src/web/terminalText.ts):
 * line ends for xterm, and the last lines of a flood, which is all a
 * terminal of that many lines can show.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { crlf, endAfterLag, lastLines } from '../../src/web/terminalText.js'

const feeds = (s: string): number => s.split('\n').length - 1

/** Text of short lines, some empty, some ending in a line feed. */
const text = fc
  .array(
    fc.string({
      unit: fc.constantFrom('a', 'b', ' ', '\r', '\x1b', '[', '0', ';', 'm'),
      maxLength: 6,
    }),
    {
      maxLength: 40,
    },
  )
  .chain((lines) => fc.boolean().map((end) => lines.join('\n') + (end ? '\n' : '')))

describe('crlf', () => {
  it('ends every line with a carriage return and a line feed, and changes nothing twice', () => {
    expect(crlf('a\nb\r\nc\n')).toBe('a\r\nb\r\nc\r\n')
    fc.assert(
      fc.property(text, (s) => {
        expect(crlf(crlf(s))).toBe(crlf(s))
      }),
    )
  })
})

describe('lastLines', () => {
  it('keeps the lines after the given number of line feeds from the end', () => {
    expect(lastLines('1\n2\n3\n4', 2)).toBe('3\n4')
    expect(lastLines('1\n2\n3\n4\n', 2)).toBe('4\n')
    expect(lastLines('1\n2', 5)).toBe('1\n2')
  })

  it('is the end of the text, all of it when it has fewer line feeds, else exactly that many lines from a line start (law)', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 50 }), (s, lines) => {
        const tail = lastLines(s, lines)
        expect(s.endsWith(tail)).toBe(true)
        if (feeds(s) < lines) expect(tail).toBe(s)
        else {
          expect(feeds(tail)).toBe(lines - 1)
          expect(s[s.length - tail.length - 1]).toBe('\n')
        }
      }),
    )
  })

  it('keeps at most the given number of characters, however few line feeds (law)', () => {
    expect(lastLines('x'.repeat(10_000), 3, 80)).toBe('x'.repeat(80))
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 50 }), fc.nat(200), (s, lines, chars) => {
        const tail = lastLines(s, lines, chars)
        expect(s.endsWith(tail)).toBe(true)
        expect(tail.length).toBeLessThanOrEqual(chars)
        expect(tail).toBe(lastLines(s.slice(Math.max(0, s.length - chars)), lines))
      }),
    )
  })
})

describe('endAfterLag', () => {
  const out = Array.from({ length: 2000 }, (_, i) => `${i}\n`).join('')

  it('adds nothing when the last chunks that came are the end of the answer', () => {
    expect(endAfterLag(out, out.slice(-100), 100)).toBe('')
    expect(endAfterLag('short\n', 'short\n', 100)).toBe('')
  })

  it("ends with the answer's tail, marked, when the last chunks were dropped or too few came after a gap", () => {
    const marked = `\r\n\x1b[2m[output skipped: the page fell behind]\x1b[0m\r\n${out.slice(-100)}`
    expect(endAfterLag(out, out.slice(-300, -200), 100)).toBe(marked)
    // Only the last 10 characters came after the gap: they are the end, but the 90 before are not known.
    expect(endAfterLag(out, out.slice(-10), 100)).toBe(marked)
    expect(endAfterLag(out, '', 100)).toBe(marked)
  })
})
