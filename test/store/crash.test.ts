import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { sqliteStore } from 'nerve-agents/store'
import { checkGeneration, generation } from './fixtures/generations.js'

const base = mkdtempSync(join(tmpdir(), 'nerve-crash-'))
afterAll(() => {
  rmSync(base, { recursive: true, force: true })
})

const writeLoop = join(import.meta.dirname, 'fixtures', 'writeLoop.ts')
const repoRoot = join(import.meta.dirname, '..', '..')

interface Round {
  /** The generation the writer found at its start. */
  readonly start: number
  /** The last generation it reported committed before the kill. */
  readonly last: number
}

/** Runs the write loop on `path` and SIGKILLs it `delayMs` after its first commit. */
const killedRun = (path: string, delayMs: number): Promise<Round> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writeLoop, path], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    let armed = false
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      out += chunk
      if (!armed && /^committed /m.test(out)) {
        armed = true
        setTimeout(() => child.kill('SIGKILL'), delayMs)
      }
    })
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      const start = /^ready (\d+)$/m.exec(out)
      if (signal !== 'SIGKILL' || start === null) {
        reject(new Error(`write loop ended with ${code ?? signal}: ${err}`))
        return
      }
      const committed = [...out.matchAll(/^committed (\d+)$/gm)].map((m) => Number(m[1]))
      resolve({ start: Number(start[1]), last: committed.at(-1) ?? Number(start[1]) })
    })
  })

describe('a process killed while writing to a SQLite store', () => {
  it('leaves a database that opens and holds the state before or after each transaction', async () => {
    const path = join(base, 'nerve.db')
    sqliteStore(path)
      .close()
      .catch(() => undefined)
    // Deterministic "random" delays (a fixed LCG), from the first commit on: kills land mid-transaction.
    let seed = 7
    const delays = Array.from({ length: 12 }, () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % 60
    })
    let known = 0
    for (const delayMs of delays) {
      const round = await killedRun(path, delayMs)
      expect(round.start).toBe(known)
      const db = new Database(path)
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
      db.close()
      const store = sqliteStore(path)
      const g = await generation(store)
      // The transaction in flight at the kill may or may not have committed.
      expect([round.last, round.last + 1]).toContain(g)
      checkGeneration(store, g)
      await store.close()
      known = g
    }
    expect(known).toBeGreaterThan(delays.length) // the writers got work done between kills
  }, 300_000)
})
