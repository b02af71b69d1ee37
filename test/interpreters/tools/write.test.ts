import { chmod, readdir, readFile, stat, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { writeTool } from '../../../src/interpreters/tools/index.js'
import { call, files, textOf, workspaceDirs } from './fixture.js'

describe('writeTool', () => {
  it('creates a file and its missing parent directories', async () => {
    const { root } = await workspaceDirs()
    const out = await call(writeTool({ root }), { path: 'a/b/c.txt', content: 'héllo' })
    expect(out).toEqual({ content: 'created "a/b/c.txt" (6 bytes)' })
    expect(await readFile(join(root, 'a/b/c.txt'), 'utf8')).toBe('héllo')
  })

  it('replaces a file, keeping its mode and leaving no temporary file', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'run.sh': 'old' })
    await chmod(join(root, 'run.sh'), 0o750)
    const out = await call(writeTool({ root }), { path: 'run.sh', content: 'new' })
    expect(textOf(out)).toBe('overwrote "run.sh" (3 bytes)')
    expect(await readFile(join(root, 'run.sh'), 'utf8')).toBe('new')
    expect((await stat(join(root, 'run.sh'))).mode & 0o777).toBe(0o750)
    expect(await readdir(root)).toEqual(['run.sh'])
  })

  it('refuses to write over a directory', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'd/x': 'x' })
    expect(await call(writeTool({ root }), { path: 'd', content: '' })).toEqual({
      content: '"d" is a directory',
      is_error: true,
    })
  })

  it('refuses paths that lead outside the root and writes nothing there', async () => {
    const { root, outside } = await workspaceDirs()
    await symlink(join(outside, 'secret.txt'), join(root, 'link'))
    await symlink(outside, join(root, 'dir'))
    await symlink(join(outside, 'planted.txt'), join(root, 'dangling'))
    const tool = writeTool({ root })
    for (const path of [
      '../outside/x.txt',
      join(outside, 'y.txt'),
      'link',
      'dir/secret.txt',
      'dir/new/z.txt',
      'dangling',
    ]) {
      const out = await call(tool, { path, content: 'pwned' })
      expect(out.is_error).toBe(true)
      expect(textOf(out)).toContain(`path "${path}" is outside the workspace`)
    }
    expect(await readdir(outside)).toEqual(['secret.txt'])
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n')
  })

  it('writes through a link that stays inside the root, to its target', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'real.txt': 'old' })
    await symlink('real.txt', join(root, 'alias.txt'))
    await call(writeTool({ root }), { path: 'alias.txt', content: 'new' })
    expect(await readFile(join(root, 'real.txt'), 'utf8')).toBe('new')
    expect((await stat(join(root, 'alias.txt'))).isFile()).toBe(true)
  })

  it('answers missing fields with an error naming them', async () => {
    const { root } = await workspaceDirs()
    const out = await call(writeTool({ root }), { path: 'x' })
    expect(out).toEqual({
      content: 'invalid input for tool "write": field "content" is missing (expected string)',
      is_error: true,
    })
  })
})
