import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NerveClient } from '../../../src/client/index.js'
import { createEngine, startServer, type ServerHandle } from '../../../src/server/index.js'
import { WebSocket } from 'ws'
import { rawPeer } from '../fixtures/rawClient.js'

let dir: string
let server: ServerHandle

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-bp-'))
  server = await startServer({
    engine: createEngine({ history: false, limits: { eventBuffer: 4 } }),
    socket: join(dir, 'n.sock'),
    http: true,
    token: 'bp-token-Zr8Kq3Lw5Xn1',
  })
})
afterAll(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a subscriber that does not read', () => {
  it('is told what it missed (LAGGED) while its responses and other connections go on', async () => {
    const driver = await NerveClient.connect(server.socket)
    const sh = await driver.createNode('big', 'bash')
    const slow = await rawPeer({ path: server.socket! })
    slow.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SUBSCRIBE',
        params: { nodeId: 'big', types: ['OUTPUT_CHUNK'] },
      }),
    )
    expect((await slow.next()).result).toHaveProperty('subscription')
    slow.socket.pause()
    // About 13 MB of output in chunks: far more than the socket and the event buffer hold.
    await sh.execute('head -c 10000000 /dev/zero | base64')
    expect(await driver.ping()).toEqual({ pong: true })
    slow.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'PING' }))
    slow.socket.resume()
    // The PING is answered (responses are never held back), and the held events end with a LAGGED.
    let answered = false
    let lagged = 0
    while (!answered || lagged === 0) {
      const msg = await slow.next()
      const event = (msg.params as { event?: { type: string; dropped?: number } } | undefined)
        ?.event
      if (event?.type === 'LAGGED') lagged += event.dropped ?? 0
      if (msg.id === 2) answered = true
    }
    expect(lagged).toBeGreaterThan(0)
    slow.close()
    await driver.close()
  })

  it('on the WebSocket too: held events end with a LAGGED once it reads again', async () => {
    const driver = await NerveClient.connect(server.socket)
    const sh = await driver.createNode('big-ws', 'bash')
    const ws = new WebSocket(`${server.http!.url.replace('http', 'ws')}/ws`, {
      headers: { authorization: 'Bearer bp-token-Zr8Kq3Lw5Xn1' },
    })
    const inbox: Record<string, unknown>[] = []
    let wake: (() => void) | undefined
    ws.on('message', (d: Buffer) => {
      inbox.push(JSON.parse(d.toString()) as Record<string, unknown>)
      wake?.()
    })
    const next = async (): Promise<Record<string, unknown>> => {
      while (inbox.length === 0)
        await new Promise<void>((r) => {
          wake = r
        })
      return inbox.shift()!
    }
    await new Promise((r) => ws.once('open', r))
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SUBSCRIBE',
        params: { nodeId: 'big-ws', types: ['OUTPUT_CHUNK'] },
      }),
    )
    expect((await next()).result).toHaveProperty('subscription')
    ws.pause()
    await sh.execute('head -c 10000000 /dev/zero | base64')
    expect(await driver.ping()).toEqual({ pong: true })
    ws.resume()
    let lagged = 0
    while (lagged === 0) {
      const event = (
        (await next()).params as { event?: { type: string; dropped?: number } } | undefined
      )?.event
      if (event?.type === 'LAGGED') lagged += event.dropped ?? 0
    }
    expect(lagged).toBeGreaterThan(0)
    ws.close()
    await driver.close()
  })
})
