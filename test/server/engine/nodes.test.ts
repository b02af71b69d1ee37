import { isRight } from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { EngineEventCodec } from '../../../src/protocol/index.js'
import { connectedPeers, ptyOptions } from '../kit.js'

const connected = connectedPeers()

describe('sessions', () => {
  it('has a default session, creates and lists named ones, and closes them', async () => {
    const p = await connected()
    const made = await p.ok('CREATE_SESSION', { sessionId: 'review', tags: ['ci'] })
    expect(made).toMatchObject({ sessionId: 'review', default: false, tags: ['ci'], nodes: 0 })
    const { sessions } = await p.ok<{ sessions: { sessionId: string; default: boolean }[] }>(
      'LIST_SESSIONS',
    )
    expect(sessions.map((s) => [s.sessionId, s.default])).toEqual([
      ['default', true],
      ['review', false],
    ])
    await p.ok('CREATE_NODE', { sessionId: 'review', nodeId: 'sh', kind: 'bash' })
    const { nodes } = await p.ok<{ nodes: unknown[] }>('LIST_NODES')
    expect(nodes).toEqual([])
    expect(await p.ok('CLOSE_SESSION', { sessionId: 'review' })).toEqual({ closed: true })
    const after = await p.call('LIST_NODES', { sessionId: 'review' })
    expect(after.error).toMatchObject({
      code: -32001,
      data: { tag: 'UnknownSession', path: '/sessionId' },
    })
  })

  it('announces a session opened and one closed to every subscriber, the codecs agreeing', async () => {
    const p = await connected()
    await p.ok('SUBSCRIBE', {})
    const made = await p.ok('CREATE_SESSION', { sessionId: 'other', tags: ['t'] })
    const created = await p.waitFor((e) => e.type === 'SESSION_CREATED')
    expect(created).toMatchObject({ sessionId: 'other', session: made })
    await p.ok('CREATE_NODE', { sessionId: 'other', nodeId: 'sh', kind: 'bash' })
    await p.ok('CLOSE_SESSION', { sessionId: 'other' })
    const closed = await p.waitFor((e) => e.type === 'SESSION_CLOSED')
    expect(closed).toMatchObject({ sessionId: 'other' })
    const types = p.events().map((e) => e.type)
    // Its nodes stop before it is gone.
    expect(types).toContain('NODE_STOPPED')
    expect(types.indexOf('NODE_CREATED')).toBeGreaterThan(types.indexOf('SESSION_CREATED'))
    expect(types.lastIndexOf('NODE_STOPPED')).toBeLessThan(types.indexOf('SESSION_CLOSED'))
    for (const e of [created, closed]) expect(isRight(EngineEventCodec.decode(e))).toBe(true)
  })

  it('refuses a session id in use, and closing the default session', async () => {
    const p = await connected()
    await p.ok('CREATE_SESSION', { sessionId: 'a' })
    expect((await p.call('CREATE_SESSION', { sessionId: 'a' })).error).toMatchObject({
      code: -32002,
      data: { tag: 'SessionExists' },
    })
    expect((await p.call('CLOSE_SESSION', { sessionId: 'default' })).error).toMatchObject({
      code: -32004,
      data: { tag: 'DefaultSession' },
    })
  })
})

describe('CREATE_NODE, GET_NODE, LIST_NODES, STOP_NODE, DELETE_NODE', () => {
  it('creates nodes of each local kind ready to use, and lists them in order', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash', options: { command: 'echo 1' } })
    await p.ok('CREATE_NODE', { nodeId: 'term', kind: 'pty', options: ptyOptions })
    await p.ok('CREATE_NODE', { nodeId: 'chat', kind: 'llm', options: { provider: 'echo' } })
    await p.ok('CREATE_NODE', {
      nodeId: 'flow',
      kind: 'graph',
      options: { graph: { steps: [{ id: 'a', nodeRef: 'sh' }] } },
    })
    const { nodes } = await p.ok<{ nodes: { id: string; type: string; state: string }[] }>(
      'LIST_NODES',
    )
    expect(nodes.map((n) => [n.id, n.type, n.state])).toEqual([
      ['sh', 'bash', 'ready'],
      ['term', 'pty', 'ready'],
      ['chat', 'llm', 'ready'],
      ['flow', 'graph', 'ready'],
    ])
    expect(await p.ok('GET_NODE', { nodeId: 'term' })).toEqual({
      id: 'term',
      type: 'pty',
      state: 'ready',
      metadata: {},
    })
  })

  it('stops a node (it stays listed, stopped) and deletes one (it is gone)', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'term', kind: 'pty', options: ptyOptions })
    expect(await p.ok('STOP_NODE', { nodeId: 'term' })).toMatchObject({ state: 'stopped' })
    const stopped = await p.call('EXECUTE_INPUT', { nodeId: 'term', input: 'echo hi' })
    expect(stopped.error).toMatchObject({ code: -32004, data: { tag: 'NodeStopped' } })
    expect(await p.ok('DELETE_NODE', { nodeId: 'term' })).toEqual({ deleted: true })
    expect((await p.call('GET_NODE', { nodeId: 'term' })).error).toMatchObject({
      code: -32001,
      data: { tag: 'UnknownNode', path: '/nodeId' },
    })
  })

  it('refuses a taken id, bad options, an unknown provider and a bad graph file, naming where', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    expect((await p.call('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })).error).toMatchObject({
      code: -32002,
      data: { tag: 'NameTaken', path: '/nodeId' },
    })
    const bad = await p.call('CREATE_NODE', {
      nodeId: 'b',
      kind: 'bash',
      options: { timeoutMs: -1 },
    })
    expect(bad.error).toMatchObject({
      code: -32602,
      data: { tag: 'InvalidOptions', path: '/options/timeoutMs' },
    })
    expect(bad.error!.message).toMatch(/timeoutMs/)
    const provider = await p.call('CREATE_NODE', {
      nodeId: 'm',
      kind: 'llm',
      options: { provider: 'nowhere' },
    })
    expect(provider.error).toMatchObject({
      code: -32003,
      data: { tag: 'UnknownProvider', path: '/options/provider' },
    })
    // One the environment can give says how.
    const keyless = await p.call('CREATE_NODE', {
      nodeId: 'm',
      kind: 'llm',
      options: { provider: 'anthropic' },
    })
    expect(keyless.error!.message).toMatch(
      /^there is no provider "anthropic" \(known: .*\): set ANTHROPIC_API_KEY where the engine starts to have one$/,
    )
    const graph = await p.call('CREATE_NODE', {
      nodeId: 'g',
      kind: 'graph',
      options: { graph: { steps: [{ id: 'a', node: 'missing' }] } },
    })
    expect(graph.error).toMatchObject({
      code: -32008,
      data: { tag: 'GraphFileInvalid', path: '/options/graph/steps/0/node' },
    })
    const { nodes } = await p.ok<{ nodes: { id: string }[] }>('LIST_NODES')
    expect(nodes.map((n) => n.id)).toEqual(['sh'])
  })

  it('leaves no node behind when a terminal fails to start', async () => {
    const p = await connected()
    const r = await p.call('CREATE_NODE', {
      nodeId: 't',
      kind: 'pty',
      options: { command: '/nonexistent/program', timeoutMs: 2000 },
    })
    expect(r.error).toMatchObject({ code: -32007, data: { tag: 'StartFailed' } })
    expect(await p.ok('LIST_NODES')).toEqual({ nodes: [] })
  })
})

