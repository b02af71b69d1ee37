import { execFileSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { bin, build } from './run.js'

describe('npm run build', () => {
  it('leaves dist/cli/main.js executable, so `nerve` runs without naming node', () => {
    build()
    expect(statSync(bin).mode & 0o111).toBe(0o111)
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' })
    expect(version.trim()).toMatch(/^\d+\.\d+\.\d+$/)
  }, 180_000)
})
