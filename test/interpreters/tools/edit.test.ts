import { readFile, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { editTool } from '../../../src/interpreters/tools/index.js'
import { call, files, workspaceDirs } from './fixture.js'

describe('editTool', () => {
  it('replaces the one occurrence of old_string', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'f.ts': 'const a = 1\nconst b = 2\n' })
    const out = await call(editTool({ root }), {
      path: 'f.ts',
      old_string: 'b = 2',
      new_string: 'b = $& + 3',
    })
    expect(out).toEqual({ content: 'replaced 1 occurrence in "f.ts"' })
    // `$&` is inserted as it is, not as a replacement pattern.
    expect(await readFile(join(root, 'f.ts'), 'utf8')).toBe('const a = 1\nconst b = $& + 3\n')
  })

  it('refuses an old_string that occurs several times, saying how many', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'f.txt': 'x x x' })
    const out = await call(editTool({ root }), { path: 'f.txt', old_string: 'x', new_string: 'y' })
    expect(out.is_error).toBe(true)
    expect(out.content).toMatch(/^old_string occurs 3 times in "f.txt"/)
    expect(await readFile(join(root, 'f.txt'), 'utf8')).toBe('x x x')
  })

  it('replaces every occurrence with replace_all', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'f.txt': 'x x x' })
    const input = { path: 'f.txt', old_string: 'x', new_string: 'yy', replace_all: true }
    expect(await call(editTool({ root }), input)).toEqual({
      content: 'replaced 3 occurrences in "f.txt"',
    })
    expect(await readFile(join(root, 'f.txt'), 'utf8')).toBe('yy yy yy')
  })

  it('answers an old_string that does not occur with an error', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'f.txt': 'abc' })
    const out = await call(editTool({ root }), { path: 'f.txt', old_string: 'z', new_string: 'y' })
    expect(out).toEqual({ content: 'old_string does not occur in "f.txt"', is_error: true })
  })

  it('refuses an empty old_string and a change to the same text', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'f.txt': 'abc' })
    const tool = editTool({ root })
    const empty = await call(tool, { path: 'f.txt', old_string: '', new_string: 'y' })
    const same = await call(tool, { path: 'f.txt', old_string: 'a', new_string: 'a' })
    expect([empty.is_error, same.is_error]).toEqual([true, true])
  })

  it('keeps a byte order mark and refuses files that are not UTF-8 text', async () => {
    const { root } = await workspaceDirs()
    await files(root, {
      'bom.txt': Buffer.from('\uFEFFhello', 'utf8'),
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
      'bin.dat': Buffer.from([0x61, 0x00, 0x62]),
    })
    const tool = editTool({ root })
    await call(tool, { path: 'bom.txt', old_string: 'hello', new_string: 'bye' })
    expect(await readFile(join(root, 'bom.txt'))).toEqual(Buffer.from('\uFEFFbye', 'utf8'))
    for (const path of ['latin1.txt', 'bin.dat']) {
      const out = await call(tool, { path, old_string: 'a', new_string: 'b' })
      expect(out).toEqual({
        content: `"${path}" is not UTF-8 text; edit changes only text`,
        is_error: true,
      })
    }
  })

  it('refuses paths that lead outside the root and changes nothing there', async () => {
    const { root, outside } = await workspaceDirs()
    await symlink(join(outside, 'secret.txt'), join(root, 'link'))
    const tool = editTool({ root })
    for (const path of ['../outside/secret.txt', join(outside, 'secret.txt'), 'link']) {
      const out = await call(tool, { path, old_string: 'secret', new_string: 'gone' })
      expect(out.is_error).toBe(true)
      expect(out.content).toContain('is outside the workspace')
    }
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n')
  })

  it('answers a missing file and bad input with errors', async () => {
    const { root } = await workspaceDirs()
    const tool = editTool({ root })
    expect(await call(tool, { path: 'no.txt', old_string: 'a', new_string: 'b' })).toEqual({
      content: '"no.txt" does not exist',
      is_error: true,
    })
    expect(
      await call(tool, { path: 'x', old_string: 'a', new_string: 'b', replace_all: 'yes' }),
    ).toEqual({
      content: 'invalid input for tool "edit": field "replace_all" must be boolean, got "yes"',
      is_error: true,
    })
  })
})
