import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { standaloneClient } from '../../../src/server/index.js'
import { sqliteStore } from '../../../src/store/index.js'
import { connectedPeers, until, type Peer } from '../kit.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-store-cmds-'))
let stores = 0
const withStore = connectedPeers({ store: sqliteStore(join(dir, `nerve-${++stores}.db`)) })
const withoutStore = connectedPeers()
const withOwnStore = connectedPeers({ store: sqliteStore(join(dir, 'load.db')) })

interface Run {
  state: string
  results?: Record<string, { stdout: string }>
  recordingId?: string
  replayOf?: string
  error?: { tag: string; message: string }
}

const settled = async (p: Peer, runId: string): Promise<Run> => {
  let run: Run = { state: 'running' }
  await until(() => {
    void p.ok<Run>('GET_RUN', { runId }).then((r) => (run = r))
    return run.state !== 'running'
  }, 10_000)
  return run
}

const errorOf = async (p: Peer, method: string, params: unknown) => {
  const r = await p.call(method, params)
  expect(r.error).toBeDefined()
  return { code: r.error!.code, ...r.error!.data } as { code: number; tag: string; path?: string }
}

/** Two steps; the second appends a line to `file` and counts its lines, so a live run of it is seen. */
const counting = (file: string) => ({
  id: 'counting',
  nodes: { sh: { kind: 'bash' } },
  steps: [
    { id: 'first', node: 'sh', input: 'echo $RANDOM$RANDOM' },
    { id: 'second', node: 'sh', input: `echo x >> ${file}; wc -l < ${file}`, dependsOn: ['first'] },
  ],
})

describe('REPLAY_GRAPH', () => {
  it('runs a recording again as a new run, every step answered from it, or live from a step on', async () => {
    const p = await withStore()
    const file = join(dir, 'lines')
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
      graph: counting(file),
      record: true,
    })
    const recorded = await settled(p, runId)
    expect(recorded.state).toBe('completed')
    const recordingId = recorded.recordingId!
    expect(recordingId).toBeDefined()
    const { recordings } = await p.ok<{ recordings: { recordingId: string; hasGraph: boolean }[] }>(
      'LIST_RECORDINGS',
      {},
    )
    expect(recordings).toContainEqual(
      expect.objectContaining({ recordingId, graphId: 'counting', hasGraph: true, calls: 2 }),
    )

    const whole = await p.ok<{ runId: string }>('REPLAY_GRAPH', { recordingId })
    expect(whole.runId).not.toBe(runId)
    const again = await settled(p, whole.runId)
    expect(again).toMatchObject({ state: 'completed', replayOf: recordingId })
    expect(again.results!.first!.stdout).toBe(recorded.results!.first!.stdout)
    expect(again.results!.second!.stdout.trim()).toBe('1')
    expect(readFileSync(file, 'utf8')).toBe('x\n') // nothing ran

    const live = await p.ok<{ runId: string }>('REPLAY_GRAPH', { recordingId, from: 'second' })
    const fromSecond = await settled(p, live.runId)
    expect(fromSecond.state).toBe('completed')
    expect(fromSecond.results!.first!.stdout).toBe(recorded.results!.first!.stdout)
    expect(fromSecond.results!.second!.stdout.trim()).toBe('2')
  })

  it('names what is wrong: an unknown recording, a step that never ran', async () => {
    const p = await withStore()
    expect(await errorOf(p, 'REPLAY_GRAPH', { recordingId: 'nope' })).toMatchObject({
      tag: 'UnknownRecording',
      path: '/recordingId',
    })
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
      graph: counting(join(dir, 'other')),
      record: true,
    })
    const { recordingId } = await settled(p, runId)
    expect(await errorOf(p, 'REPLAY_GRAPH', { recordingId, from: 'third' })).toMatchObject({
      tag: 'InvalidOptions',
      path: '/from',
    })
  })

  it('replays a recorded run the engine keeps when it has no store', async () => {
    const p = await withoutStore()
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
      graph: counting(join(dir, 'memory')),
      record: true,
    })
    const recorded = await settled(p, runId)
    expect(recorded.recordingId).toBeUndefined()
    const replayed = await settled(
      p,
      (await p.ok<{ runId: string }>('REPLAY_GRAPH', { recordingId: runId })).runId,
    )
    expect(replayed).toMatchObject({ state: 'completed', replayOf: runId })
  })
})

