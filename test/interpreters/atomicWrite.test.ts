import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { writeFileAtomic } from '../../src/interpreters/atomicWrite.js'

let base: string
let n = 0
const freshDir = async (): Promise<string> => {
  const dir = join(base, `case-${n++}`)
  await mkdir(dir)
  return dir
}
const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o7777

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'nerve-atomic-'))
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('writeFileAtomic', () => {
  it('writes a string as UTF-8 and bytes as they are', async () => {
    const dir = await freshDir()
    await writeFileAtomic(join(dir, 'text'), 'héllo ✓')
    await writeFileAtomic(join(dir, 'bytes'), new Uint8Array([0, 255, 10]))
    expect(await readFile(join(dir, 'text'), 'utf8')).toBe('héllo ✓')
    expect([...(await readFile(join(dir, 'bytes')))]).toEqual([0, 255, 10])
  })

  it('creates missing parent directories', async () => {
    const dir = await freshDir()
    const file = join(dir, 'a', 'b', 'c', 'file.json')
    await writeFileAtomic(file, '{}')
    expect(await readFile(file, 'utf8')).toBe('{}')
  })

  it('replaces an existing file and leaves no temporary file behind', async () => {
    const dir = await freshDir()
    const file = join(dir, 'file')
    await writeFile(file, 'a much longer old content')
    await writeFileAtomic(file, 'new')
    expect(await readFile(file, 'utf8')).toBe('new')
    expect(await readdir(dir)).toEqual(['file'])
  })

  it('sets the given mode exactly, whatever the umask', async () => {
    const dir = await freshDir()
    await writeFileAtomic(join(dir, 'secret'), 'x', { mode: 0o600 })
    await writeFileAtomic(join(dir, 'shared'), 'x', { mode: 0o664 })
    expect(await modeOf(join(dir, 'secret'))).toBe(0o600)
    expect(await modeOf(join(dir, 'shared'))).toBe(0o664)
  })

  it('gives the file the mode of the one it replaces when no mode is given', async () => {
    const dir = await freshDir()
    const file = join(dir, 'file')
    await writeFile(file, 'old')
    await chmod(file, 0o640)
    await writeFileAtomic(file, 'new')
    expect(await modeOf(file)).toBe(0o640)
  })

  it('gives a new file the mode writeFile would give it when no mode is given', async () => {
    const dir = await freshDir()
    await writeFile(join(dir, 'plain'), 'x')
    await writeFileAtomic(join(dir, 'atomic'), 'x')
    expect(await modeOf(join(dir, 'atomic'))).toBe(await modeOf(join(dir, 'plain')))
  })

  it('removes its temporary file, rethrows and leaves the target alone when the rename fails', async () => {
    const dir = await freshDir()
    const target = join(dir, 'target')
    await mkdir(target)
    await writeFile(join(target, 'inside'), 'kept')
    await expect(writeFileAtomic(target, 'data')).rejects.toMatchObject({ code: 'EISDIR' })
    expect(await readdir(dir)).toEqual(['target'])
    expect(await readFile(join(target, 'inside'), 'utf8')).toBe('kept')
  })

  it('leaves one complete content of overlapping writes to the same file', async () => {
    const dir = await freshDir()
    const file = join(dir, 'file')
    const contents = Array.from({ length: 12 }, (_, i) => `${i}`.repeat(100_000 + i))
    await Promise.all(contents.map((c) => writeFileAtomic(file, c)))
    expect(contents).toContain(await readFile(file, 'utf8'))
    expect(await readdir(dir)).toEqual(['file'])
  })

  it('throws a UsageError for a bad path, data or mode', async () => {
    await expect(writeFileAtomic('', 'x')).rejects.toThrow(UsageError)
    await expect(writeFileAtomic(join(base, 'f'), 7 as never)).rejects.toThrow(/data must be/)
    await expect(writeFileAtomic(join(base, 'f'), 'x', { mode: 0o10000 })).rejects.toThrow(
      /writeFileAtomic\(\): mode/,
    )
  })
})
