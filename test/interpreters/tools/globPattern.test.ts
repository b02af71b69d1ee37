import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../../src/errors.js'
import { globToRegExp } from '../../../src/interpreters/tools/index.js'

const matches = (pattern: string, paths: readonly string[]): readonly string[] => {
  const re = globToRegExp(pattern)
  return paths.filter((p) => re.test(p))
}

describe('globToRegExp', () => {
  const paths = ['a.ts', 'b.js', '.env', 'src/a.ts', 'src/x/b.ts', 'src/x/y/c.tsx', 'lib/d.ts']

  it('matches * within one name only', () => {
    expect(matches('*.ts', paths)).toEqual(['a.ts'])
    expect(matches('src/*.ts', paths)).toEqual(['src/a.ts'])
  })

  it('matches names starting with a dot like any other', () => {
    expect(matches('*', paths)).toEqual(['a.ts', 'b.js', '.env'])
  })

  it('matches ** as any number of directories', () => {
    expect(matches('**/*.ts', paths)).toEqual(['a.ts', 'src/a.ts', 'src/x/b.ts', 'lib/d.ts'])
    expect(matches('src/**/*.ts', paths)).toEqual(['src/a.ts', 'src/x/b.ts'])
    expect(matches('src/**', paths)).toEqual(['src/a.ts', 'src/x/b.ts', 'src/x/y/c.tsx'])
    expect(matches('**', paths)).toEqual(paths)
  })

  it('matches ? as one character but /', () => {
    expect(matches('?.ts', paths)).toEqual(['a.ts'])
    expect(matches('src?a.ts', paths)).toEqual([])
  })

  it('matches classes, ranges and negated classes', () => {
    expect(matches('[ab].*', paths)).toEqual(['a.ts', 'b.js'])
    expect(matches('[a-b].ts', paths)).toEqual(['a.ts'])
    expect(matches('[!a].*', paths)).toEqual(['b.js'])
    expect(matches('[^a].*', paths)).toEqual(['b.js'])
    expect(matches('src[/]a.ts', paths)).toEqual([])
  })

  it('matches either alternative of braces, nested too', () => {
    expect(matches('**/*.{ts,tsx}', paths)).toEqual([
      'a.ts',
      'src/a.ts',
      'src/x/b.ts',
      'src/x/y/c.tsx',
      'lib/d.ts',
    ])
    expect(matches('{lib,src/{x,z}}/*.ts', paths)).toEqual(['src/x/b.ts', 'lib/d.ts'])
  })

  it('takes an unclosed bracket or brace, a brace without comma and escapes literally', () => {
    expect(globToRegExp('[a').test('[a')).toBe(true)
    expect(globToRegExp('{a').test('{a')).toBe(true)
    expect(globToRegExp('{id}.ts').test('{id}.ts')).toBe(true)
    expect(globToRegExp('\\*.ts').test('*.ts')).toBe(true)
    expect(globToRegExp('\\*.ts').test('a.ts')).toBe(false)
    expect(globToRegExp('a+(b).ts').test('a+(b).ts')).toBe(true)
  })

  it('throws a UsageError when braces expand to too many patterns', () => {
    expect(() => globToRegExp('{a,b}'.repeat(11))).toThrow(UsageError)
  })
})

// ---------------------------------------------------------------------------
// A reference matcher: braces parsed into a tree, then segments matched by
// backtracking over code points; no regular expressions.

type Part = string | readonly Part[][]

/** Parses a sequence up to `stop` characters; `undefined` when a group never closes. */
const parseSequence = (
  chars: readonly string[],
  at: number,
  inGroup: boolean,
): { parts: Part[]; next: number } | undefined => {
  const parts: Part[] = []
  let i = at
  while (i < chars.length) {
    const c = chars[i]!
    if (inGroup && (c === ',' || c === '}')) return { parts, next: i }
    if (c === '\\') {
      parts.push(chars.slice(i, i + 2).join(''))
      i += 2
    } else if (c === '{') {
      const alternatives: Part[][] = []
      let j = i + 1
      let closed = false
      for (;;) {
        const seq = parseSequence(chars, j, true)
        if (seq === undefined || seq.next >= chars.length) break
        alternatives.push(seq.parts)
        j = seq.next + 1
        if (chars[seq.next] === '}') {
          closed = true
          break
        }
      }
      if (closed && alternatives.length > 1) {
        parts.push(alternatives)
        i = j
      } else if (closed) {
        // One alternative: its braces are literal.
        parts.push('{', ...alternatives[0]!, '}')
        i = j
      } else {
        parts.push('{')
        i++
      }
    } else {
      parts.push(c)
      i++
    }
  }
  return inGroup ? { parts, next: i } : { parts, next: i }
}

const expandParts = (parts: readonly Part[]): string[] => {
  let out = ['']
  for (const part of parts) {
    const options = typeof part === 'string' ? [part] : part.flatMap(expandParts)
    out = out.flatMap((prefix) => options.map((o) => prefix + o))
  }
  return out
}

type Token =
  | { kind: 'literal'; char: string }
  | { kind: 'star' }
  | { kind: 'any' }
  | { kind: 'class'; negated: boolean; test: (c: string) => boolean }

