import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/** The modules of the network value: pure (no node:*, no clock, no randomness), immer allowed. */
const VALUE_MODULES = [
  'Network.ts',
  'edit.ts',
  'parts.ts',
  'AgentRole.ts',
  'NetworkFile.ts',
  'Envelope.ts',
  'EnvelopeLog.ts',
  'renderEnvelopes.ts',
]
const ALLOWED =
  /^(fp-ts|io-ts|immer)(\/|$)|^\.\/|^\.\.\/(errors|codec\/index|node\/index|dag\/index|conversation\/index|graph\/index)\.js$/
const TYPE_ONLY = /^\.\.\/runtime\/index\.js$/
const EFFECTS =
  /\bDate\b|\bperformance\s*\.|\bprocess\s*\.|\bMath\s*\.\s*random\b|\bcrypto\b|\b(setTimeout|setInterval|setImmediate|queueMicrotask)\b/

const problems = (file: string, text: string): string[] => {
  const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
  const found: string[] = []
  for (const m of code.matchAll(/^import\s+(type\s+)?[\s\S]*?from\s+'([^']+)'/gm)) {
    const spec = m[2]!
    if (ALLOWED.test(spec)) continue
    if (TYPE_ONLY.test(spec) && m[1] !== undefined) continue
    found.push(`${file} imports ${spec}`)
  }
  const effect = EFFECTS.exec(code)
  if (effect !== null) found.push(`${file} uses ${effect[0]}`)
  return found
}

describe('the network value modules', () => {
  it('are pure: no node:* module, no clock, no randomness, the runtime for types only', () => {
    const dir = join(import.meta.dirname, '../../src/network')
    expect(VALUE_MODULES.flatMap((f) => problems(f, readFileSync(join(dir, f), 'utf8')))).toEqual(
      [],
    )
  })

  it('catch a node module, a clock and a value import of the runtime', () => {
    expect(problems('x.ts', `import { readFileSync } from 'node:fs'`)).toEqual([
      'x.ts imports node:fs',
    ])
    expect(problems('x.ts', `const t = Date.now()`)).toEqual(['x.ts uses Date'])
    expect(problems('x.ts', `import { run } from '../runtime/index.js'`)).toEqual([
      'x.ts imports ../runtime/index.js',
    ])
    expect(problems('x.ts', `import type { Budget } from '../runtime/index.js'`)).toEqual([])
  })
})
