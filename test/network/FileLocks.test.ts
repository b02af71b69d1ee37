import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FileLocks } from 'nerve-agents/network'

const settle = () => new Promise((r) => setImmediate(r))

describe('file locks', () => {
  it('let readers share a path and make a writer wait for them', async () => {
    const locks = new FileLocks()
    const r1 = await locks.acquire('a', [{ path: 'src/x.ts', mode: 'read' }])
    const r2 = await locks.acquire('b', [{ path: 'src', mode: 'read' }])
    let wrote = false
    const writer = locks.acquire('c', [{ path: 'src/', mode: 'write' }]).then((release) => {
      wrote = true
      return release
    })
    await settle()
    expect(wrote).toBe(false)
    r1()
    await settle()
    expect(wrote).toBe(false)
    r2()
    ;(await writer)()
    expect(wrote).toBe(true)
    expect(locks.held()).toEqual([])
  })

  it("never block an owner on its own locks, and release an owner's all at once", async () => {
    const locks = new FileLocks()
    await locks.acquire('a', [{ path: 'docs', mode: 'write' }])
    await locks.acquire('a', [{ path: 'docs/plan.md', mode: 'write' }])
    expect(locks.held()).toHaveLength(2)
    locks.releaseAll('a')
    expect(locks.held()).toEqual([])
  })

  it('give up waiting when the signal aborts, holding nothing', async () => {
    const locks = new FileLocks()
    await locks.acquire('a', [{ path: 'b', mode: 'write' }])
    const stop = new AbortController()
    const waiting = locks.acquire(
      'b',
      [
        { path: 'a', mode: 'write' },
        { path: 'b/c', mode: 'write' },
      ],
      stop.signal,
    )
    await settle()
    stop.abort(new Error('cancelled'))
    await expect(waiting).rejects.toThrow('cancelled')
    expect(locks.held().map((h) => h.owner)).toEqual(['a'])
  })

  it('law: owners taking overlapping locks in any order all finish (fixed order: no deadlock)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.array(fc.constantFrom('a', 'a/b', 'c', 'c/d/e', 'f'), { minLength: 1, maxLength: 3 }),
          {
            minLength: 2,
            maxLength: 5,
          },
        ),
        async (wanted) => {
          const locks = new FileLocks()
          let inside = 0
          await Promise.all(
            wanted.map(async (paths, i) => {
              const release = await locks.acquire(
                `o${i}`,
                paths.map((path) => ({ path, mode: 'write' as const })),
              )
              inside++
              await settle()
              release()
            }),
          )
          expect(inside).toBe(wanted.length)
          expect(locks.held()).toEqual([])
        },
      ),
      { numRuns: 50 },
    )
  })
})
