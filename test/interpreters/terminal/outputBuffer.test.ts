import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BLOCK_CHARS, OutputBuffer } from '../../../src/interpreters/terminal/outputBuffer.js'

/** Chunks of every size, now and then a big one that fills blocks at once. */
const chunks = fc.array(
  fc.oneof(
    fc.string({ maxLength: 50 }),
    fc.integer({ min: 1, max: 3 * BLOCK_CHARS }).map((n) => 'x'.repeat(n - 1) + 'y'),
  ),
  { maxLength: 40 },
)

const fill = (buffer: OutputBuffer, parts: readonly string[]): string => {
  for (const p of parts) buffer.push(p)
  return parts.join('')
}

describe('OutputBuffer', () => {
  it('reads back everything pushed, in order, however it was cut', () => {
    fc.assert(
      fc.property(chunks, (parts) => {
        const b = new OutputBuffer()
        const all = fill(b, parts)
        expect(b.text()).toBe(all)
        expect(b.text()).toBe(all) // a second read, after the first joined it
      }),
      { numRuns: 60 },
    )
  })

  it('keeps the newest max characters of a bounded output', () => {
    fc.assert(
      fc.property(chunks, fc.integer({ min: 1, max: 2 * BLOCK_CHARS }), (parts, max) => {
        const b = new OutputBuffer(max)
        const all = fill(b, parts)
        expect(b.text()).toBe(all.slice(Math.max(0, all.length - max)))
        // memory stays bounded: what is kept, plus at most two blocks and a chunk
        const biggest = Math.max(0, ...parts.map((p) => p.length))
        expect(b.size).toBeLessThan(max + 2 * BLOCK_CHARS + biggest + 1)
      }),
      { numRuns: 60 },
    )
  })

  it('gives the last n characters as its tail, short tails and long ones', () => {
    fc.assert(
      fc.property(chunks, fc.integer({ min: 0, max: 10_000 }), (parts, n) => {
        const b = new OutputBuffer(Infinity, 4096)
        const all = fill(b, parts)
        expect(b.tail(n)).toBe(all.slice(Math.max(0, all.length - n)))
      }),
      { numRuns: 60 },
    )
  })

  it('is empty after clear, and fills again', () => {
    const b = new OutputBuffer(10)
    b.push('abc')
    b.clear()
    expect([b.text(), b.tail(5), b.size]).toEqual(['', '', 0])
    b.push('defghijklmnop')
    expect(b.text()).toBe('ghijklmnop')
  })
})
