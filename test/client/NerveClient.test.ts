import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ConnectionError,
  NerveClient,
  ProtocolError,
  type StreamItem,
} from '../../src/client/index.js'
import { createEngine, startServer, type ServerHandle } from '../../src/server/index.js'

let dir: string
let server: ServerHandle
let client: NerveClient

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-client-'))
  server = await startServer({
    engine: createEngine({ history: false }),
    socket: join(dir, 'n.sock'),
    tcp: true,
    http: true,
    token: 'right-Pj5Wb9Ke2Ld7Sh',
  })
  client = await NerveClient.connect(server.socket)
})
afterAll(async () => {
  await client.close()
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('NerveClient', () => {
  it('cancels a call on the daemon when its signal aborts', async () => {
    const sh = await client.createNode('sleeper', 'bash')
    const sub = await client.subscribe({ nodeId: 'sleeper', types: ['NODE_READY'] })
    const abort = new AbortController()
    const call = sh.execute('sleep 20', { signal: abort.signal })
    await new Promise((r) => setTimeout(r, 200))
    const aborted = performance.now()
    abort.abort(new Error('enough'))
    await expect(call).rejects.toThrow('enough')
    // The daemon stopped the command: the node is ready again long before 20 s.
    for await (const e of sub) if (e.type === 'NODE_READY') break
    expect(performance.now() - aborted).toBeLessThan(3000)
    expect(await sh.execute('echo again')).toMatchObject({ stdout: 'again\n' })
  })

  it('rejects at once a call whose signal is already aborted, sending nothing', async () => {
    const reason = new Error('before')
    await expect(client.ping({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason)
  })

  it('streams an execute as chunks, then the parsed answer last', async () => {
    const t = await client.createNode('streamer', 'pty', {
      options: {
        command: 'bash',
        args: ['--norc', '--noprofile'],
        env: { PS1: '$ ', PROMPT_COMMAND: '' },
      },
    })
    const items: StreamItem[] = []
    for await (const item of t.executeStream('for i in 1 2 3; do echo n$i; sleep 0.05; done'))
      items.push(item)
    const chunks = items.filter((i) => i.type === 'chunk')
    expect(chunks.length).toBeGreaterThan(0)
    expect(chunks.map((c) => String(c.chunk)).join('')).toContain('n3')
    expect(items.at(-1)?.type).toBe('answer')
    expect(JSON.stringify(items.at(-1))).toContain('n1')
    await t.stop()
  })

  it('follows a graph run: events, cancel, result', async () => {
    await client.createNode('slow', 'bash')
    const run = await client.runGraph({
      id: 'long',
      steps: [
        { id: 'first', node: 'slow', input: 'echo first' },
        { id: 'wait', node: 'slow', input: 'sleep 20', dependsOn: ['first'] },
      ],
    })
    const seen: string[] = []
    for await (const e of run.events()) {
      seen.push(e.type)
      if (e.type === 'STEP_STARTED' && e.stepId === 'wait') break
    }
    expect(seen).toContain('STEP_COMPLETED')
    expect(await run.cancel()).toBe(true)
    const info = await run.result()
    expect(info.state).toBe('cancelled')
    expect(info.runId).toBe(run.runId)
  })

  it('returns server errors as ProtocolErrors carrying tag, code and path', async () => {
    const e = await client
      .call('FORK_NODE', { sourceId: 'nope', targetId: 'x' })
      .catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ProtocolError)
    expect(e).toMatchObject({ tag: 'UnknownNode', code: -32001 })
    const bad = await client
      .call('CREATE_NODE', { nodeId: 'y', kind: 'nope' })
      .catch((x: unknown) => x)
    expect(bad).toMatchObject({ code: -32602, path: '/kind' })
  })

  it('refuses a wrong token over TCP, HTTP and the WebSocket with a ConnectionError', async () => {
    const tcp = NerveClient.connectTcp(server.tcp!.host, server.tcp!.port, { token: 'wrong' })
    await expect(tcp).rejects.toBeInstanceOf(ConnectionError)
    await expect(tcp).rejects.toThrow(/refused the token/)
    const ws = NerveClient.connectHttp(server.http!.url, { token: 'wrong' })
    await expect(ws).rejects.toThrow(/401/)
    const post = await NerveClient.connectHttp(server.http!.url, { token: 'wrong', post: true })
    await expect(post.ping()).rejects.toBeInstanceOf(ConnectionError)
  })

  it('reads the token from a token file when none is given', async () => {
    const { writeFileSync } = await import('node:fs')
    const file = join(dir, 'token')
    writeFileSync(file, 'right-Pj5Wb9Ke2Ld7Sh\n', { mode: 0o600 })
    const c = await NerveClient.connectTcp(server.tcp!.host, server.tcp!.port, { tokenFile: file })
    expect(await c.ping()).toEqual({ pong: true })
    await c.close()
  })

  it('rejects every pending call and later ones with a ConnectionError once closed', async () => {
    const c = await NerveClient.connect(server.socket)
    const sh = await c.createNode('pending', 'bash')
    const pending = sh.execute('sleep 20')
    await c.close()
    await expect(pending).rejects.toBeInstanceOf(ConnectionError)
    await expect(c.ping()).rejects.toBeInstanceOf(ConnectionError)
    expect(c.connected).toBe(false)
    expect(await c.closed).toBeInstanceOf(ConnectionError)
  })

  it('fails to connect to a socket nobody listens on with a ConnectionError naming it', async () => {
    const path = join(dir, 'nobody.sock')
    const e = await NerveClient.connect(path).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ConnectionError)
    expect((e as ConnectionError).address).toBe(path)
  })
})
