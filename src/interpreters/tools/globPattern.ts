import { UsageError } from '../../errors.js'

/** The most patterns one pattern's braces may expand to. */
const MAX_EXPANSIONS = 1024

/**
 * Where the brace group opening at `open` closes, and the positions of its
 * top-level commas; `undefined` when it never closes.
 */
const braceGroup = (
  pattern: string,
  open: number,
): { readonly close: number; readonly commas: readonly number[] } | undefined => {
  const commas: number[] = []
  let depth = 0
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') i++
    else if (c === '{') depth++
    else if (c === ',' && depth === 1) commas.push(i)
    else if (c === '}' && --depth === 0) return { close: i, commas }
  }
  return undefined
}

/**
 * The brace-free patterns `{a,b}` groups expand to, left to right. A `{`
 * without its `}`, or a group without a top-level comma, is literal text.
 *
 * @internal
 */
export const expandBraces = (pattern: string): readonly string[] => {
  const out: string[] = []
  const expand = (p: string, from: number): void => {
    for (let i = from; i < p.length; i++) {
      if (p[i] === '\\') {
        i++
        continue
      }
      if (p[i] !== '{') continue
      const group = braceGroup(p, i)
      if (group === undefined || group.commas.length === 0) continue
      const head = p.slice(0, i)
      const tail = p.slice(group.close + 1)
      const cuts = [i, ...group.commas, group.close]
      for (let k = 0; k + 1 < cuts.length; k++) {
        expand(head + p.slice(cuts[k]! + 1, cuts[k + 1]) + tail, i)
      }
      return
    }
    if (out.length >= MAX_EXPANSIONS) {
      throw new UsageError(
        'globToRegExp',
        `the braces of ${JSON.stringify(pattern)} expand to more than ${MAX_EXPANSIONS} patterns`,
      )
    }
    out.push(p)
  }
  expand(pattern, 0)
  return out
}

const hex = (c: string): string => `\\u{${c.codePointAt(0)!.toString(16)}}`

/**
 * The regular expression for a `[...]` class starting at `chars[start]`,
 * and the index after it; `undefined` when it never closes.
 */
const classAt = (
  chars: readonly string[],
  start: number,
): { readonly source: string; readonly next: number } | undefined => {
  let i = start + 1
  const negated = chars[i] === '!' || chars[i] === '^'
  if (negated) i++
  const first = i
  const items: string[] = []
  const take = (): string | undefined => {
    if (chars[i] === '\\' && i + 1 < chars.length) i++
    return chars[i++]
  }
  while (i < chars.length) {
    if (chars[i] === ']' && i > first) {
      const body = items.join('')
      const source = negated ? `[^/${body}]` : body === '' ? '(?!)' : `(?!/)[${body}]`
      return { source, next: i + 1 }
    }
    const low = take()!
    if (chars[i] === '-' && i + 1 < chars.length && chars[i + 1] !== ']') {
      i++
      const high = take()!
      // A reversed range matches nothing.
      if (low.codePointAt(0)! <= high.codePointAt(0)!) items.push(`${hex(low)}-${hex(high)}`)
    } else {
      items.push(hex(low))
    }
  }
  return undefined
}

/** The regular expression for one brace-free segment other than `**`. */
const segmentSource = (segment: string): string => {
  const chars = Array.from(segment)
  let out = ''
  for (let i = 0; i < chars.length;) {
    const c = chars[i]!
    if (c === '\\' && i + 1 < chars.length) {
      out += hex(chars[i + 1]!)
      i += 2
    } else if (c === '*') {
      while (chars[i] === '*') i++
      out += '[^/]*'
    } else if (c === '?') {
      out += '[^/]'
      i++
    } else {
      const cls = c === '[' ? classAt(chars, i) : undefined
      if (cls === undefined) {
        out += hex(c)
        i++
      } else {
        out += cls.source
        i = cls.next
      }
    }
  }
  return out
}

/** The regular expression for one brace-free pattern. */
const patternSource = (pattern: string): string => {
  const segments = pattern.split('/')
  return segments
    .map((segment, i) => {
      const last = i === segments.length - 1
      if (segment !== '**') return segmentSource(segment) + (last ? '' : '/')
      return last ? '[^/]+(?:/[^/]+)*' : '(?:[^/]+/)*'
    })
    .join('')
}

/**
 * The regular expression a glob pattern stands for, matching whole relative
 * paths (`/`-separated, no leading `/`). `*` is any run of characters but
 * `/`, `?` one such character, `[abc]`, `[a-z]`, `[!abc]` (or `[^abc]`) one
 * of them or not (never `/`), `{a,b}` either alternative (groups nest), `\`
 * makes the next character literal. A segment that is exactly `**` matches
 * any number of segments (`a/**` at least one). Names starting with `.` are
 * matched like any other. An unclosed `[` or `{` is literal.
 *
 * @category tools
 * @example
 * import { globToRegExp } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const ts = globToRegExp('src/**\/*.{ts,tsx}')
 * assert.deepStrictEqual(
 *   ['src/a.ts', 'src/x/y/b.tsx', 'src/c.js', 'lib/d.ts'].filter((p) => ts.test(p)),
 *   ['src/a.ts', 'src/x/y/b.tsx'],
 * )
 */
export const globToRegExp = (pattern: string): RegExp => {
  if (typeof pattern !== 'string') {
    throw new UsageError('globToRegExp', `the pattern must be a string, got ${typeof pattern}`)
  }
  return new RegExp(`^(?:${expandBraces(pattern).map(patternSource).join('|')})$`, 'u')
}

/**
 * Whether a pattern names a directory (`.git`, `node_modules`) as a literal
 * segment or alternative, so that a walk must go into it.
 *
 * @internal
 */
export const patternNames = (pattern: string, name: string): boolean =>
  pattern.split(/[/{},]/).includes(name)
