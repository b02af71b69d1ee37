/**
 * What a daemon keeps survives `kill -9`: nodes created, forked and
 * deleted, an LLM node's conversation after each turn, and the graph runs
 * that ended — each written to the store as it happens, not at a clean stop.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { openStore } from '../../src/store/index.js'
import { nerve, testDir } from './run.js'

const dir = testDir('crashsafe')
const home = join(dir, 'home')
const env = { NERVE_HOME: home, HOME: join(dir, 'user'), XDG_RUNTIME_DIR: '' }
const socket = join(home, 'nerve.sock')

const start = async (): Promise<NerveClient> => {
  const r = await nerve(['server', 'start', '--detach'], env)
  expect(r.code, r.stderr).toBe(0)
  return NerveClient.connect(socket)
}

/** Kills the daemon the way a crash does: no shutdown, no save. */
const crash = async (c: NerveClient): Promise<void> => {
  const pid = Number(readFileSync(join(home, 'nerve.pid'), 'utf8'))
  process.kill(pid, 'SIGKILL')
  await c.closed
}

const graph = {
  id: 'two',
  nodes: { sh: { kind: 'bash' } },
  steps: [{ id: 'a', node: 'sh', input: 'echo one' }],
}

describe('a daemon killed with SIGKILL', () => {
  it('comes back with what changed since its last clean stop, and its ended runs', async () => {
    let c = await start()
    await c.createNode('old', 'bash')
    const keep = await c.createNode('keep', 'bash')
    await keep.execute('echo kept')
    await c.close()
    expect((await nerve(['server', 'stop'], env)).code).toBe(0)

    c = await start()
    const chat = await c.createNode('crashme', 'llm', { options: { provider: 'echo' } })
    expect(await chat.execute('remember me')).toBe('echo: remember me')
    await c.forkNode('crashme', 'twin')
    await c.deleteNode('old')
    const run = await c.runGraph(graph)
    const ended = await run.result()
    expect(ended.state).toBe('completed')
    await c.ping()
    // While it runs, the store already holds all of it.
    const store = openStore({ path: join(home, 'nerve.db') })
    try {
      expect(store.nodes('default').map((n) => n.name)).toEqual(['keep', 'crashme', 'twin'])
      expect(store.trace(run.runId)?.status).toBe('completed')
    } finally {
      await store.close()
    }
    await crash(c)

    c = await start()
    try {
      expect((await c.listNodes()).map((n) => n.id).sort()).toEqual(['crashme', 'keep', 'twin'])
      expect((await c.node('crashme').conversation()).messageCount).toBe(2)
      expect((await c.node('twin').conversation()).messageCount).toBe(2)
      const runs = await c.listRuns()
      expect(runs).toEqual([
        expect.objectContaining({
          runId: run.runId,
          graphId: 'two',
          state: 'completed',
          stored: true,
        }),
      ])
      const info = await c.call('GET_RUN', { runId: run.runId })
      expect(info).toMatchObject({ state: 'completed', stored: true })
      expect(info.trace?.steps.map((s) => [s.stepId, s.status, s.output])).toEqual([
        ['a', 'completed', expect.objectContaining({ stdout: 'one\n' })],
      ])
      // A second turn after the crash goes on from the restored conversation, and is kept too.
      expect(await c.node('crashme').execute('again')).toBe('echo: again')
      await c.ping()
      await crash(c)
      c = await start()
      expect((await c.node('crashme').conversation()).messageCount).toBe(4)
      const listed = await nerve(['graph', 'runs'], env)
      expect(listed.stdout).toContain(`${run.runId}  two`)
      expect(listed.stdout).toContain('stored')
      const watched = await nerve(['graph', 'watch', run.runId], env)
      expect(watched.code, watched.stderr).toBe(0)
      const shown = await nerve(['store', 'show', run.runId, '--json'], env)
      expect(shown.code, shown.stderr).toBe(0)
      // A restored node goes on with its history, through restarts and crashes alike.
      await c.node('keep').execute('echo again')
      const history = await nerve(['node', 'history', 'keep', '--json'], env)
      const records = (JSON.parse(history.stdout) as { history: { seq: number; input?: string }[] })
        .history
      expect(records.map((r) => [r.seq, r.input])).toEqual([
        [1, 'echo kept'],
        [2, 'echo again'],
      ])
    } finally {
      await c.close()
      await nerve(['server', 'stop'], env)
    }
  }, 120_000)
})

describe('nerve store gc', () => {
  it('removes the history directories of engines no longer running, and only those', async () => {
    const history = join(home, 'history')
    const ended = spawnSync(process.execPath, ['-e', '0']).pid
    const dead = `engine-20260101T000000Z-${ended}-abc123`
    const running = `engine-20260101T000000Z-${process.pid}-def456`
    for (const name of [dead, running])
      mkdirSync(join(history, name, 'default'), { recursive: true })
    const gc = await nerve(['store', 'gc', '--json'], env)
    expect(gc.code, gc.stderr).toBe(0)
    expect(JSON.parse(gc.stdout)).toMatchObject({ histories: [dead] })
    expect(readdirSync(history).sort()).toEqual(['daemon', running])
  }, 60_000)
})
