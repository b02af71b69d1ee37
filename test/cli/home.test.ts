/**
 * Where Nerve keeps its files, as a user sees it: the built `nerve` run in a
 * project directory leaves that directory alone; node histories go under
 * Nerve's home (`NERVE_HOME`), one engine's apart from every other's.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, nerve } from './run.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-home-'))
const project = join(dir, 'project')
const home = join(dir, 'home')
const env = { NERVE_HOME: home, HOME: join(dir, 'user'), XDG_RUNTIME_DIR: '' }

/** Every file under `d`, relative to it. */
const files = (d: string): string[] =>
  existsSync(d)
    ? readdirSync(d, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => relative(d, join(e.parentPath, e.name)))
        .sort()
    : []

beforeAll(() => {
  ensureBuilt()
  mkdirSync(project)
  writeFileSync(
    join(project, 'g.json'),
    JSON.stringify({
      id: 'g',
      nodes: { sh: { kind: 'bash' } },
      steps: [{ id: 'hello', node: 'sh', input: 'echo hello' }],
    }),
  )
}, 180_000)

afterAll(async () => {
  await nerve(['server', 'stop'], env, undefined, project)
  rmSync(dir, { recursive: true, force: true })
})

describe('node history', () => {
  it('never lands in the working directory: graph runs write under NERVE_HOME, each run apart', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await nerve(['graph', 'run', 'g.json', '--json'], env, undefined, project)
      expect(r.code, r.stderr).toBe(0)
    }
    expect(files(project)).toEqual(['g.json'])
    const histories = files(join(home, 'history')).filter((f) => f.endsWith('/sh.jsonl'))
    // two engines, two server directories: one run never appends to another's file
    expect(histories).toHaveLength(2)
    expect(new Set(histories.map((f) => f.split('/')[0])).size).toBe(2)
  })

  it("a new daemon's node sees only its own records, none of earlier runs' nodes of the same name", async () => {
    const started = await nerve(['server', 'start', '--detach'], env, undefined, project)
    expect(started.code, started.stderr).toBe(0)
    expect(
      (await nerve(['node', 'create', 'sh', '--kind', 'bash'], env, undefined, project)).code,
    ).toBe(0)
    const before = await nerve(['node', 'history', 'sh', '--json'], env, undefined, project)
    expect(before.code, before.stderr).toBe(0)
    expect((JSON.parse(before.stdout) as { history: unknown[] }).history).toEqual([])
    const ran = await nerve(['node', 'execute', 'sh', 'echo mine'], env, undefined, project)
    expect(ran.code, ran.stderr).toBe(0)
    const after = await nerve(['node', 'history', 'sh', '--json'], env, undefined, project)
    const records = (JSON.parse(after.stdout) as { history: { input?: string }[] }).history
    expect(records.map((r) => r.input)).toEqual(['echo mine'])
    expect(files(project)).toEqual(['g.json'])
  })
  it("a new REPL's node sees only this REPL's records, not the last REPL's", async () => {
    const session = ':create sh bash\n@sh echo from-repl\n:history @sh\n:quit\n'
    const first = await nerve(['repl'], env, session, project)
    expect(first.code, first.stderr).toBe(0)
    const second = await nerve(['repl'], env, session, project)
    expect(second.code, second.stderr).toBe(0)
    // one run record of `echo from-repl` each time: the second REPL does not read the first's
    expect(second.stdout.match(/ +\d+ +[\d:.]+ +run +echo from-repl/g)).toHaveLength(1)
    expect(files(project)).toEqual(['g.json'])
  })
})

describe('one home for everything', () => {
  it('keeps socket, status, token, pid, log, store and histories in NERVE_HOME, and --url finds the token there', async () => {
    const h = join(dir, 'home2')
    const e = { NERVE_HOME: h, HOME: join(dir, 'user2'), XDG_RUNTIME_DIR: '' }
    const started = await nerve(
      ['server', 'start', '--detach', '--http', '127.0.0.1:0', '--json'],
      e,
      undefined,
      project,
    )
    expect(started.code, started.stdout + started.stderr).toBe(0)
    const { http } = JSON.parse(started.stdout) as { http: { url: string } }
    try {
      expect((await nerve(['node', 'create', 'sh', '--kind', 'bash'], e)).code).toBe(0)
      expect((await nerve(['node', 'execute', 'sh', 'echo hi'], e)).code).toBe(0)
      const kept = files(h)
      for (const f of [
        'nerve.sock',
        'nerve.json',
        'nerve.token',
        'nerve.pid',
        'nerve.log',
        'nerve.db',
      ]) {
        expect(existsSync(join(h, f)), f).toBe(true)
      }
      expect(kept.some((f) => f.startsWith('history/') && f.endsWith('/sh.jsonl'))).toBe(true)
      expect(existsSync(join(dir, 'user2'))).toBe(false)
      // no --token, no NERVE_TOKEN: the token beside the daemon this URL reaches
      const listed = await nerve(['--url', http.url, 'node', 'list', '--json'], e)
      expect(listed.code, listed.stdout + listed.stderr).toBe(0)
      expect(
        (JSON.parse(listed.stdout) as { nodes: { id: string }[] }).nodes.map((n) => n.id),
      ).toEqual(['sh'])
    } finally {
      expect((await nerve(['server', 'stop'], e)).code).toBe(0)
    }
    const gone = await nerve(['--url', http.url, 'node', 'list'], e)
    expect(gone.code).toBe(6)
    expect(gone.stderr).toMatch(
      /^error: DaemonNotRunning at http:\/\/127\.0\.0\.1:\d+\/?: no daemon is listening/,
    )
  })

  it('gives a daemon named only by NERVE_SOCKET a store and histories of its own, beside its socket', async () => {
    const d = join(dir, 'sockets')
    mkdirSync(d)
    const user = join(dir, 'user3')
    const base = { HOME: user, XDG_RUNTIME_DIR: '', NERVE_HOME: '' }
    const a = { ...base, NERVE_SOCKET: join(d, 'a.sock') }
    const b = { ...base, NERVE_SOCKET: join(d, 'b.sock') }
    for (const e of [a, b]) {
      const r = await nerve(['server', 'start', '--detach'], e)
      expect(r.code, r.stderr).toBe(0)
    }
    try {
      expect((await nerve(['node', 'create', 'sh', '--kind', 'bash'], a)).code).toBe(0)
      expect((await nerve(['node', 'execute', 'sh', 'echo from-a'], a)).code).toBe(0)
      const fromB = await nerve(['node', 'list', '--json'], b)
      expect((JSON.parse(fromB.stdout) as { nodes: unknown[] }).nodes).toEqual([])
      expect(files(d).filter((f) => f.endsWith('.db'))).toEqual(['a.db', 'b.db'])
      expect(files(d).some((f) => f.startsWith('a.history/') && f.endsWith('/sh.jsonl'))).toBe(true)
      expect(existsSync(join(user, '.nerve', 'nerve.db'))).toBe(false)
    } finally {
      for (const e of [a, b]) await nerve(['server', 'stop'], e)
    }
  })
})
