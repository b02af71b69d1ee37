import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  describeTarget,
  interleave,
  interleaveAsync,
  jsonLine,
  judge,
  median,
  medians,
  parseArgs,
  ratio,
  round,
  selected,
  table,
  type Result,
} from '../../bench/harness.js'

const result = (over: Partial<Result> = {}): Result => ({
  name: 'conversation.append',
  unit: 'µs',
  median: 1.5,
  baseline: 'frozen linked objects',
  baselineMedian: 0.5,
  ...over,
})

describe('median', () => {
  it('takes the middle sample of an odd count, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3)
  })

  it('takes the mean of the middle two of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5)
  })

  it('does not reorder its input', () => {
    const xs = [3, 1, 2]
    median(xs)
    expect(xs).toEqual([3, 1, 2])
  })

  it('refuses an empty list', () => {
    expect(() => median([])).toThrow(RangeError)
  })

  it('lies between the smallest and the largest sample', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1 }),
        (xs) => {
          const m = median(xs)
          expect(m).toBeGreaterThanOrEqual(Math.min(...xs))
          expect(m).toBeLessThanOrEqual(Math.max(...xs))
        },
      ),
    )
  })
})

describe('medians', () => {
  it('takes the median of each figure separately', () => {
    expect(
      medians([
        { us: 1, bytes: 300 },
        { us: 9, bytes: 100 },
        { us: 2, bytes: 200 },
      ]),
    ).toEqual({ us: 2, bytes: 200 })
  })
})

describe('ratio', () => {
  it('divides ours by the baseline', () => {
    expect(ratio(3, 1.5)).toBe(2)
  })

  it('is infinite against a zero baseline and 1 when both are zero', () => {
    expect(ratio(1, 0)).toBe(Infinity)
    expect(ratio(0, 0)).toBe(1)
  })
})

describe('round', () => {
  it('keeps four significant digits by default', () => {
    expect(round(0.123456)).toBe(0.1235)
    expect(round(123.456)).toBe(123.5)
  })

  it('keeps large numbers whole', () => {
    expect(round(1234567.8)).toBe(1234568)
  })
})

describe('judge', () => {
  it('passes a result within its median and ratio targets', () => {
    expect(judge(result({ target: { median: 2, ratio: 3 } }))).toBe(true)
  })

  it('fails a result over its ratio target even when its median is fine', () => {
    expect(judge(result({ target: { median: 2, ratio: 2.5 } }))).toBe(false)
  })

  it('fails a result over its median target', () => {
    expect(judge(result({ target: { median: 1 } }))).toBe(false)
  })

  it('judges a higher-is-better result by its lower bounds', () => {
    const throughput = (median: number): Result =>
      result({ unit: 'MB/s', median, baselineMedian: 40, target: { minRatio: 0.5, minMedian: 10 } })
    expect(judge(throughput(30))).toBe(true)
    expect(judge(throughput(19))).toBe(false)
    expect(judge(result({ median: 5, baselineMedian: 1, target: { minMedian: 10 } }))).toBe(false)
    expect(describeTarget(throughput(30))).toBe('≥ 10 MB/s, ratio ≥ 0.5')
  })

  it('has no verdict for a result without a target', () => {
    expect(judge(result())).toBeUndefined()
    expect(judge(result({ target: {} }))).toBeUndefined()
  })
})

describe('jsonLine', () => {
  it('writes the six contract fields first, then target and ok, on one line', () => {
    const line = jsonLine(result({ target: { median: 2, ratio: 2.5 } }))
    expect(line).not.toContain('\n')
    const parsed = JSON.parse(line) as Record<string, unknown>
    expect(Object.keys(parsed)).toEqual([
      'name',
      'unit',
      'median',
      'baseline',
      'baselineMedian',
      'ratio',
      'target',
      'ok',
    ])
    expect(parsed).toEqual({
      name: 'conversation.append',
      unit: 'µs',
      median: 1.5,
      baseline: 'frozen linked objects',
      baselineMedian: 0.5,
      ratio: 3,
      target: { median: 2, ratio: 2.5 },
      ok: false,
    })
  })

  it('writes null target and ok for a result without a target', () => {
    const parsed = JSON.parse(jsonLine(result())) as Record<string, unknown>
    expect(parsed['target']).toBeNull()
    expect(parsed['ok']).toBeNull()
  })
})

