import { mkdir, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { globTool } from '../../../src/interpreters/tools/index.js'
import { call, files, textOf, workspaceDirs } from './fixture.js'

const tree = {
  'README.md': '',
  'src/a.ts': '',
  'src/b.tsx': '',
  'src/deep/c.ts': '',
  'src/deep/d.js': '',
  'src-x/e.ts': '',
  '.env': '',
  '.git/config.ts': '',
  'node_modules/pkg/index.ts': '',
}

describe('globTool', () => {
  it('lists the matching files relative to the root, sorted', async () => {
    const { root } = await workspaceDirs()
    await files(root, tree)
    const out = await call(globTool({ root }), { pattern: '**/*.ts' })
    expect(out).toEqual({ content: 'src-x/e.ts\nsrc/a.ts\nsrc/deep/c.ts' })
  })

  it('matches below path, answering paths relative to the root', async () => {
    const { root } = await workspaceDirs()
    await files(root, tree)
    const out = await call(globTool({ root }), { pattern: '*.{ts,tsx}', path: 'src' })
    expect(textOf(out)).toBe('src/a.ts\nsrc/b.tsx')
  })

  it('passes over .git and node_modules unless the pattern names them', async () => {
    const { root } = await workspaceDirs()
    await files(root, tree)
    const tool = globTool({ root })
    expect(textOf(await call(tool, { pattern: '**/index.ts' }))).toBe(
      'no files match "**/index.ts"',
    )
    expect(textOf(await call(tool, { pattern: 'node_modules/**/*.ts' }))).toBe(
      'node_modules/pkg/index.ts',
    )
    expect(textOf(await call(tool, { pattern: '.git/*' }))).toBe('.git/config.ts')
  })

  it('lists links to files inside the root, not links leading outside, and follows no linked directory', async () => {
    const { root, outside } = await workspaceDirs()
    await files(root, { 'a.txt': '' })
    await symlink(join(root, 'a.txt'), join(root, 'b.txt'))
    await symlink(join(outside, 'secret.txt'), join(root, 'c.txt'))
    await symlink(outside, join(root, 'out'))
    await symlink(root, join(root, 'loop'))
    expect(textOf(await call(globTool({ root }), { pattern: '**' }))).toBe('a.txt\nb.txt')
  })

  it('refuses a path outside the root and a pattern that climbs out', async () => {
    const { root } = await workspaceDirs()
    const tool = globTool({ root })
    const climbing = await call(tool, { pattern: '../*' })
    const absolute = await call(tool, { pattern: '/etc/*' })
    const outside = await call(tool, { pattern: '*', path: '..' })
    expect([climbing.is_error, absolute.is_error, outside.is_error]).toEqual([true, true, true])
    expect(textOf(outside)).toContain('path ".." is outside the workspace')
  })

  it('refuses a path that is not a directory', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'f.txt': '' })
    expect(await call(globTool({ root }), { pattern: '*', path: 'f.txt' })).toEqual({
      content: '"f.txt" is not a directory',
      is_error: true,
    })
  })

  it('cuts a long list after a whole line and says how much was cut', async () => {
    const { root } = await workspaceDirs()
    await mkdir(join(root, 'many'))
    await files(
      root,
      Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`many/${String(i).padStart(2, '0')}`, '']),
      ),
    )
    const out = textOf(await call(globTool({ root, maxOutputBytes: 43 }), { pattern: 'many/*' }))
    // 50 lines of "many/NN" are 50 * 8 - 1 = 399 bytes.
    expect(out).toBe(
      'many/00\nmany/01\nmany/02\nmany/03\nmany/04\n' +
        '[output truncated: 359 of 399 bytes cut; narrow the pattern or the path]',
    )
  })

  it('answers an interrupted walk with an error', async () => {
    const { root } = await workspaceDirs()
    await files(root, tree)
    const controller = new AbortController()
    const walking = call(globTool({ root }), { pattern: '**' }, controller.signal)
    controller.abort()
    expect((await walking).is_error).toBe(true)
  })

  it('answers a missing pattern with an error naming the field', async () => {
    const { root } = await workspaceDirs()
    expect(await call(globTool({ root }), {})).toEqual({
      content:
        'invalid input for tool "glob": field "pattern" is missing (expected non-empty string)',
      is_error: true,
    })
  })
})
