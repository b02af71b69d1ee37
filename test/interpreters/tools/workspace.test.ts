import { mkdir, realpath, stat, symlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../../src/errors.js'
import { PathOutsideRoot, resolveInside, readTool } from '../../../src/interpreters/tools/index.js'
import { truncate } from '../../../src/interpreters/tools/workspace.js'
import { files, workspaceDirs } from './fixture.js'

/** The error `work` rejects with. */
const rejection = (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    (v) => {
      throw new Error(`expected a rejection, got ${String(v)}`)
    },
    (e: unknown) => e,
  )

/** The real path of the deepest existing ancestor of `path` (itself when it exists). */
const deepestReal = async (path: string): Promise<string> => {
  for (let p = path; ; p = dirname(p)) {
    try {
      await stat(p)
      return await realpath(p)
    } catch {
      // go up
    }
  }
}

const inside = (root: string, path: string): boolean => path === root || path.startsWith(`${root}/`)

describe('resolveInside', () => {
  it('resolves a relative path, existing or not, against the root', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'a/b.txt': 'b' })
    expect(await resolveInside(root, 'a/b.txt')).toBe(join(root, 'a/b.txt'))
    expect(await resolveInside(root, 'new/dir/c.txt')).toBe(join(root, 'new/dir/c.txt'))
    expect(await resolveInside(root, '.')).toBe(root)
    expect(await resolveInside(root, 'a/../a/./b.txt')).toBe(join(root, 'a/b.txt'))
  })

  it('takes an absolute path inside the root', async () => {
    const { root } = await workspaceDirs()
    expect(await resolveInside(root, join(root, 'x.txt'))).toBe(join(root, 'x.txt'))
  })

  it('refuses a path that climbs out with ..', async () => {
    const { root } = await workspaceDirs()
    const e = await rejection(resolveInside(root, '../outside/secret.txt'))
    expect(e).toBeInstanceOf(PathOutsideRoot)
    expect((e as Error).message).toMatch(/path "..\/outside\/secret.txt" is outside the workspace/)
  })

  it('refuses an absolute path outside the root', async () => {
    const { root } = await workspaceDirs()
    expect(await rejection(resolveInside(root, '/etc/passwd'))).toBeInstanceOf(PathOutsideRoot)
  })

  it('refuses a link to a file outside, and says where it leads', async () => {
    const { root, outside } = await workspaceDirs()
    await symlink(join(outside, 'secret.txt'), join(root, 'secret'))
    const e = await rejection(resolveInside(root, 'secret'))
    expect(e).toBeInstanceOf(PathOutsideRoot)
    expect((e as PathOutsideRoot).resolved).toBe(join(outside, 'secret.txt'))
  })

  it('refuses a path through a linked directory that leads outside, even to a new file', async () => {
    const { root, outside } = await workspaceDirs()
    await mkdir(join(root, 'sub'))
    await symlink(outside, join(root, 'sub/out'))
    expect(await rejection(resolveInside(root, 'sub/out/secret.txt'))).toBeInstanceOf(
      PathOutsideRoot,
    )
    expect(await rejection(resolveInside(root, 'sub/out/new/file.txt'))).toBeInstanceOf(
      PathOutsideRoot,
    )
  })

  it('follows a dangling link to where it would create the file', async () => {
    const { root, outside } = await workspaceDirs()
    await symlink(join(outside, 'planted.txt'), join(root, 'dangling'))
    await symlink('inner/target.txt', join(root, 'pointer'))
    expect(await rejection(resolveInside(root, 'dangling'))).toBeInstanceOf(PathOutsideRoot)
    expect(await resolveInside(root, 'pointer')).toBe(join(root, 'inner/target.txt'))
  })

  it('accepts a link that stays inside the root', async () => {
    const { root } = await workspaceDirs()
    await files(root, { 'a/b.txt': 'b' })
    await symlink(join(root, 'a'), join(root, 'alias'))
    expect(await resolveInside(root, 'alias/b.txt')).toBe(join(root, 'a/b.txt'))
  })

  it('works from a root given through a link', async () => {
    const { root } = await workspaceDirs()
    const alias = join(dirname(root), 'alias')
    await symlink(root, alias)
    expect(await resolveInside(alias, 'x')).toBe(join(root, 'x'))
    expect(await resolveInside(alias, join(alias, 'x'))).toBe(join(root, 'x'))
  })

  it('rejects a loop of links with ELOOP', async () => {
    const { root } = await workspaceDirs()
    await symlink('b', join(root, 'a'))
    await symlink('a', join(root, 'b'))
    const e = await rejection(resolveInside(root, 'a/x'))
    expect((e as { code?: unknown }).code).toBe('ELOOP')
  })

  it('never gives a path outside the root, whatever the path string (law)', async () => {
    const { root, outside } = await workspaceDirs()
    await files(root, { 'a/b.txt': 'b', 'c.txt': 'c' })
    await symlink(outside, join(root, 'out'))
    await symlink(join(root, 'a'), join(root, 'in'))
    await symlink(join(outside, 'nope'), join(root, 'dangle'))
    await symlink('../..', join(root, 'a/up'))
    await symlink('../outside', join(root, 'rel'))
    const segment = fc.constantFrom(
      '..',
      '.',
      '',
      'a',
      'b.txt',
      'c.txt',
      'new',
      'out',
      'in',
      'dangle',
      'up',
      'rel',
      'root',
      'outside',
      'secret.txt',
    )
    const pathString = fc
      .tuple(fc.boolean(), fc.array(segment, { maxLength: 7 }))
      .map(([absolute, parts]) => `${absolute ? '/' : ''}${parts.join('/')}`)
    const seen = { refused: 0, resolved: 0 }
    await fc.assert(
      fc.asyncProperty(pathString, async (path) => {
        const result = await resolveInside(root, path).then(
          (p) => p,
          (e: unknown) => {
            expect(e).toBeInstanceOf(PathOutsideRoot)
            return undefined
          },
        )
        if (result === undefined) {
          seen.refused++
          return
        }
        seen.resolved++
        expect(inside(root, result)).toBe(true)
        expect(inside(root, await deepestReal(result))).toBe(true)
      }),
      { numRuns: 300 },
    )
    // Both sides of the law were exercised.
    expect(seen.refused).toBeGreaterThan(20)
    expect(seen.resolved).toBeGreaterThan(20)
  })

  it('resolves a path of plain names to the root joined with it (law)', async () => {
    const { root } = await workspaceDirs()
    const name = fc.stringMatching(/^[a-z0-9_-]{1,8}$/)
    await fc.assert(
      fc.asyncProperty(fc.array(name, { minLength: 1, maxLength: 4 }), async (parts) => {
        expect(await resolveInside(root, parts.join('/'))).toBe(join(root, ...parts))
      }),
      { numRuns: 100 },
    )
  })
})

