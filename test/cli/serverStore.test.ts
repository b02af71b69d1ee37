/**
 * Where `nerve server start` saves sessions: SQLite in its home by default
 * (beside its socket when only `NERVE_SOCKET` names it), a path or the files store on request, nowhere with
 * `--no-store` — seen through SAVE_SESSION from the SDK and the store itself.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { openStore } from '../../src/store/index.js'
import { ensureBuilt, nerve } from './run.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-serverstore-'))

beforeAll(() => {
  ensureBuilt()
}, 180_000)
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** Starts a detached daemon with `args` on a socket of its own, runs `f` with a client, stops it. */
const withDaemon = async (
  name: string,
  args: readonly string[],
  f: (c: NerveClient, status: Record<string, unknown>) => Promise<void>,
): Promise<void> => {
  const env = { NERVE_SOCKET: join(dir, `${name}.sock`), HOME: dir, XDG_RUNTIME_DIR: dir }
  const started = await nerve(['server', 'start', '--detach', ...args], env)
  expect(started.code, started.stderr).toBe(0)
  const c = await NerveClient.connect(env.NERVE_SOCKET)
  try {
    const status = JSON.parse((await nerve(['server', 'status', '--json'], env)).stdout) as Record<
      string,
      unknown
    >
    await f(c, status)
  } finally {
    await c.close()
    await nerve(['server', 'stop'], env)
  }
}

describe('nerve server start saves sessions', () => {
  it('in SQLite beside its socket by default when only NERVE_SOCKET names it, not in ~/.nerve', async () => {
    const db = join(dir, 'default.db')
    await withDaemon('default', [], async (c, status) => {
      expect(status.store).toEqual({ kind: 'sqlite', path: db })
      await c.createNode('sh', 'bash')
      await c.saveSession()
    })
    expect(existsSync(join(dir, '.nerve', 'nerve.db'))).toBe(false)
    const store = openStore({ path: db })
    try {
      expect((await store.load()).map((r) => r.id)).toContain('default')
    } finally {
      await store.close()
    }
  }, 60_000)

  it('in the files store at a path of its own with --store-kind files --store P', async () => {
    const file = join(dir, 'sessions.json')
    await withDaemon('files', ['--store-kind', 'files', '--store', file], async (c) => {
      await c.saveSession()
    })
    expect(existsSync(file)).toBe(true)
    const store = openStore({ kind: 'files', path: file })
    expect((await store.load()).map((r) => r.id)).toEqual(['default'])
  }, 60_000)

  it('nowhere with --no-store: SAVE_SESSION says there is no store', async () => {
    await withDaemon('none', ['--no-store'], async (c, status) => {
      expect(status.store).toBeUndefined()
      await expect(c.saveSession()).rejects.toMatchObject({ tag: 'NoStore' })
    })
  }, 60_000)
})

describe('nerve server start restores what it saved', () => {
  it('brings back the sessions and their nodes, an LLM node with its conversation', async () => {
    const db = join(dir, 'restore.db')
    let before = 0
    await withDaemon('restore', ['--store', db], async (c) => {
      await c.call('CREATE_SESSION', { sessionId: 'review', tags: ['ci'] })
      const chat = await c.createNode('chat', 'llm', { options: { provider: 'echo' } })
      await chat.execute('first question')
      await c.createNode('sh', 'bash', { sessionId: 'review' })
      before = (await chat.conversation()).messageCount
    })
    expect(before).toBeGreaterThan(1)
    await withDaemon('restore', ['--store', db], async (c) => {
      expect((await c.listNodes()).map((n) => [n.id, n.state])).toEqual([['chat', 'created']])
      expect((await c.listNodes('review')).map((n) => n.id)).toEqual(['sh'])
      const chat = c.node('chat')
      expect((await chat.conversation()).messageCount).toBe(before)
      expect(await chat.execute('second question')).toBe('echo: second question')
      expect((await chat.conversation()).messageCount).toBe(before + 2)
      const sh = c.node('sh', 'review')
      expect(await sh.execute('echo back')).toMatchObject({ stdout: 'back\n' })
    })
  }, 90_000)
})
