import { symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readTool } from '../../../src/interpreters/tools/index.js'
import { call, files, textOf, workspaceDirs } from './fixture.js'

const numbered = (from: number, lines: readonly string[]): string =>
  lines.map((l, i) => `${String(from + i).padStart(6)}\t${l}\n`).join('')

describe('readTool', () => {
  it('answers the lines of a file numbered from 1', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'a/b.txt': 'one\ntwo\nthree\n' })
    const out = await call(readTool({ root }), { path: 'a/b.txt' })
    expect(out).toEqual({ content: numbered(1, ['one', 'two', 'three']) })
  })

  it('reads from offset, at most limit lines', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'f.txt': 'l1\nl2\nl3\nl4\nl5' })
    const tool = readTool({ root })
    expect(textOf(await call(tool, { path: 'f.txt', offset: 2, limit: 2 }))).toBe(
      numbered(2, ['l2', 'l3']),
    )
    expect(textOf(await call(tool, { path: 'f.txt', offset: 4 }))).toBe(numbered(4, ['l4', 'l5']))
    expect(textOf(await call(tool, { path: 'f.txt', limit: 9 }))).toBe(
      numbered(1, ['l1', 'l2', 'l3', 'l4', 'l5']),
    )
  })

  it('answers an offset past the end with an error saying how many lines there are', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'f.txt': 'a\nb\n' })
    expect(await call(readTool({ root }), { path: 'f.txt', offset: 3 })).toEqual({
      content: 'offset 3 is past the end: "f.txt" has 2 lines',
      is_error: true,
    })
  })

  it('says a file is empty', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'e.txt': '' })
    expect(textOf(await call(readTool({ root }), { path: 'e.txt' }))).toBe('"e.txt" is empty')
  })

  it('refuses a binary file', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'b.bin': Buffer.from([0x89, 0x50, 0x00, 0x01]) })
    const out = await call(readTool({ root }), { path: 'b.bin' })
    expect(out).toEqual({
      content: '"b.bin" is a binary file; read shows only text',
      is_error: true,
    })
  })

  it('refuses a directory and a missing file', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'd/x.txt': 'x' })
    const tool = readTool({ root })
    expect(await call(tool, { path: 'd' })).toMatchObject({ is_error: true })
    expect(await call(tool, { path: 'nope.txt' })).toEqual({
      content: '"nope.txt" does not exist',
      is_error: true,
    })
  })

  it('refuses paths that lead outside the root', async () => {
    const { root, outside } = await workspaceDirs()
    await symlink(join(outside, 'secret.txt'), join(root, 'link'))
    await symlink(outside, join(root, 'dir'))
    const tool = readTool({ root })
    for (const path of ['../outside/secret.txt', '/etc/passwd', 'link', 'dir/secret.txt']) {
      const out = await call(tool, { path })
      expect(out.is_error).toBe(true)
      expect(textOf(out)).toContain(`path "${path}" is outside the workspace`)
      expect(textOf(out)).not.toContain('secret\n')
    }
  })

  it('cuts at a line when the output is too long, telling where to read on', async () => {
    const { root } = await workspaceDirs()
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`)
    await files(root, { 'long.txt': lines.join('\n') })
    const out = textOf(await call(readTool({ root, maxOutputBytes: 100 }), { path: 'long.txt' }))
    // Each numbered line of the first nine is 6 + 1 + 6 + 1 = 14 bytes: seven fit in 100.
    const shown = numbered(1, lines.slice(0, 7))
    const total = Buffer.byteLength(numbered(1, lines))
    expect(out).toBe(
      `${shown}[output truncated: ${total - 98} of ${total} bytes cut; read on with offset 8]`,
    )
  })

  it('cuts a single line too long for the output', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'wide.txt': 'x'.repeat(500) })
    const out = textOf(await call(readTool({ root, maxOutputBytes: 50 }), { path: 'wide.txt' }))
    expect(out).toBe(
      `     1\t${'x'.repeat(43)}\n[output truncated: 458 of 508 bytes cut; read on with offset 2]`,
    )
  })

  it('answers bad input with an error naming the field', async () => {
    const { root } = await workspaceDirs()
    expect(await call(readTool({ root }), { path: 'f', offset: 0 })).toEqual({
      content: 'invalid input for tool "read": field "offset" must be positive integer, got 0',
      is_error: true,
    })
  })
})
