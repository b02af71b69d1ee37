import { symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { grepTool } from '../../../src/interpreters/tools/index.js'
import { call, files, textOf, workspaceDirs } from './fixture.js'

const tree = {
  'src/a.ts': 'const todo = 1\n// TODO: more\n',
  'src/deep/b.ts': 'nothing here\nTODO later\r\n',
  'src/c.md': 'TODO in docs\n',
  'bin.dat': Buffer.from('TODO\u0000binary'),
  'node_modules/x/index.ts': 'TODO vendored\n',
}

describe('grepTool', () => {
  it('answers the matching lines as file:line:text, files relative to the root', async () => {
    const { root } = await workspaceDirs()
    await files(root, tree)
    const out = await call(grepTool({ root }), { pattern: 'TODO' })
    expect(out).toEqual({
      content: 'src/a.ts:2:// TODO: more\nsrc/c.md:1:TODO in docs\nsrc/deep/b.ts:2:TODO later',
    })
  })

  it('ignores case when asked', async () => {
    const { root } = await workspaceDirs()
    await files(root, tree)
    const out = await call(grepTool({ root }), { pattern: '^const todo', ignore_case: true })
    expect(textOf(out)).toBe('src/a.ts:1:const todo = 1')
  })

  it('searches only files matching glob: by name without /, by path with /', async () => {
    const { root } = await workspaceDirs()
    await files(root, tree)
    const tool = grepTool({ root })
    expect(textOf(await call(tool, { pattern: 'TODO', glob: '*.md' }))).toBe(
      'src/c.md:1:TODO in docs',
    )
    expect(textOf(await call(tool, { pattern: 'TODO', glob: 'src/deep/*' }))).toBe(
      'src/deep/b.ts:2:TODO later',
    )
  })

  it('searches below path, or in the one file it names', async () => {
    const { root } = await workspaceDirs()
    await files(root, tree)
    const tool = grepTool({ root })
    expect(textOf(await call(tool, { pattern: 'TODO', path: 'src/deep' }))).toBe(
      'src/deep/b.ts:2:TODO later',
    )
    expect(textOf(await call(tool, { pattern: 'TODO', path: 'src/a.ts' }))).toBe(
      'src/a.ts:2:// TODO: more',
    )
  })

  it('searches node_modules only when the glob names it', async () => {
    const { root } = await workspaceDirs()
    await files(root, tree)
    const out = await call(grepTool({ root }), { pattern: 'vendored', glob: 'node_modules/**' })
    expect(textOf(out)).toBe('node_modules/x/index.ts:1:TODO vendored')
  })

  it('says when nothing matches', async () => {
    const { root } = await workspaceDirs()
    await files(root, tree)
    expect(await call(grepTool({ root }), { pattern: 'absent' })).toEqual({
      content: 'no matches for /absent/',
    })
  })

  it('answers an invalid regular expression with an error', async () => {
    const { root } = await workspaceDirs()
    const out = await call(grepTool({ root }), { pattern: '(' })
    expect(out.is_error).toBe(true)
    expect(textOf(out)).toMatch(/^invalid regular expression/)
  })

  it('never searches outside the root', async () => {
    const { root, outside } = await workspaceDirs()
    await symlink(join(outside, 'secret.txt'), join(root, 'link.txt'))
    await symlink(outside, join(root, 'out'))
    const tool = grepTool({ root })
    expect(textOf(await call(tool, { pattern: 'secret' }))).toBe('no matches for /secret/')
    for (const path of ['..', '../outside/secret.txt', '/etc', 'link.txt', 'out']) {
      const out = await call(tool, { pattern: 'secret', path })
      expect(out.is_error).toBe(true)
      expect(textOf(out)).toContain('is outside the workspace')
    }
  })

  it('cuts a long answer after a whole line, saying how much and how many lines were cut', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'f.txt': 'hit\n'.repeat(10) })
    const out = textOf(await call(grepTool({ root, maxOutputBytes: 30 }), { pattern: 'hit' }))
    // Each answer line "f.txt:N:hit\n" is 12 bytes (13 for line 10): two fit in 30.
    expect(out).toBe(
      'f.txt:1:hit\nf.txt:2:hit\n' +
        '[output truncated: 97 of 121 bytes cut; 8 more matching lines; narrow the search]',
    )
  })

  it('answers a missing pattern with an error naming the field', async () => {
    const { root } = await workspaceDirs()
    expect(await call(grepTool({ root }), { path: 'src' })).toEqual({
      content:
        'invalid input for tool "grep": field "pattern" is missing (expected non-empty string)',
      is_error: true,
    })
  })
})
