/**
 * `npm run build` as a user runs it, in a fresh copy of the project (so the
 * build is really made here, and the dist/ other tests run is left alone).
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { root } from './run.js'

const copy = mkdtempSync(join(tmpdir(), 'nerve-build-'))
afterAll(() => {
  rmSync(copy, { recursive: true, force: true })
})

describe('npm run build', () => {
  it('leaves dist/cli/main.js executable, so `nerve` runs without naming node, and bundles the dashboard', () => {
    for (const f of ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
      cpSync(join(root, f), join(copy, f), { recursive: true })
    }
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'))
    execFileSync('npm', ['run', 'build'], { cwd: copy, stdio: 'ignore' })
    const bin = join(copy, 'dist/cli/main.js')
    expect(statSync(bin).mode & 0o111).toBe(0o111)
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' })
    expect(version.trim()).toMatch(/^\d+\.\d+\.\d+$/)
    for (const f of ['index.html', 'app.js', 'app.css'])
      expect(statSync(join(copy, 'dist/dashboard', f)).size).toBeGreaterThan(0)
  }, 180_000)
})
