import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/** The room of the network value (src/network/model/): pure — no node:*, no clock, no randomness; immer allowed. */
const SRC = join(import.meta.dirname, '../../src')
const MODEL = join(SRC, 'network/model')
const VALUE_MODULES = readdirSync(MODEL, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(MODEL, f))
const PACKAGES = /^(fp-ts|io-ts|immer)(\/|$)/
/** Where a relative import may lead, from src/: the model itself and the pure core. */
const ALLOWED = /^(network\/model\/|errors\.js$|(codec|node|dag|conversation|graph)\/index\.js$)/
const TYPE_ONLY = /^runtime\/index\.js$/
const EFFECTS =
  /\bDate\b|\bperformance\s*\.|\bprocess\s*\.|\bMath\s*\.\s*random\b|\bcrypto\b|\b(setTimeout|setInterval|setImmediate|queueMicrotask)\b/

const problems = (file: string, text: string): string[] => {
  const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
  const found: string[] = []
  for (const m of code.matchAll(/^import\s+(type\s+)?[\s\S]*?from\s+'([^']+)'/gm)) {
    const spec = m[2]!
    if (PACKAGES.test(spec)) continue
    const to = spec.startsWith('.') ? relative(SRC, join(dirname(file), spec)) : undefined
    if (to !== undefined && ALLOWED.test(to)) continue
    if (to !== undefined && TYPE_ONLY.test(to) && m[1] !== undefined) continue
    found.push(`${relative(SRC, file)} imports ${spec}`)
  }
  const effect = EFFECTS.exec(code)
  if (effect !== null) found.push(`${relative(SRC, file)} uses ${effect[0]}`)
  return found
}

describe('the network value modules', () => {
  it('are pure: no node:* module, no clock, no randomness, the runtime for types only', () => {
    expect(VALUE_MODULES.length).toBeGreaterThan(10)
    expect(VALUE_MODULES.flatMap((f) => problems(f, readFileSync(f, 'utf8')))).toEqual([])
  })

  it('catch a node module, a clock, the run and a value import of the runtime', () => {
    const x = join(MODEL, 'x.ts')
    expect(problems(x, `import { readFileSync } from 'node:fs'`)).toEqual([
      'network/model/x.ts imports node:fs',
    ])
    expect(problems(x, `const t = Date.now()`)).toEqual(['network/model/x.ts uses Date'])
    expect(problems(x, `import { Inbox } from '../run/Inbox.js'`)).toEqual([
      'network/model/x.ts imports ../run/Inbox.js',
    ])
    expect(problems(x, `import { run } from '../../runtime/index.js'`)).toEqual([
      'network/model/x.ts imports ../../runtime/index.js',
    ])
    expect(problems(x, `import type { Budget } from '../../runtime/index.js'`)).toEqual([])
    expect(problems(x, `import { vertex } from '../../dag/index.js'`)).toEqual([])
  })
})