const tokens = (segment: string): Token[] => {
  const cs = Array.from(segment)
  const out: Token[] = []
  let i = 0
  while (i < cs.length) {
    const c = cs[i]!
    if (c === '\\') {
      out.push({ kind: 'literal', char: i + 1 < cs.length ? cs[i + 1]! : '\\' })
      i += i + 1 < cs.length ? 2 : 1
    } else if (c === '*') {
      out.push({ kind: 'star' })
      i++
    } else if (c === '?') {
      out.push({ kind: 'any' })
      i++
    } else if (c === '[') {
      let j = i + 1
      const negated = cs[j] === '!' || cs[j] === '^'
      if (negated) j++
      const firstItem = j
      const ranges: [number, number][] = []
      let closedAt = -1
      while (j < cs.length) {
        if (cs[j] === ']' && j > firstItem) {
          closedAt = j
          break
        }
        let low = cs[j]!
        if (low === '\\' && j + 1 < cs.length) low = cs[++j]!
        j++
        let high = low
        if (cs[j] === '-' && j + 1 < cs.length && cs[j + 1] !== ']') {
          high = cs[j + 1]!
          j += 2
          if (high === '\\' && j < cs.length) high = cs[j++]!
        }
        ranges.push([low.codePointAt(0)!, high.codePointAt(0)!])
      }
      if (closedAt < 0) {
        out.push({ kind: 'literal', char: '[' })
        i++
      } else {
        const inRanges = (ch: string): boolean =>
          ranges.some(([lo, hi]) => lo <= ch.codePointAt(0)! && ch.codePointAt(0)! <= hi)
        out.push({ kind: 'class', negated, test: (ch) => ch !== '/' && inRanges(ch) !== negated })
        i = closedAt + 1
      }
    } else {
      out.push({ kind: 'literal', char: c })
      i++
    }
  }
  return out
}

const matchSegment = (ts: readonly Token[], name: readonly string[], t = 0, n = 0): boolean => {
  if (t === ts.length) return n === name.length
  const token = ts[t]!
  if (token.kind === 'star') {
    for (let k = n; k <= name.length; k++) if (matchSegment(ts, name, t + 1, k)) return true
    return false
  }
  if (n === name.length) return false
  const c = name[n]!
  const ok =
    token.kind === 'literal' ? c === token.char : token.kind === 'any' ? true : token.test(c)
  return ok && matchSegment(ts, name, t + 1, n + 1)
}

const matchSegments = (ps: readonly string[], ss: readonly string[], i = 0, j = 0): boolean => {
  if (i === ps.length) return j === ss.length
  if (ps[i] === '**') {
    if (i === ps.length - 1) return ss.length - j >= 1
    for (let k = j; k <= ss.length; k++) if (matchSegments(ps, ss, i + 1, k)) return true
    return false
  }
  return (
    j < ss.length &&
    matchSegment(tokens(ps[i]!), Array.from(ss[j]!)) &&
    matchSegments(ps, ss, i + 1, j + 1)
  )
}

const reference = (pattern: string, path: string): boolean =>
  expandParts(parseSequence(Array.from(pattern), 0, false)!.parts).some((p) =>
    matchSegments(p.split('/'), path.split('/')),
  )

describe('the reference matcher', () => {
  it('agrees with the examples above', () => {
    expect(reference('src/**/*.{ts,tsx}', 'src/x/y/c.tsx')).toBe(true)
    expect(reference('{lib,src/{x,z}}/*.ts', 'src/z/q.ts')).toBe(true)
    expect(reference('[!a].*', 'a.ts')).toBe(false)
    expect(reference('{id}.ts', '{id}.ts')).toBe(true)
  })
})

describe('globToRegExp against the reference', () => {
  const patternChar = fc.constantFrom(
    'a',
    'b',
    '.',
    '*',
    '**',
    '?',
    '[',
    ']',
    '!',
    '^',
    '-',
    '{',
    '}',
    ',',
    '/',
    '\\',
  )
  const pattern = fc.array(patternChar, { maxLength: 10 }).map((cs) => cs.join(''))
  const segment = fc
    .array(fc.constantFrom('a', 'b', '.', '-', ']', '{', ',', '!', '*'), {
      minLength: 1,
      maxLength: 3,
    })
    .map((cs) => cs.join(''))
  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((ss) => ss.join('/'))

  it('matches a path exactly when the reference does (law)', () => {
    fc.assert(
      fc.property(pattern, fc.array(path, { minLength: 1, maxLength: 8 }), (p, ps) => {
        const re = globToRegExp(p)
        for (const x of ps) expect([p, x, re.test(x)]).toEqual([p, x, reference(p, x)])
      }),
      { numRuns: 1500 },
    )
  })

  it('matches a path with the reference on patterns derived from it (law)', () => {
    // Patterns made by replacing parts of a path with wildcards match far more often.
    const derived = path.chain((x) =>
      fc
        .array(
          fc.constantFrom('keep', '*', '?', '**', '[ab]', '[!a]', '[^.]', '[.-b]', '{a,b}', '{,a}'),
          {
            minLength: x.length,
            maxLength: x.length,
          },
        )
        .map((edits) => ({
          path: x,
          pattern: Array.from(x)
            .map((c, i) => (c === '/' || edits[i] === 'keep' ? c : edits[i]!))
            .join(''),
        })),
    )
    let agreedMatches = 0
    fc.assert(
      fc.property(derived, ({ path: x, pattern: p }) => {
        const got = globToRegExp(p).test(x)
        expect(got).toBe(reference(p, x))
        if (got) agreedMatches++
      }),
      { numRuns: 1000 },
    )
    expect(agreedMatches).toBeGreaterThan(100)
  })
})
