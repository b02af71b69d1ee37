/**
 * Fuzz: random bytes and random JSON lines into every transport. Each line
 * gets an error reply (or, by chance, a valid answer); the connection and
 * the daemon go on serving, and so do other connections. A line over 16 MiB
 * is refused and the connection keeps working.
 */
import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { NerveClient } from '../../../src/client/index.js'
import { createEngine, startServer, type ServerHandle } from '../../../src/server/index.js'
import { rawPeer, type RawPeer } from '../fixtures/rawClient.js'

let dir: string
let server: ServerHandle
let witness: NerveClient
const TOKEN = 'fuzz-token-Hs6Vd2Jp9Ty4'

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-fuzz-'))
  server = await startServer({
    engine: createEngine({ history: false }),
    socket: join(dir, 'n.sock'),
    tcp: true,
    http: true,
    token: TOKEN,
  })
  witness = await NerveClient.connect(server.socket)
})
afterAll(async () => {
  await witness.close()
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A line of random bytes (no newline), or a random JSON value, or a near-request. */
const junkLine = fc.oneof(
  fc
    .uint8Array({ minLength: 1, maxLength: 200 })
    .map((b) => Buffer.from(b.filter((x) => x !== 0x0a))),
  fc.json().map((j) => Buffer.from(j)),
  fc
    .record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.object()),
        method: fc.oneof(
          fc.constantFrom('PING', 'GET_NODE', 'EXECUTE_INPUT', 'CANCEL_REQUEST', 'EVENT'),
          fc.string(),
        ),
        params: fc.oneof(fc.object(), fc.jsonValue()),
      },
      { requiredKeys: [] },
    )
    .map((r) => Buffer.from(JSON.stringify(r))),
)

const PING_ID = 'fuzz-ping'
const ping = JSON.stringify({ jsonrpc: '2.0', id: PING_ID, method: 'PING' })

/** Sends the lines, then a PING; every reply before the PING's answer must be a JSON-RPC message. */
const fuzzStream = async (peer: RawPeer, lines: readonly Buffer[]): Promise<void> => {
  for (const l of lines) peer.send(Buffer.concat([l, Buffer.from('\n')]))
  peer.send(ping)
  for (;;) {
    const msg = await peer.next()
    expect(msg.jsonrpc).toBe('2.0')
    if (msg.id === PING_ID && msg.result !== undefined) return
    expect('error' in msg || 'result' in msg || msg.method === 'EVENT').toBe(true)
  }
}

describe('fuzzing every transport', () => {
  it('the Unix socket answers junk with errors and keeps serving', async () => {
    const peer = await rawPeer({ path: server.socket! })
    await fc.assert(
      fc.asyncProperty(fc.array(junkLine, { maxLength: 10 }), (lines) => fuzzStream(peer, lines)),
      { numRuns: 60 },
    )
    peer.close()
    expect(await witness.ping()).toEqual({ pong: true })
  })

  it('TCP answers junk after AUTH with errors and keeps serving', async () => {
    const peer = await rawPeer(server.tcp!)
    peer.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'AUTH', params: { token: TOKEN } }))
    expect((await peer.next()).result).toEqual({ authenticated: true })
    await fc.assert(
      fc.asyncProperty(fc.array(junkLine, { maxLength: 10 }), (lines) => fuzzStream(peer, lines)),
      { numRuns: 40 },
    )
    peer.close()
    expect(await witness.ping()).toEqual({ pong: true })
  })

  it('TCP refuses junk sent instead of AUTH and runs nothing', async () => {
    await fc.assert(
      fc.asyncProperty(junkLine, async (line) => {
        const peer = await rawPeer(server.tcp!)
        peer.send(Buffer.concat([line, Buffer.from('\n')]))
        const reply = await peer.next().catch(() => undefined)
        if (reply !== undefined)
          expect(reply.error).toMatchObject({ data: { tag: 'Unauthorized' } })
        await peer.ended
      }),
      { numRuns: 20 },
    )
    expect(await witness.ping()).toEqual({ pong: true })
  })

  it('HTTP POST /rpc answers junk bodies with JSON errors and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(junkLine, async (body) => {
        const res = await fetch(`${server.http!.url}/rpc`, {
          method: 'POST',
          body,
          headers: { authorization: `Bearer ${TOKEN}` },
        })
        expect([200, 204]).toContain(res.status)
        if (res.status === 200)
          expect((await res.json()) as object).toHaveProperty('jsonrpc', '2.0')
      }),
      { numRuns: 60 },
    )
    expect(await witness.ping()).toEqual({ pong: true })
  })

  it('the WebSocket answers junk messages with errors and keeps serving', async () => {
    const ws = new WebSocket(`${server.http!.url.replace('http', 'ws')}/ws`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
    const inbox: Record<string, unknown>[] = []
    let wake: (() => void) | undefined
    ws.on('message', (d: Buffer) => {
      inbox.push(JSON.parse(d.toString()) as Record<string, unknown>)
      wake?.()
    })
    await new Promise((r) => ws.once('open', r))
    await fc.assert(
      fc.asyncProperty(fc.array(junkLine, { maxLength: 10 }), async (lines) => {
        for (const l of lines) ws.send(l)
        ws.send(ping)
        for (;;) {
          while (inbox.length === 0) await new Promise<void>((r) => (wake = r))
          const msg = inbox.shift()!
          expect(msg.jsonrpc).toBe('2.0')
          if (msg.id === PING_ID && msg.result !== undefined) return
        }
      }),
      { numRuns: 40 },
    )
    ws.close()
    expect(await witness.ping()).toEqual({ pong: true })
  })

  it('refuses a line over 16 MiB with an error and keeps the connection working', async () => {
    const peer = await rawPeer({ path: server.socket! })
    const big = Buffer.alloc(17 * 1024 * 1024, 0x61)
    peer.send(big)
    peer.send(`\n${ping}`)
    const refused = await peer.next()
    expect(refused.error).toMatchObject({ code: -32600, data: { tag: 'LineTooLong' } })
    expect((await peer.next()).result).toEqual({ pong: true })
    peer.close()
    expect(await witness.ping()).toEqual({ pong: true })
  }, 30_000)
})
