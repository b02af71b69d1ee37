import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NerveClient } from '../../../src/client/index.js'
import { createEngine, startServer, type ServerHandle } from '../../../src/server/index.js'
import { rawPeer } from '../fixtures/rawClient.js'

let dir: string
let server: ServerHandle

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-bp-'))
  server = await startServer({
    engine: createEngine({ history: false, limits: { eventBuffer: 4 } }),
    socket: join(dir, 'n.sock'),
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
})
