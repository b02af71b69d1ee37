/**
 * The CLI reaches the daemon with one connection: no probe first. A socket
 * path with nothing to accept on it is DaemonNotRunning, whether the file
 * is absent or left behind.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, nerve } from './run.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-connect-'))
beforeAll(() => {
  ensureBuilt()
}, 180_000)
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const errorOf = (stdout: string): { tag: string; path?: string } =>
  (JSON.parse(stdout.trim()) as { error: { tag: string; path?: string } }).error

describe('the CLI connecting to a daemon', () => {
  it('says DaemonNotRunning, naming the socket, when a file nobody listens on is in its place', async () => {
    const home = join(dir, 'stale')
    mkdirSync(home, { mode: 0o700 })
    writeFileSync(join(home, 'nerve.sock'), '')
    const r = await nerve(['node', 'list', '--json'], { NERVE_HOME: home })
    expect(r.code).toBe(6)
    expect(errorOf(r.stdout)).toEqual(
      expect.objectContaining({ tag: 'DaemonNotRunning', path: join(home, 'nerve.sock') }),
    )
  })
})
