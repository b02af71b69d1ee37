/**
 * `nerve approvals`, `nerve approve`, `nerve deny` and `nerve node info`
 * through the built executable, against a daemon running the real Claude
 * Code (offline, on the model proxy) in a tmux session of its own.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  anthropicMessages,
  type ModelProxy,
  startModelProxy,
} from '../../src/interpreters/index.js'
import { claudeModel } from '../interpreters/agents/claudeModel.js'
import { nerve, testDir } from './run.js'

const dir = testDir('approvals')
const env = {
  NERVE_SOCKET: join(dir, 'nerve.sock'),
  NERVE_HOME: join(dir, 'home'),
  XDG_RUNTIME_DIR: dir,
  HOME: dir,
}
const project = join(dir, 'project')
let proxy: ModelProxy

/** The requests waiting, as `nerve approvals --json` lists them. */
const waiting = async (): Promise<{ id: string; target: string }[]> => {
  const r = await nerve(['approvals', '--json'], env)
  expect(r.code, r.stderr).toBe(0)
  return (JSON.parse(r.stdout) as { pending: { id: string; target: string }[] }).pending
}

/** Waits until a request about `target` waits; its id. */
const requestFor = async (target: string): Promise<string> => {
  const end = Date.now() + 30_000
  for (;;) {
    const found = (await waiting()).find((r) => r.target === target)
    if (found !== undefined) return found.id
    if (Date.now() > end) throw new Error(`no request for ${target}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

beforeAll(async () => {
  mkdirSync(project)
  proxy = await startModelProxy({
    protocols: [anthropicMessages],
    upstream: { _tag: 'provider', provider: claudeModel() },
  })
  const r = await nerve(['server', 'start', '--detach', '--no-store'], env)
  expect(r.code, r.stderr).toBe(0)
  const options = {
    cwd: project,
    backend: 'tmux',
    env: { ANTHROPIC_BASE_URL: proxy.baseUrl('cl'), ANTHROPIC_API_KEY: proxy.key('cl') },
  }
  const created = await nerve(
    ['node', 'create', 'cl', '--kind', 'claude', '--options', JSON.stringify(options)],
    env,
  )
  expect(created.code, created.stderr).toBe(0)
}, 120_000)

afterAll(async () => {
  await nerve(['server', 'stop'], env)
  await proxy.close()
}, 30_000)

describe('approvals from the command line', { timeout: 90_000 }, () => {
  it('says in node info where a Claude node runs, and how to attach on tmux', async () => {
    const r = await nerve(['node', 'info', 'cl'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(
      /^node {5}cl\nkind {5}claude-wezterm\nstate {4}ready\nruns on {2}tmux\n/,
    )
    expect(r.stdout).toMatch(/^attach {3}tmux -S \S+\/tmux-cl-\w+\.sock attach -t claude$/m)
    const json = await nerve(['node', 'info', 'cl', '--json'], env)
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 'cl', metadata: { backend: 'tmux' } })
  })

  it('prints a permission prompt while a foreground execute waits, and `nerve approve` lets it run', async () => {
    const run = nerve(['node', 'execute', 'cl', 'please WRITE cli.txt'], env)
    const id = await requestFor('echo hi > cli.txt')
    const listed = await nerve(['approvals'], env)
    expect(listed.stdout).toBe(`${id}  cl wants Bash: echo hi > cli.txt (high risk)\n`)
    const approved = await nerve(['approve', id, '--note', 'fine'], env)
    expect(approved.stdout).toBe(`Approved ${id}\n`)
    const r = await run
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`approve? ${id}  cl wants Bash: echo hi > cli.txt (high risk)\n`)
    expect(r.stderr).toContain(`answer: nerve approve ${id} | nerve deny ${id}`)
    expect(r.stdout).toMatch(/^Tool said: /)
    expect(existsSync(join(project, 'cli.txt'))).toBe(true)
  })

  it('`nerve deny` keeps the tool from running, and a request that is not waiting is an error', async () => {
    const run = nerve(['node', 'execute', 'cl', 'please WRITE no.txt'], env)
    const id = await requestFor('echo hi > no.txt')
    expect((await nerve(['deny', id], env)).stdout).toBe(`Denied ${id}\n`)
    expect((await run).code).toBe(0)
    expect(existsSync(join(project, 'no.txt'))).toBe(false)
    expect(await waiting()).toEqual([])
    const again = await nerve(['approve', id], env)
    expect(again.code).not.toBe(0)
    expect(again.stderr).toMatch(/UnknownApproval/)
  })

  it('prints the gate of a graph run on the daemon, which `nerve approve` opens', async () => {
    const file = join(dir, 'release.json')
    writeFileSync(
      file,
      JSON.stringify({
        id: 'release',
        nodes: {
          gate: { kind: 'approval', action: 'ship' },
          ship: { kind: 'bash', command: 'echo shipped' },
        },
        steps: [
          { id: 'gate', node: 'gate', input: 'v1' },
          { id: 'ship', node: 'ship', dependsOn: ['gate'] },
        ],
      }),
    )
    const run = nerve(['graph', 'run', file, '--server'], env)
    const id = await requestFor('v1')
    await nerve(['approve', id], env)
    const r = await run
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(new RegExp(`approve\\? ${id}  [0-9a-f-]+/gate wants ship: v1\\n`))
  })

  it('tells in `node create --help` how the terminal is chosen', async () => {
    const r = await nerve(['node', 'create', '--help'], env)
    expect(r.stdout).toContain('--set backend=pty|tmux|wezterm')
    expect(r.stdout).toContain('nerve node info NAME says where it runs')
  })
})