describe('workspace options', () => {
  it('are checked when a tool is made', () => {
    expect(() => readTool({ root: '' })).toThrow(UsageError)
    expect(() => readTool({ root: '.', timeoutMs: 0 })).toThrow(/readTool\(\): timeoutMs/)
    expect(() => readTool({ root: '.', maxOutputBytes: 1.5 })).toThrow(/maxOutputBytes/)
  })
})

describe('truncate', () => {
  it('leaves text within the limit as it is', () => {
    expect(truncate('hello', 5)).toBe('hello')
  })

  it('cuts longer text and says how many bytes were cut', () => {
    expect(truncate('0123456789', 4)).toBe('0123\n[output truncated: 6 of 10 bytes cut]')
  })

  it('never splits a character', () => {
    // 'é' is two bytes: a cut after three bytes keeps one character.
    expect(truncate('éééé', 3)).toBe('é\n[output truncated: 6 of 8 bytes cut]')
  })

  it('keeps within the limit and counts every byte (law)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 1, max: 40 }), (s, max) => {
        const out = truncate(s, max)
        const total = Buffer.byteLength(s)
        if (total <= max) return out === s
        const m = /\n?\[output truncated: (\d+) of (\d+) bytes cut\]$/.exec(out)!
        const kept = out.slice(0, m.index)
        expect(s.startsWith(kept)).toBe(true)
        expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(max)
        expect([Number(m[1]), Number(m[2])]).toEqual([total - Buffer.byteLength(kept), total])
        return true
      }),
    )
  })
})
