/**
 * The terminal screen loads when our modules are turned into CommonJS (as
 * tsx does in a project whose package.json says `"type": "commonjs"`): the
 * xterm package it imports then comes by `require`, its exports by name.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'nerve-commonjs-'))
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('the terminal screen as CommonJS', () => {
  it('draws what it is fed', async () => {
    // In a CommonJS package, as a loader that turns it into CommonJS sees it.
    writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }')
    copyFileSync(join(root, 'src/interpreters/terminal/screen.ts'), join(dir, 'screen.ts'))
    const out = join(dir, 'screen.js')
    await build({
      stdin: {
        contents: `import { TerminalScreen } from './screen.ts'
const s = new TerminalScreen({ cols: 20, rows: 3 })
s.write('hello\\r\\nworld')
s.onChange(() => { if (s.text().includes('world')) { console.log(JSON.stringify(s.text())); process.exit(0) } })`,
        resolveDir: dir,
        loader: 'ts',
      },
      bundle: true,
      format: 'cjs',
      platform: 'node',
      // Required at run time, as a CommonJS project requires it.
      external: ['@xterm/headless'],
      outfile: out,
      logLevel: 'silent',
    })
    const printed = execFileSync(process.execPath, [out], {
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: join(root, 'node_modules') },
    })
    expect(JSON.parse(printed)).toMatch(/^hello\nworld/)
  })
})