describe('table', () => {
  it('has a header, a rule and one row per result, with FAIL on a missed target', () => {
    const lines = table([
      result({ target: { ratio: 2.5 } }),
      result({ name: 'conversation.fork.1e3', median: 0.5, target: { median: 5 } }),
      result({ name: 'conversation.messages' }),
    ]).split('\n')
    expect(lines).toHaveLength(5)
    expect(lines[0]).toMatch(/^name\s+median\s+unit\s+baseline/)
    expect(lines[2]).toMatch(/^conversation\.append\s.*3×\s+ratio ≤ 2\.5\s+FAIL$/)
    expect(lines[3]).toMatch(/pass$/)
    expect(lines[4]).toMatch(/\s-\s+-$/)
  })

  it('describes targets in words', () => {
    expect(describeTarget(result({ target: { median: 2, ratio: 2.5 } }))).toBe(
      '≤ 2 µs, ratio ≤ 2.5',
    )
    expect(describeTarget(result())).toBe('-')
  })
})

describe('parseArgs', () => {
  it('reads no arguments as every benchmark, as a table', () => {
    expect(parseArgs([])).toEqual({ json: false, help: false, rounds: undefined, filters: [] })
  })

  it('reads --json, --rounds in both spellings and filters in any order', () => {
    expect(parseArgs(['conversation', '--json', '--rounds', '3', 'codec'])).toEqual({
      json: true,
      help: false,
      rounds: 3,
      filters: ['conversation', 'codec'],
    })
    expect(parseArgs(['--rounds=9']).rounds).toBe(9)
  })

  it('refuses an unknown option and a bad round count', () => {
    expect(() => parseArgs(['--jsn'])).toThrow(/unknown option "--jsn"/)
    expect(() => parseArgs(['--rounds', '0'])).toThrow(/positive integer/)
    expect(() => parseArgs(['--rounds'])).toThrow(/positive integer/)
    expect(() => parseArgs(['--rounds=1.5'])).toThrow(/positive integer/)
  })
})

describe('selected', () => {
  it('selects everything without filters', () => {
    expect(selected('codec.load', [])).toBe(true)
  })

  it('selects a benchmark whose name contains a filter', () => {
    expect(selected('conversation.fork', ['conversation'])).toBe(true)
    expect(selected('codec.load', ['conversation'])).toBe(false)
  })

  it('selects a benchmark by the name of one of its results', () => {
    expect(selected('conversation.fork', ['conversation.fork.1e5'])).toBe(true)
    expect(selected('conversation.fork', ['conversation.forked'])).toBe(false)
  })
})

describe('interleave', () => {
  it('alternates which side goes first and takes each side its rounds after the warm-up', () => {
    const calls: string[] = []
    let n = 0
    const m = interleave({
      rounds: 3,
      warmup: 1,
      ours: () => {
        calls.push('ours')
        return { x: ++n }
      },
      baseline: () => {
        calls.push('base')
        return { x: 100 }
      },
    })
    expect(calls).toEqual(['ours', 'base', 'ours', 'base', 'base', 'ours', 'ours', 'base'])
    expect(m).toEqual({ ours: { x: 3 }, baseline: { x: 100 } })
  })
})

describe('interleaveAsync', () => {
  it('awaits each sample, alternating sides like interleave', async () => {
    const calls: string[] = []
    let n = 0
    const m = await interleaveAsync({
      rounds: 3,
      warmup: 1,
      ours: async () => {
        calls.push('ours')
        await Promise.resolve()
        calls.push('ours done')
        return { x: ++n }
      },
      baseline: () => {
        calls.push('base')
        return Promise.resolve({ x: 100 })
      },
    })
    expect(calls.filter((c) => c !== 'ours done')).toEqual([
      'ours',
      'base',
      'ours',
      'base',
      'base',
      'ours',
      'ours',
      'base',
    ])
    expect(calls.indexOf('ours done')).toBe(1)
    expect(m).toEqual({ ours: { x: 3 }, baseline: { x: 100 } })
  })
})
