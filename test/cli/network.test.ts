/**
 * `nerve network run|show` through the built executable, on the example
 * network (mock providers, no key) and on files made here.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nerve, testDir } from './run.js'

const EXAMPLE = 'examples/review.network.json'
const dir = testDir('network')
const file = (name: string, value: unknown): string => {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(value))
  return path
}

describe('nerve network run', () => {
  it('runs the example until the writer is done, printing each delivery, and writes the envelope DAG', async () => {
    const html = join(dir, 'envelopes.html')
    const r = await nerve([
      'network',
      'run',
      EXAMPLE,
      '--send',
      'writer=Write a haiku',
      '--root',
      dir,
      '--html',
      html,
    ])
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toBe('message user → writer: Write a haiku')
    expect(lines).toContain('handoff reviewer → writer: Tighten the last line.')
    expect(lines.at(-1)).toBe('done    writer (Done signal)')
    expect(r.stderr).toMatch(/network review done: \d+ envelopes/)
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/i)
  })

  it('prints NDJSON events and a summary with --json', async () => {
    const r = await nerve([
      'network',
      'run',
      EXAMPLE,
      '--send',
      'writer=Go',
      '--root',
      dir,
      '--json',
    ])
    expect(r.code).toBe(0)
    const values = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(
      values.slice(0, -1).every((v) => typeof v.type === 'string' && v.networkId === 'review'),
    ).toBe(true)
    expect(values.at(-1)).toMatchObject({ networkId: 'review', status: 'done', done: ['writer'] })
  })

  it('halts a loop that repeats itself, exit 1', async () => {
    const stuck = file('stuck.json', {
      id: 'stuck',
      nodes: [
        { id: 'a', provider: { type: 'mock', script: ['same'] } },
        { id: 'b', provider: { type: 'mock', script: ['again'] } },
      ],
      edges: [{ from: 'a', to: 'b' }],
    })
    const r = await nerve(['network', 'run', stuck, '--send', 'a=start', '--root', dir])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/^halted {2}.*StallError/m)
    expect(r.stderr).toMatch(/network stuck halted/)
  })

  it('refuses a bad network file with its JSON path, and --send to a node it lacks', async () => {
    const bad = file('bad.json', {
      id: 'bad',
      nodes: [{ id: 'a' }],
      edges: [{ from: 'a', to: 'ghost' }],
    })
    const r = await nerve(['network', 'run', bad])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^error: NetworkFileInvalid at \/edges\/0\/to/)
    const ghost = await nerve(['network', 'run', EXAMPLE, '--send', 'ghost=hi'])
    expect(ghost.code).toBe(2)
    expect(ghost.stderr).toMatch(/^error: UnknownNode at --send/)
  })
})

describe('nerve network against a real daemon', () => {
  const env = { NERVE_SOCKET: join(dir, 'nerve.sock'), XDG_RUNTIME_DIR: dir, HOME: dir }
  const planning = file('plan.json', {
    id: 'plan',
    workflow: 'planning',
    nodes: [
      {
        id: 'planner',
        tools: ['bash'],
        provider: {
          type: 'mock',
          script: [{ tools: [{ name: 'bash', input: { command: 'echo hi > note.txt' } }] }, 'ok'],
        },
      },
    ],
    edges: [],
  })

  beforeAll(async () => {
    const r = await nerve(['server', 'start', '--detach', '--no-store'], env)
    expect(r.code, r.stderr).toBe(0)
  }, 30_000)
  afterAll(async () => {
    await nerve(['server', 'stop'], env)
  })

  it('runs the example on the daemon with --server, the same lines as in this process', async () => {
    const r = await nerve(
      ['network', 'run', EXAMPLE, '--server', '--send', 'writer=Write a haiku', '--root', dir],
      env,
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim().split('\n')[0]).toBe('message user → writer: Write a haiku')
    const listed = await nerve(['network', 'list', '--json'], env)
    const { networks } = JSON.parse(listed.stdout) as {
      networks: { networkId: string; outcome: string }[]
    }
    expect(networks).toContainEqual(
      expect.objectContaining({ networkId: 'review', outcome: 'done' }),
    )
  })

  it('leaves a network running with --detach; status, approve and stop work on it by id', async () => {
    const work = mkdtempSync(join(dir, 'work-'))
    const started = await nerve(
      [
        'network',
        'run',
        planning,
        '--server',
        '--detach',
        '--send',
        'planner=look',
        '--root',
        work,
      ],
      env,
    )
    expect(started.code, started.stderr).toBe(0)
    expect(started.stdout).toBe('Started plan on the daemon\n')
    let waiting: { id: string }[] = []
    for (let i = 0; i < 200 && waiting.length === 0; i++) {
      const s = await nerve(['network', 'status', 'plan', '--json'], env)
      waiting = (JSON.parse(s.stdout) as { pending: { id: string }[] }).pending
    }
    expect(waiting).toHaveLength(1)
    const status = await nerve(['network', 'status', 'plan'], env)
    expect(status.stdout).toMatch(/approve\? approval-1: planner wants bash echo hi > note.txt/)
    expect(status.stdout).toMatch(
      /\n {2}inbox user → planner \(user, queue\): 0 waiting, 1 taken\n/,
    )
    const denied = await nerve(['network', 'deny', 'plan', 'approval-9'], env)
    expect(denied.code).toBe(3)
    expect(denied.stderr).toMatch(/^error: UnknownApproval at \/requestId/)
    const approved = await nerve(
      ['network', 'approve', 'plan', 'approval-1', '--note', 'fine'],
      env,
    )
    expect(approved.stdout).toBe('Approved approval-1\n')
    const stopped = await nerve(['network', 'stop', 'plan'], env)
    expect(stopped.code, stopped.stderr).toBe(0)
    expect(stopped.stdout).toMatch(/^plan\s+idle/)
    expect(readFileSync(join(work, 'note.txt'), 'utf8')).toBe('hi\n')
    const gone = await nerve(['network', 'send', 'ghost', 'a', 'hi'], env)
    expect(gone.stderr).toMatch(/^error: UnknownNetwork at \/networkId/)
  })
})

describe('nerve network show', () => {
  it('lists nodes and edges, or draws them in Mermaid', async () => {
    const text = await nerve(['network', 'show', EXAMPLE])
    expect(text.stdout).toMatch(/^review \(implementation mode\)$/m)
    expect(text.stdout).toMatch(/^ {2}writer\s+Coder\s+auto\s+any\s+mock$/m)
    expect(text.stdout).toMatch(/^ {2}writer ↔ reviewer \(queue\)$/m)
    const mermaid = await nerve(['network', 'show', EXAMPLE, '--mermaid'])
    expect(mermaid.stdout.split('\n')).toContain('  writer <--> reviewer')
  })
})