describe('FORK_NODE', () => {
  it('forks an LLM node with its conversation, and a point in it', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'chat', kind: 'llm', options: { provider: 'echo' } })
    await p.ok('EXECUTE_INPUT', { nodeId: 'chat', input: 'one' })
    await p.ok('EXECUTE_INPUT', { nodeId: 'chat', input: 'two' })
    expect(await p.ok('FORK_NODE', { sourceId: 'chat', targetId: 'copy' })).toEqual({
      nodeId: 'copy',
      forkedFrom: 'chat',
      nodeType: 'llm',
      messageCount: 4,
    })
    expect(await p.ok('FORK_NODE', { sourceId: 'chat', targetId: 'early', at: 2 })).toMatchObject({
      messageCount: 2,
    })
    expect(await p.ok('EXECUTE_INPUT', { nodeId: 'copy', input: 'three' })).toBe('echo: three')
    const node = await p.ok<{ metadata: Record<string, unknown> }>('GET_NODE', { nodeId: 'copy' })
    expect(node.metadata.forked_from).toBe('chat')
  })

  it('forks a PTY into a fresh, ready terminal and a bash node into a copy', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'term', kind: 'pty', options: ptyOptions })
    expect(await p.ok('FORK_NODE', { sourceId: 'term', targetId: 'term2' })).toEqual({
      nodeId: 'term2',
      forkedFrom: 'term',
      nodeType: 'pty',
    })
    const answer = await p.ok<{ text: string }>('EXECUTE_INPUT', {
      nodeId: 'term2',
      input: 'echo forked',
    })
    expect(answer.text).toBe('forked')
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash', options: { command: 'echo x' } })
    expect(await p.ok('FORK_NODE', { sourceId: 'sh', targetId: 'sh2' })).toMatchObject({
      nodeType: 'bash',
    })
  })

  it('refuses an unknown source, a taken target, an unforkable kind and a point on a terminal', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash', options: { command: 'true' } })
    await p.ok('CREATE_NODE', {
      nodeId: 'g',
      kind: 'graph',
      options: { graph: { steps: [{ id: 'a', nodeRef: 'sh' }] } },
    })
    expect((await p.call('FORK_NODE', { sourceId: 'nope', targetId: 'x' })).error).toMatchObject({
      code: -32001,
      data: { tag: 'UnknownNode', path: '/sourceId' },
    })
    expect((await p.call('FORK_NODE', { sourceId: 'sh', targetId: 'g' })).error).toMatchObject({
      code: -32002,
      data: { tag: 'NameTaken', path: '/targetId' },
    })
    // Forked onto its own name: the target is the name taken.
    expect((await p.call('FORK_NODE', { sourceId: 'sh', targetId: 'sh' })).error).toMatchObject({
      code: -32002,
      data: { tag: 'NameTaken', path: '/targetId' },
    })
    expect((await p.call('FORK_NODE', { sourceId: 'g', targetId: 'g2' })).error).toMatchObject({
      code: -32003,
      data: { tag: 'NotForkable', kind: 'graph' },
    })
    expect(
      (await p.call('FORK_NODE', { sourceId: 'sh', targetId: 's3', at: 1 })).error,
    ).toMatchObject({
      code: -32602,
      data: { tag: 'InvalidOptions', path: '/at' },
    })
  })
})
