/**
 * `graph run --record` and `nerve replay` through the built executable: the
 * replay answers from the recording (the steps' commands do not run again),
 * a changed graph stops at the step that changed, and `--from` runs the
 * rest live.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { nerve, testDir } from './run.js'

const dir = testDir('replay')
const file = (name: string, value: unknown): string => {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(value))
  return path
}
const graphOf = (second: string) => ({
  id: 'clocks',
  nodes: { sh: { kind: 'bash' } },
  steps: [
    { id: 'first', node: 'sh', input: 'date +%s%N' },
    { id: 'second', node: 'sh', input: second, dependsOn: ['first'] },
  ],
})

interface Replayed {
  readonly state: string
  readonly results: Record<string, { stdout: string }>
}

describe('nerve replay', () => {
  const graph = file('clocks.json', graphOf('date +%s%N; echo $$'))
  const rec = join(dir, 'clocks.rec.json')
  let recorded: Replayed

  beforeAll(async () => {
    const r = await nerve(['graph', 'run', graph, '--record', rec, '--json'])
    expect(r.code).toBe(0)
    recorded = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Replayed
  }, 60_000)

  it('answers every step from the recording: the same results, nothing run again', async () => {
    const r = await nerve(['replay', rec, '--json'])
    expect(r.code).toBe(0)
    const again = JSON.parse(r.stdout) as Replayed
    expect(again.state).toBe('completed')
    expect(again.results).toEqual(recorded.results)
  })

  it('stops at the first step that differs from the recording, naming it', async () => {
    const changed = file('changed.json', graphOf('echo something else'))
    const r = await nerve(['replay', rec, '--graph', changed])
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toMatch(
      /^error: ReplayDivergence at second: replay diverged at step second \(attempt 1\): input differs/,
    )
  })

  it('replays up to --from and runs the rest live', async () => {
    const r = await nerve(['replay', rec, '--from', 'second', '--json'])
    expect(r.code).toBe(0)
    const again = JSON.parse(r.stdout) as Replayed
    expect(again.results.first).toEqual(recorded.results.first)
    expect(again.results.second!.stdout).not.toBe(recorded.results.second!.stdout)
  })

  it('refuses a file that is not a recording', async () => {
    const r = await nerve(['replay', graph])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^error: RecordingInvalid: /)
  })
})

describe('recordings in the store', () => {
  const graph = file('store-clocks.json', graphOf('date +%s%N'))
  const store = join(dir, 'nerve.db')
  const env = { NERVE_STORE: store, HOME: dir, XDG_RUNTIME_DIR: dir }

  it('keeps a run recorded with --record alone in the store, to replay by its id', async () => {
    const r = await nerve(['graph', 'run', graph, '--record'], env)
    expect(r.code, r.stderr).toBe(0)
    const id = new RegExp(`Recorded as (\\S+) in ${store}`).exec(r.stderr)?.[1]
    expect(id).toBeDefined()
    const again = await nerve(['replay', id!, '--json'], env)
    expect(again.code, again.stderr).toBe(0)
    expect((JSON.parse(again.stdout) as Replayed).state).toBe('completed')
    const named = await nerve(['replay', id!, '--store', store, '--json'])
    expect(named.stdout).toBe(again.stdout)
  })

  it("keeps the daemon's recordings in its store", async () => {
    const started = await nerve(['server', 'start', '--detach', '--store', store], env)
    expect(started.code, started.stderr).toBe(0)
    try {
      const r = await nerve(['graph', 'run', graph, '--server', '--record', '--json'], env)
      expect(r.code, r.stderr).toBe(0)
      const info = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { recordingId: string }
      expect(info.recordingId).toMatch(/^[0-9a-f-]{36}$/)
      const again = await nerve(['replay', info.recordingId, '--json'], env)
      expect(again.code, again.stderr).toBe(0)
    } finally {
      await nerve(['server', 'stop'], env)
    }
  })

  it('names what it looked for when there is neither a file nor a recording by that name', async () => {
    const r = await nerve(['replay', 'no-such-run'], env)
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/^error: UnknownRecording: no file no-such-run, and no recording/)
  })
})
