import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The layer rule of DESIGN.md: the pure layers import no `node:*` module, no
 * interpreter and no higher layer, and use no clock or random source.
 */
const PURE: Readonly<Record<string, number>> = {
  'src/errors.ts': 0,
  'src/dag': 0,
  'src/conversation': 1,
  'src/node': 2,
  'src/graph': 3,
}
const ALLOWED_PACKAGES = /^(fp-ts|io-ts|immer)(\/|$)/
const EFFECTS: readonly [RegExp, string][] = [
  [/\bDate\b/, 'a clock (Date)'],
  [/\bperformance\s*\./, 'a clock (performance)'],
  [/\bprocess\s*\./, 'the process (process.*)'],
  [/\bMath\s*\.\s*random\b/, 'a random source (Math.random)'],
  [/\bcrypto\b/, 'crypto (a random source or hashing by the host)'],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask)\b/, 'timers'],
  [/\brequire\s*\(/, 'require()'],
  [/\bimport\s*\(/, 'dynamic import()'],
]

const root = join(import.meta.dirname, '..')

const layerOf = (file: string): number | undefined => {
  for (const [prefix, rank] of Object.entries(PURE)) {
    if (file === prefix || file.startsWith(`${prefix}/`)) return rank
  }
  return undefined
}

/** Every way `file` (a repo-relative path) breaks the layer rule. */
export const violations = (file: string, text: string): string[] => {
  const rank = layerOf(file)
  if (rank === undefined) return []
  const found: string[] = []
  const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '') // comments may mention anything
  for (const m of code.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s+['"]([^'"]+)['"]/g)) {
    const spec = (m[1] ?? m[2])!
    if (spec.startsWith('.')) {
      const target = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts')
      const targetRank = layerOf(target)
      if (targetRank === undefined) found.push(`${file} imports ${spec}, which is not a pure layer`)
      else if (targetRank > rank) found.push(`${file} imports ${spec}, a higher layer`)
    } else if (!ALLOWED_PACKAGES.test(spec)) {
      found.push(`${file} imports ${spec}`)
    }
  }
  for (const [pattern, what] of EFFECTS) if (pattern.test(code)) found.push(`${file} uses ${what}`)
  return found
}

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  )

describe('the layer rule', () => {
  it('holds for every file of the pure layers', () => {
    const all = files(join(root, 'src')).map((f) => relative(root, f))
    expect(all.filter((f) => layerOf(f) !== undefined).length).toBeGreaterThan(0)
    expect(all.flatMap((f) => violations(f, readFileSync(join(root, f), 'utf8')))).toEqual([])
  })

  it('catches node modules, higher layers, clocks and random sources', () => {
    expect(violations('src/dag/x.ts', `import { readFileSync } from 'node:fs'`)).toHaveLength(1)
    expect(violations('src/dag/x.ts', `import { pipe } from 'fp-ts/lib/function.js'`)).toEqual([])
    expect(violations('src/dag/x.ts', `import { user } from '../conversation/build.js'`)).toEqual([
      'src/dag/x.ts imports ../conversation/build.js, a higher layer',
    ])
    expect(violations('src/conversation/x.ts', `import { run } from '../runtime/run.js'`)).toEqual([
      'src/conversation/x.ts imports ../runtime/run.js, which is not a pure layer',
    ])
    expect(
      violations('src/conversation/x.ts', `import { vertex } from '../dag/Vertex.js'`),
    ).toEqual([])
    expect(violations('src/graph/x.ts', `const t = Date.now()`)).toEqual([
      'src/graph/x.ts uses a clock (Date)',
    ])
    expect(violations('src/node/x.ts', `const r = Math.random()`)).toHaveLength(1)
    expect(violations('src/node/x.ts', `import pty from 'node-pty'`)).toHaveLength(1)
    expect(violations('src/runtime/x.ts', `import { spawn } from 'node:child_process'`)).toEqual([])
  })
})
