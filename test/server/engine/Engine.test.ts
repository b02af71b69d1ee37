import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sessionStore } from '../../../src/session/index.js'
import { createEngine } from '../../../src/server/index.js'
import { peer, ptyOptions, testEngine } from '../kit.js'

const disposals: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(disposals.splice(0).map((d) => d()))
})

const engine = async (...args: Parameters<typeof testEngine>) => {
  const made = await testEngine(...args)
  disposals.push(made.dispose)
  return made
}

describe('an engine connection', () => {
  it('answers PING with pong, by the request id', async () => {
    const { engine: e } = await engine()
    const p = peer(e)
    expect(await p.call('PING')).toMatchObject({ jsonrpc: '2.0', result: { pong: true } })
  })

  it('creates a bash node, executes a command on it, and tells a subscriber what happened', async () => {
    const { engine: e } = await engine()
    const p = peer(e)
    const { subscription } = await p.ok<{ subscription: string }>('SUBSCRIBE', { nodeId: 'sh' })
    expect(await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })).toEqual({
      id: 'sh',
      type: 'bash',
      state: 'ready',
      metadata: {},
    })
    const answer = await p.ok<{ stdout: string; exitCode: number }>('EXECUTE_INPUT', {
      nodeId: 'sh',
      input: 'echo hi',
    })
    expect(answer).toMatchObject({ stdout: 'hi\n', exitCode: 0 })
    const types = p.events(subscription).map((ev) => ev.type)
    expect(types).toEqual([
      'NODE_CREATED',
      'NODE_READY',
      'NODE_BUSY',
      'OUTPUT_CHUNK',
      'NODE_READY',
      'OUTPUT_PARSED',
    ])
  })
})

describe('SAVE_SESSION', () => {
  it('needs a store', async () => {
    const { engine: e } = await engine()
    expect((await peer(e).call('SAVE_SESSION')).error).toMatchObject({
      code: -32003,
      data: { tag: 'NoStore' },
    })
  })

  it("writes the session's record with its nodes to the store", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nerve-store-'))
    const store = sessionStore({ path: join(dir, 'sessions.json') })
    const { engine: e } = await engine({ store })
    const p = peer(e)
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    expect(await p.ok('SAVE_SESSION')).toEqual({ saved: true, sessionId: 'default' })
    const record = await store.get('default')
    expect(record?.nodes).toEqual([{ id: 'sh', type: 'bash', state: 'ready', metadata: {} }])
    await rm(dir, { recursive: true, force: true })
  })
})

describe('shutting down', () => {
  it('answers SHUTDOWN, stops nodes, cancels runs, saves sessions, tells SERVER_SHUTDOWN last and resolves closed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nerve-store-'))
    const store = sessionStore({ path: join(dir, 'sessions.json') })
    const { engine: e } = await engine({ store })
    const p = peer(e)
    const { subscription } = await p.ok<{ subscription: string }>('SUBSCRIBE', {
      types: ['NODE_STOPPED', 'GRAPH_COMPLETED'],
    })
    await p.ok('CREATE_NODE', { nodeId: 'term', kind: 'pty', options: ptyOptions })
    const pid = Number(
      (await p.ok<{ text: string }>('EXECUTE_INPUT', { nodeId: 'term', input: 'echo $$' })).text,
    )
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
      graph: {
        id: 'g',
        nodes: { slow: { kind: 'bash', command: 'sleep 10' } },
        steps: [{ id: 'a', node: 'slow' }],
      },
    })
    await new Promise((r) => setTimeout(r, 100))
    expect(await p.ok('SHUTDOWN')).toEqual({ shuttingDown: true })
    await e.closed
    const types = p.events(subscription).map((ev) => ev.type)
    expect(types.at(-1)).toBe('SERVER_SHUTDOWN')
    expect(types).toContain('NODE_STOPPED')
    expect(types).toContain('GRAPH_COMPLETED')
    expect(() => process.kill(pid, 0)).toThrow()
    expect((await p.ok<{ state: string }>('GET_RUN', { runId })).state).toBe('cancelled')
    expect((await store.get('default'))?.nodes.map((n) => n.id)).toEqual(['term'])
    expect((await p.call('CREATE_NODE', { nodeId: 'late', kind: 'bash' })).error).toMatchObject({
      code: -32010,
      data: { tag: 'ShuttingDown' },
    })
    expect(await p.ok('PING')).toEqual({ pong: true })
    await rm(dir, { recursive: true, force: true })
  })

  it('is idempotent: shutdown() twice is one shutdown', async () => {
    const { engine: e } = await engine()
    const p = peer(e)
    await p.ok('SUBSCRIBE')
    await Promise.all([e.shutdown(), e.shutdown()])
    expect(p.events().filter((ev) => ev.type === 'SERVER_SHUTDOWN')).toHaveLength(1)
  })
})

describe('createEngine', () => {
  it('takes providers by name, with echo built in and default echo when the environment names none', async () => {
    const fixed = {
      name: 'fixed',
      call: () =>
        Promise.resolve({
          content: [{ type: 'text' as const, text: 'always' }],
          stopReason: 'end_turn',
          usage: {
            input_tokens: 0,
            output_tokens: 0,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        }),
    }
    const { engine: e } = await engine({ providers: { fixed } })
    const p = peer(e)
    await p.ok('CREATE_NODE', { nodeId: 'a', kind: 'llm', options: { provider: 'fixed' } })
    await p.ok('CREATE_NODE', { nodeId: 'b', kind: 'llm' })
    expect(await p.ok('EXECUTE_INPUT', { nodeId: 'a', input: 'x' })).toBe('always')
    expect(await p.ok('EXECUTE_INPUT', { nodeId: 'b', input: 'x' })).toBe('echo: x')
  })

  it('refuses limits that are not positive integers', () => {
    expect(() => createEngine({ limits: { eventBuffer: 0 } })).toThrow(
      /eventBuffer must be a positive integer/,
    )
    expect(() => createEngine({ limits: { nope: 1 } as never })).toThrow(/not a limit/)
  })
})

describe('history', () => {
  it('goes to <root>/.nerve/history/<server>/<session>/<node>.jsonl', async () => {
    const { engine: e, root } = await engine()
    const p = peer(e)
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    await p.ok('EXECUTE_INPUT', { nodeId: 'sh', input: 'true' })
    const text = await readFile(join(root, '.nerve/history/test/default/sh.jsonl'), 'utf8')
    expect(JSON.parse(text.trim())).toMatchObject({ seq: 1, op: 'run', node: 'sh', input: 'true' })
  })

  it('that cannot be written is told as an ERROR event; the execute still answers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nerve-file-'))
    const file = join(dir, 'not-a-directory')
    await writeFile(file, '')
    const { engine: e } = await engine({ history: { root: file } })
    const p = peer(e)
    await p.ok('SUBSCRIBE', { types: ['ERROR'] })
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    expect(await p.ok('EXECUTE_INPUT', { nodeId: 'sh', input: 'echo still' })).toMatchObject({
      stdout: 'still\n',
    })
    const error = await p.waitFor((ev) => ev.type === 'ERROR')
    expect(error).toMatchObject({ sessionId: 'default', error: { tag: 'Error' } })
    await rm(dir, { recursive: true, force: true })
  })
})
