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
})
