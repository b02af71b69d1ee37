import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LineReader } from '../../../src/server/index.js'

const read = (max: number, chunks: readonly Buffer[]) => {
  const lines: string[] = []
  const oversize: number[] = []
  const reader = new LineReader(max, {
    line: (l) => lines.push(l),
    oversize: (n) => oversize.push(n),
  })
  for (const c of chunks) reader.push(c)
  return { lines, oversize, partial: reader.partial }
}

/** Cuts a buffer at the given points. */
const cut = (all: Buffer, points: readonly number[]): Buffer[] => {
  const at = [...new Set(points.map((p) => p % (all.length + 1)))].sort((a, b) => a - b)
  const out: Buffer[] = []
  let prev = 0
  for (const p of [...at, all.length]) {
    out.push(all.subarray(prev, p))
    prev = p
  }
  return out
}

const lineText = fc.string({ unit: fc.constantFrom('a', 'é', '{', '"', ' ', '😀'), maxLength: 30 })

describe('LineReader', () => {
  it('emits every line whatever the chunking (law: framing is independent of chunk borders)', () => {
    fc.assert(
      fc.property(
        fc.array(lineText, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (lines, points) => {
          const all = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8')
          const { lines: got, oversize } = read(1 << 20, cut(all, points))
          expect(got).toEqual(lines.filter((l) => l !== ''))
          expect(oversize).toEqual([])
        },
      ),
    )
  })

  it('reports each line over the bound once and keeps the lines around it (law)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(lineText, fc.integer({ min: 41, max: 200 })), { maxLength: 15 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (items, points) => {
          const asText = items.map((i) => (typeof i === 'number' ? 'x'.repeat(i) : i))
          const all = Buffer.from(asText.map((l) => `${l}\n`).join(''))
          const { lines, oversize } = read(160, cut(all, points))
          const small = asText.filter((l) => l !== '' && Buffer.byteLength(l) <= 160)
          const big = asText.filter((l) => Buffer.byteLength(l) > 160)
          expect(lines).toEqual(small)
          expect(oversize.length).toBe(big.length)
        },
      ),
    )
  })

  it('drops a trailing carriage return and keeps a partial line until its newline', () => {
    const { lines, partial } = read(100, [Buffer.from('a\r\nb')])
    expect(lines).toEqual(['a'])
    expect(partial).toBe(true)
  })

  it('does not keep the bytes of a line over the bound', () => {
    const lines: string[] = []
    const sizes: number[] = []
    const reader = new LineReader(10, {
      line: (l) => lines.push(l),
      oversize: (n) => sizes.push(n),
    })
    for (let i = 0; i < 100; i++) reader.push(Buffer.alloc(1000, 0x61))
    expect((reader as unknown as { pending: Buffer[] }).pending).toEqual([])
    reader.push(Buffer.from('\nok\n'))
    expect(sizes).toEqual([100_000])
    expect(lines).toEqual(['ok'])
  })
})