describe('the saved sessions', () => {
  it("lists the sessions the store saved, and a saved session's nodes with an LLM node's conversation", async () => {
    const p = await withStore()
    await p.ok('CREATE_NODE', { nodeId: 'chat', kind: 'llm', options: { provider: 'echo' } })
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    await p.ok('EXECUTE_INPUT', { nodeId: 'chat', input: 'hello' })
    await p.ok('SAVE_SESSION', {})
    const { sessions } = await p.ok<{ sessions: { sessionId: string; nodes: number }[] }>(
      'LIST_SAVED_SESSIONS',
      {},
    )
    expect(sessions).toContainEqual(expect.objectContaining({ sessionId: 'default', nodes: 2 }))
    const saved = await p.ok<{
      session: { sessionId: string }
      nodes: { name: string; kind: string; messageCount?: number; conversation?: unknown }[]
    }>('GET_SAVED_SESSION', { sessionId: 'default' })
    expect(saved.session.sessionId).toBe('default')
    const chat = saved.nodes.find((n) => n.name === 'chat')!
    expect(chat).toMatchObject({ kind: 'llm', messageCount: 2 })
    expect(JSON.stringify(chat.conversation)).toContain('echo: hello')
    expect(saved.nodes.find((n) => n.name === 'sh')).not.toHaveProperty('conversation')
    expect(await errorOf(p, 'GET_SAVED_SESSION', { sessionId: 'gone' })).toMatchObject({
      tag: 'UnknownSession',
    })
  })

  it("brings a saved session's nodes back live, an LLM node with its conversation, and says what it skipped", async () => {
    const p = await withOwnStore()
    await p.ok('CREATE_NODE', { nodeId: 'talk', kind: 'llm', options: { provider: 'echo' } })
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    await p.ok('EXECUTE_INPUT', { nodeId: 'talk', input: 'remember me' })
    await p.ok('SAVE_SESSION', {})
    // Into another open session: every node, none taken there.
    await p.ok('CREATE_SESSION', { sessionId: 'second' })
    await p.ok('SUBSCRIBE', { types: ['NODE_CREATED'] })
    expect(
      await p.ok('LOAD_SAVED_SESSION', { sessionId: 'default', into: 'second' }),
    ).toMatchObject({ sessionId: 'second', restored: ['talk', 'sh'], skipped: [] })
    await p.waitFor((e) => e.type === 'NODE_CREATED' && e.nodeId === 'talk')
    const { conversation } = await p.ok<{ conversation: unknown }>('GET_CONVERSATION', {
      nodeId: 'talk',
      sessionId: 'second',
    })
    expect(JSON.stringify(conversation)).toContain('echo: remember me')
    // The store follows the session: a node deleted is gone from it too.
    await p.ok('DELETE_NODE', { nodeId: 'talk' })
    expect(await p.ok('LOAD_SAVED_SESSION', { sessionId: 'default' })).toEqual({
      sessionId: 'default',
      restored: [],
      skipped: [{ name: 'sh', reason: 'the name is taken' }],
    })
    expect(await errorOf(p, 'LOAD_SAVED_SESSION', { sessionId: 'gone' })).toMatchObject({
      tag: 'UnknownSession',
      path: '/sessionId',
    })
    expect(
      await errorOf(p, 'LOAD_SAVED_SESSION', { sessionId: 'default', into: 'nowhere' }),
    ).toMatchObject({ tag: 'UnknownSession', path: '/into' })
  })

  it('says the engine has no store when it has none', async () => {
    const p = await withoutStore()
    for (const m of ['LIST_SAVED_SESSIONS', 'LIST_RECORDINGS'])
      expect((await errorOf(p, m, {})).tag).toBe('NoStore')
    expect((await errorOf(p, 'LOAD_SAVED_SESSION', { sessionId: 'default' })).tag).toBe('NoStore')
  })
})

describe('the SDK', () => {
  it('lists recordings and saved sessions, and replays a recording from a step', async () => {
    const client = await standaloneClient({
      history: false,
      store: sqliteStore(join(dir, 'sdk.db')),
    })
    try {
      const file = join(dir, 'sdk-lines')
      const { runId } = await client.call('EXECUTE_GRAPH', { graph: counting(file), record: true })
      let recordingId: string | undefined
      await until(() => {
        void client.call('GET_RUN', { runId }).then((r) => (recordingId = r.recordingId))
        return recordingId !== undefined
      })
      expect((await client.recordings()).map((r) => r.recordingId)).toContain(recordingId)
      const again = await client.replay(recordingId!, { from: ['second'] })
      let results: Record<string, unknown> | undefined
      await until(() => {
        void client.call('GET_RUN', { runId: again }).then((r) => (results = r.results))
        return results !== undefined
      })
      expect(JSON.stringify(results)).toContain('2')
      await client.call('SAVE_SESSION', {})
      expect((await client.savedSessions()).map((s) => s.sessionId)).toContain('default')
      expect((await client.savedSession('default')).session.sessionId).toBe('default')
      await client.call('CREATE_SESSION', { sessionId: 'copy' })
      expect(await client.loadSavedSession('default', 'copy')).toMatchObject({
        sessionId: 'copy',
        skipped: [],
      })
    } finally {
      await client.close()
    }
  })
})
