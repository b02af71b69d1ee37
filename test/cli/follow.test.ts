/**
 * Following what runs on the daemon and reading what it kept, through the
 * built `nerve`: `graph runs` / `graph watch RUN`, `network watch ID`, and
 * `store ls|show|export|import|gc`.
 */
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bin, nerve, root, testDaemon } from './run.js'

const { dir, home, env } = testDaemon('follow')
const slow = join(dir, 'slow.json')
/** The first step of `slow` waits for this file: the test opens the gate once it watches. */
const gate = join(dir, 'gate')

/** `nerve …` started now; `output()` is what it printed so far, `done` its exit code. */
const background = (args: readonly string[]) => {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const done = new Promise<number | null>((resolve) => child.on('close', resolve))
  const until = async (re: RegExp): Promise<void> => {
    for (let i = 0; i < 400 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 25))
    expect(out).toMatch(re)
  }
  return { output: () => out, done, until }
}

beforeAll(() => {
  writeFileSync(
    slow,
    JSON.stringify({
      id: 'slow',
      nodes: { sh: { kind: 'bash' } },
      steps: [
        { id: 'first', node: 'sh', input: `while [ ! -e ${gate} ]; do sleep 0.05; done; echo one` },
        { id: 'second', node: 'sh', input: 'echo two', dependsOn: ['first'] },
      ],
    }),
  )
})

describe('graph runs and graph watch', () => {
  it('lists a run on the daemon and follows it live to its end', async () => {
    const running = background(['graph', 'run', slow, '--server', '--json'])
    let runId = ''
    for (let i = 0; i < 200 && runId === ''; i++) {
      const listed = await nerve(['graph', 'runs', '--json'], env)
      const runs = (
        JSON.parse(listed.stdout) as { runs: { runId: string; graphId: string; state: string }[] }
      ).runs
      runId = runs.find((r) => r.graphId === 'slow' && r.state === 'running')?.runId ?? ''
    }
    expect(runId).not.toBe('')
    const text = await nerve(['graph', 'runs'], env)
    expect(text.stdout).toMatch(new RegExp(`^${runId} {2}slow\\s+running\\s`, 'm'))
    const watching = background(['graph', 'watch', runId])
    await watching.until(new RegExp(`^following run ${runId} \\(slow\\)$`, 'm'))
    writeFileSync(gate, '')
    expect(await watching.done).toBe(0)
    expect(watching.output()).toMatch(/^ {2}second │ two$/m)
    expect(watching.output()).toMatch(/^✔ second done \(\d+ ms\)$/m)
    expect(watching.output()).toMatch(new RegExp(`^run ${runId} completed$`, 'm'))
    expect(await running.done).toBe(0)
    // a run that has ended: its record at once
    const again = await nerve(['graph', 'watch', runId, '--json'], env)
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({ runId, state: 'completed' })
  })

  it('shows where a run stands when it comes in late: the steps done and running, then what follows', async () => {
    const opened = join(dir, 'opened')
    const midway = join(dir, 'midway.json')
    writeFileSync(
      midway,
      JSON.stringify({
        id: 'midway',
        nodes: { sh: { kind: 'bash' } },
        steps: [
          { id: 'early', node: 'sh', input: 'echo early' },
          {
            id: 'waits',
            node: 'sh',
            input: `while [ ! -e ${opened} ]; do sleep 0.05; done; echo late`,
            dependsOn: ['early'],
          },
        ],
      }),
    )
    const running = background(['graph', 'run', midway, '--server', '--json'])
    await running.until(/"type":"STEP_STARTED"[^\n]*"stepId":"waits"/)
    const runId = (JSON.parse(running.output().split('\n')[0]!) as { runId: string }).runId
    const watching = background(['graph', 'watch', runId])
    // before anything else happens: the step that ended, and the one that runs
    await watching.until(/^✔ early done \(\d+ ms\)\n▸ waits$/m)
    writeFileSync(opened, '')
    expect(await watching.done).toBe(0)
    expect(watching.output()).toMatch(/^ {2}waits │ late$/m)
    expect(watching.output().match(/▸ waits/g)).toHaveLength(1) // not twice
    expect(await running.done).toBe(0)
  })

  it('names a run the daemon does not know', async () => {
    const r = await nerve(['graph', 'watch', 'no-such-run'], env)
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/^error: UnknownRun/)
  })
})

