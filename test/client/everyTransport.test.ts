/**
 * One suite, every transport: each command of the protocol runs through
 * `NerveClient` over the Unix socket, TCP, HTTP `POST /rpc`, the WebSocket
 * and in-process, against one real daemon with real bash and PTY nodes, and
 * gives the same answers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NerveClient, ProtocolError } from '../../src/client/index.js'
import {
  createEngine,
  inProcessClient,
  startServer,
  type ServerHandle,
} from '../../src/server/index.js'

let dir: string
let server: ServerHandle

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-every-'))
  server = await startServer({
    engine: createEngine({ history: { root: dir } }),
    socket: join(dir, 'n.sock'),
    tcp: true,
    http: true,
    token: 'every-token-Gy4Nc8Hs1Vq3',
  })
})
afterAll(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

const transports: readonly (readonly [string, () => Promise<NerveClient>])[] = [
  ['unix', () => NerveClient.connect(server.socket)],
  [
    'tcp',
    () =>
      NerveClient.connectTcp(server.tcp!.host, server.tcp!.port, {
        token: 'every-token-Gy4Nc8Hs1Vq3',
      }),
  ],
  [
    'http',
    () =>
      NerveClient.connectHttp(server.http!.url, { token: 'every-token-Gy4Nc8Hs1Vq3', post: true }),
  ],
  [
    'websocket',
    () => NerveClient.connectHttp(server.http!.url, { token: 'every-token-Gy4Nc8Hs1Vq3' }),
  ],
  ['in-process', () => inProcessClient(server.engine)],
]

const BASH_PTY = {
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ', PROMPT_COMMAND: '' },
}

const review = JSON.parse(
  readFileSync(new URL('../../examples/review.network.json', import.meta.url), 'utf8'),
) as unknown

const rejection = (p: Promise<unknown>): Promise<ProtocolError> =>
  p.then(
    () => {
      throw new Error('expected a rejection')
    },
    (e: unknown) => e as ProtocolError,
  )

describe.each(transports)('every command over %s', (name, open) => {
  let client: NerveClient
  const id = (s: string): string => `${s}-${name.replace('-', '')}`
  beforeAll(async () => {
    client = await open()
  })
  afterAll(async () => {
    await client.close()
  })

  it('answers PING', async () => {
    expect(await client.ping()).toEqual({ pong: true })
  })

  it('creates, gets and lists a bash node, and executes a command on it', async () => {
    const sh = await client.createNode(id('sh'), 'bash')
    expect(sh.info).toMatchObject({ id: id('sh'), type: 'bash' })
    expect((await client.getNode(id('sh'))).info).toMatchObject({ id: id('sh') })
    expect((await client.listNodes()).map((n) => n.id)).toContain(id('sh'))
    expect(await sh.execute('echo hi')).toMatchObject({ stdout: 'hi\n', exitCode: 0 })
    expect(await sh.run('true')).toEqual({ accepted: true })
  })

  it('drives a PTY node: execute, write, read, readTail, interrupt', async () => {
    const t = await client.createNode(id('pty'), 'pty', { options: BASH_PTY })
    const answer = await t.execute('echo from-pty')
    expect(JSON.stringify(answer)).toContain('from-pty')
    await t.write('echo written\r')
    await expect.poll(() => t.read(), { timeout: 5000 }).toContain('written')
    expect((await t.readTail(1)).split('\n')).toHaveLength(1)
    expect(await t.interrupt()).toBe(true)
    await t.stop()
  })

  it('reads a node history, forks a node and deletes one', async () => {
    const sh = client.node(id('sh'))
    const records = await sh.history()
    expect(records.length).toBeGreaterThan(0)
    const copy = await sh.fork(id('copy'))
    expect(await copy.execute('echo copied')).toMatchObject({ stdout: 'copied\n' })
    await client.deleteNode(id('copy'))
    expect((await client.listNodes()).map((n) => n.id)).not.toContain(id('copy'))
  })

  it('runs a graph from a graph-file value and reports its run', async () => {
    const run = await client.runGraph({
      id: 'g',
      steps: [
        { id: 'a', node: id('sh'), input: 'echo a' },
        { id: 'b', node: id('sh'), input: 'echo b', dependsOn: ['a'] },
      ],
    })
    const info = await run.result()
    expect(info.state).toBe('completed')
    expect(Object.keys(info.results ?? {}).sort()).toEqual(['a', 'b'])
    expect(await run.cancel()).toBe(false)
    if (client.carriesEvents) {
      const types: string[] = []
      for await (const e of run.events()) types.push(e.type)
      expect(types[0]).toBe('GRAPH_STARTED')
      expect(types.at(-1)).toBe('GRAPH_COMPLETED')
      expect(types.filter((t) => t === 'STEP_COMPLETED')).toHaveLength(2)
    }
  })

  it('subscribes to a node and unsubscribes', async () => {
    if (!client.carriesEvents) {
      // POST /rpc carries no events: the client says so instead of subscribing in vain.
      await expect(client.subscribe({ nodeId: id('sh') })).rejects.toThrow(/carries no events/)
      return
    }
    const sub = await client.subscribe({ nodeId: id('sh') })
    await client.node(id('sh')).execute('echo event')
    const seen: string[] = []
    for await (const e of sub) {
      seen.push(e.type)
      if (e.type === 'OUTPUT_PARSED') break
    }
    expect(seen).toContain('NODE_BUSY')
    expect(sub.active).toBe(false)
  })

  it('streams an execute: chunks, then the answer', async () => {
    if (!client.carriesEvents) return
    const items = []
    for await (const item of client.node(id('sh')).executeStream('echo one; echo two'))
      items.push(item)
    expect(items.at(-1)).toMatchObject({ type: 'answer', answer: { stdout: 'one\ntwo\n' } })
  })

  it('answers errors with the engine tags: unknown node, bad params, no store', async () => {
    const unknown = await rejection(client.getNode('no-such-node'))
    expect(unknown).toBeInstanceOf(ProtocolError)
    expect(unknown.tag).toBe('UnknownNode')
    const bad = await rejection(
      client.call('EXECUTE_INPUT', { nodeId: id('sh'), input: 'x', timeout: -1 }),
    )
    expect(bad.code).toBe(-32602)
    expect(bad.path).toBe('/timeout')
    const method = await rejection(client.call('NO_SUCH_METHOD', {}))
    expect(method.code).toBe(-32601)
    const save = await rejection(client.saveSession())
    expect(save.tag).toBe('NoStore')
  })

  it('runs a live network: create, edit, send, approve errors, events, stop', async () => {
    const net = await client.createNetwork(review, { networkId: id('review'), root: dir })
    expect(net.networkId).toBe(id('review'))
    const { maxIterations } = (await net.info()).network.limits
    const edit = await net.edit([{ op: 'replace', path: ['limits', 'maxIterations'], value: 9 }])
    expect(edit.inverse).toEqual([
      { op: 'replace', path: ['limits', 'maxIterations'], value: maxIterations },
    ])
    expect(await net.send('writer', 'Write a haiku about queues')).toMatchObject({
      toNodeId: 'writer',
    })
    const denied = await rejection(net.deny('no-such-request'))
    expect([denied.tag, denied.path]).toEqual(['UnknownApproval', '/requestId'])
    const info = await net.stop()
    expect(info).toMatchObject({ state: 'finished', outcome: 'done', done: ['writer'] })
    expect(info.network.limits.maxIterations).toBe(9)
    expect(await net.envelopes()).toHaveLength(info.envelopes)
    expect((await client.listNetworks()).map((n) => n.networkId)).toContain(id('review'))
    if (!client.carriesEvents) return
    const types: string[] = []
    for await (const e of net.events()) types.push(e.type)
    expect(types).toEqual(
      expect.arrayContaining(['NETWORK_PATCHED', 'ENVELOPE_DELIVERED', 'NODE_FIRED', 'NODE_DONE']),
    )
    expect(types.at(-1)).toBe('NETWORK_COMPLETED')
  })

  it('stops a node', async () => {
    const info = await client.node(id('sh')).stop()
    expect(info.state).toBe('stopped')
  })
})

describe.each(transports)('SHUTDOWN over %s', (name) => {
  it('shuts the daemon down, removes its files and ends the connection', async () => {
    const own = mkdtempSync(join(tmpdir(), 'nerve-down-'))
    const s = await startServer({
      engine: createEngine({ history: false }),
      socket: join(own, 'n.sock'),
      tcp: true,
      http: true,
      token: 'every-token-Gy4Nc8Hs1Vq3',
    })
    const open = {
      unix: () => NerveClient.connect(s.socket),
      tcp: () =>
        NerveClient.connectTcp(s.tcp!.host, s.tcp!.port, { token: 'every-token-Gy4Nc8Hs1Vq3' }),
      http: () =>
        NerveClient.connectHttp(s.http!.url, { token: 'every-token-Gy4Nc8Hs1Vq3', post: true }),
      websocket: () => NerveClient.connectHttp(s.http!.url, { token: 'every-token-Gy4Nc8Hs1Vq3' }),
      'in-process': () => inProcessClient(s.engine),
    }[name]!
    const client = await open()
    expect(await client.shutdown()).toEqual({ shuttingDown: true })
    await s.closed
    const { existsSync } = await import('node:fs')
    expect(existsSync(s.socket!)).toBe(false)
    expect(existsSync(s.pidFile!)).toBe(false)
    if (name !== 'http') await client.closed
    await client.close()
    rmSync(own, { recursive: true, force: true })
  })
})