describe('network watch', () => {
  it('prints where an idle network stands before it follows', async () => {
    const example = JSON.parse(
      readFileSync(join(root, 'examples/review.network.json'), 'utf8'),
    ) as Record<string, unknown>
    const file = join(dir, 'idle.network.json')
    writeFileSync(file, JSON.stringify({ ...example, id: 'idle' }))
    const started = await nerve(
      ['network', 'run', file, '--server', '--detach', '--root', dir],
      env,
    )
    expect(started.code, started.stderr).toBe(0)
    expect((await nerve(['network', 'send', 'idle', 'writer', 'Write a haiku'], env)).code).toBe(0)
    for (let i = 0; i < 200; i++) {
      if ((await nerve(['network', 'status', 'idle'], env)).stdout.includes('done: writer')) break
    }
    const watching = background(['network', 'watch', 'idle'])
    await watching.until(/^idle\s+running\s+\d+ envelopes, done: writer$/m)
    expect(watching.output()).toMatch(/^ {2}writer\s+Coder/m)
    expect((await nerve(['network', 'stop', 'idle'], env)).code).toBe(0)
    expect(await watching.done).toBe(0)
  })

  it('follows a detached network: its deliveries as they happen, until it is stopped', async () => {
    const example = join(root, 'examples/review.network.json')
    const started = await nerve(
      ['network', 'run', example, '--server', '--detach', '--root', dir],
      env,
    )
    expect(started.code, started.stderr).toBe(0)
    const watching = background(['network', 'watch', 'review'])
    await new Promise((r) => setTimeout(r, 500)) // subscribed
    expect((await nerve(['network', 'send', 'review', 'writer', 'Write a haiku'], env)).code).toBe(
      0,
    )
    await watching.until(/message user → writer: Write a haiku/)
    await watching.until(/writer → reviewer/)
    expect((await nerve(['network', 'stop', 'review'], env)).code).toBe(0)
    expect(await watching.done).toBe(0)
    expect(watching.output()).toMatch(/network review \w+: \d+ envelopes/)
  })
})

describe('nerve store', () => {
  it('lists, shows, exports, imports and collects what the daemon and recorded runs kept', async () => {
    expect((await nerve(['node', 'create', 'keep', '--kind', 'bash'], env)).code).toBe(0)
    const recorded = await nerve(['graph', 'run', slow, '--record', '--json'], env)
    expect(recorded.code, recorded.stdout).toBe(0)
    // gc while the daemon that uses the store runs: refused
    const busy = await nerve(['store', 'gc'], env)
    expect(busy.code).toBe(4)
    expect(busy.stderr).toMatch(/^error: DaemonRunning/)
    expect((await nerve(['server', 'stop'], env)).code).toBe(0) // saves the session

    const ls = await nerve(['store', 'ls', '--json'], env)
    expect(ls.code, ls.stdout + ls.stderr).toBe(0)
    const listed = JSON.parse(ls.stdout) as {
      path: string
      bytes: number
      sessions: { id: string; nodes: string[] }[]
      recordings: { id: string; graphId: string; bytes: number }[]
    }
    expect(listed.path).toBe(join(home, 'nerve.db'))
    expect(listed.bytes).toBeGreaterThan(0)
    expect(listed.sessions).toContainEqual(
      expect.objectContaining({ id: 'default', nodes: ['keep'] }),
    )
    expect(listed.recordings).toHaveLength(1)
    expect(listed.recordings[0]).toMatchObject({ graphId: 'slow' })
    expect((await nerve(['store', 'ls'], env)).stdout).toMatch(/^recordings \(1\)$/m)

    const session = await nerve(['store', 'show', 'default'], env)
    expect(session.stdout).toMatch(/^ {2}keep\s+bash\s+\w+$/m)
    const recording = await nerve(['store', 'show', listed.recordings[0]!.id], env)
    expect(recording.stdout).toMatch(/replay it: nerve replay /)
    const missing = await nerve(['store', 'show', 'nothing'], env)
    expect(missing.stderr).toMatch(/^error: NotInStore at nothing/)

    const out = join(dir, 'export')
    const exported = await nerve(['store', 'export', out], env)
    expect(exported.code, exported.stderr).toBe(0)
    expect(exported.stdout).toMatch(/^Exported 1 sessions, 1 nodes/)
    const other = join(dir, 'other.db')
    const imported = await nerve(['store', 'import', out, '--store', other], env)
    expect(imported.code, imported.stderr).toBe(0)
    const again = JSON.parse(
      (await nerve(['store', 'ls', '--store', other, '--json'], env)).stdout,
    ) as {
      sessions: { id: string; nodes: string[] }[]
    }
    expect(again.sessions).toContainEqual(
      expect.objectContaining({ id: 'default', nodes: ['keep'] }),
    )

    const gc = await nerve(['store', 'gc', '--keep-recordings', '0', '--json'], env)
    expect(gc.code, gc.stdout + gc.stderr).toBe(0)
    expect(JSON.parse(gc.stdout)).toMatchObject({ recordings: 1 })
    const after = JSON.parse((await nerve(['store', 'ls', '--json'], env)).stdout) as {
      recordings: unknown[]
    }
    expect(after.recordings).toEqual([])
  }, 60_000)
})
