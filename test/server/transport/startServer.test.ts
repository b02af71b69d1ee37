import { mkdtempSync, rmSync, statSync, writeFileSync, existsSync, readFileSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { ServerStartError, startServer, type ServerHandle } from '../../../src/server/index.js'
import { echoEngine } from '../fixtures/echoEngine.js'
import { rawPeer } from '../fixtures/rawClient.js'

let dir: string
const handles: ServerHandle[] = []
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-srv-'))
})
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()))
  rmSync(dir, { recursive: true, force: true })
})

const start = async (options: Partial<Parameters<typeof startServer>[0]> = {}) => {
  const engine = echoEngine()
  const h = await startServer({ engine, socket: join(dir, 'n.sock'), ...options })
  handles.push(h)
  return { h, engine }
}

const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'PING' })

describe('the Unix socket', () => {
  it('answers NDJSON requests and is created mode 0600 with a pid file', async () => {
    const { h } = await start()
    expect(statSync(h.socket!).mode & 0o777).toBe(0o600)
    expect(readFileSync(h.pidFile!, 'utf8').trim()).toBe(String(process.pid))
    const peer = await rawPeer({ path: h.socket! })
    peer.send(ping)
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 1, result: { pong: true } })
    peer.close()
  })

  it('creates its default directory mode 0700 under XDG_RUNTIME_DIR', async () => {
    const before = process.env.XDG_RUNTIME_DIR
    process.env.XDG_RUNTIME_DIR = dir
    try {
      const { h } = await start({ socket: true })
      expect(h.socket).toBe(join(dir, 'nerve', 'nerve.sock'))
      expect(statSync(join(dir, 'nerve')).mode & 0o777).toBe(0o700)
    } finally {
      if (before === undefined) delete process.env.XDG_RUNTIME_DIR
      else process.env.XDG_RUNTIME_DIR = before
    }
  })

  it('replaces a stale socket file left by a dead daemon', async () => {
    const path = join(dir, 'n.sock')
    // A daemon killed with SIGKILL leaves its socket file behind.
    const child = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`,
    ])
    await new Promise((r) => child.stdout.once('data', r))
    child.kill('SIGKILL')
    await new Promise((r) => child.once('exit', r))
    expect(existsSync(path)).toBe(true)
    const { h } = await start({ socket: path })
    const peer = await rawPeer({ path: h.socket! })
    peer.send(ping)
    expect((await peer.next()).result).toEqual({ pong: true })
    peer.close()
  })

  it('refuses a second server on a socket a live daemon holds', async () => {
    const { h } = await start()
    const e = await startServer({ engine: echoEngine(), socket: h.socket! }).catch(
      (x: unknown) => x,
    )
    expect(e).toBeInstanceOf(ServerStartError)
    expect((e as ServerStartError).reason).toBe('DaemonRunning')
    expect((e as ServerStartError).path).toBe(h.socket)
  })

  it('refuses a path that is a plain file, and leaves it alone', async () => {
    const path = join(dir, 'file')
    writeFileSync(path, 'keep me')
    const e = await startServer({ engine: echoEngine(), socket: path }).catch((x: unknown) => x)
    expect((e as ServerStartError).reason).toBe('NotASocket')
    expect(readFileSync(path, 'utf8')).toBe('keep me')
  })

  it('refuses a line over the limit with an error and keeps the connection', async () => {
    const { h } = await start({ maxLineBytes: 1024 })
    const peer = await rawPeer({ path: h.socket! })
    peer.send(Buffer.alloc(5000, 0x61))
    peer.send(Buffer.alloc(5000, 0x61))
    peer.send('\n' + ping)
    const err = await peer.next()
    expect(err.error).toMatchObject({ code: -32600, data: { tag: 'LineTooLong' } })
    expect((err.error as { message: string }).message).toContain('10000 bytes')
    expect((await peer.next()).result).toEqual({ pong: true })
    peer.close()
  })

  it('turns away connections past maxConnections with an error line', async () => {
    const { h } = await start({ maxConnections: 1 })
    const first = await rawPeer({ path: h.socket! })
    const second = await rawPeer({ path: h.socket! })
    expect((await second.next()).error).toMatchObject({ data: { tag: 'TooManyConnections' } })
    await second.ended
    first.send(ping)
    expect((await first.next()).result).toEqual({ pong: true })
    first.close()
  })

  it('closes the engine connection of a peer that drops mid-request', async () => {
    const { h, engine } = await start()
    const peer = await rawPeer({ path: h.socket! })
    peer.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SLOW', params: { ms: 10_000 } }))
    await expect.poll(() => engine.inFlight()).toBe(1)
    peer.close()
    await expect.poll(() => engine.inFlight()).toBe(0)
    expect(engine.open()).toBe(0)
  })

  it('removes the socket and pid files on close, and on a SHUTDOWN command', async () => {
    const { h } = await start()
    const peer = await rawPeer({ path: h.socket! })
    peer.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'SHUTDOWN' }))
    expect((await peer.next()).id).toBe(9)
    await h.closed
    await peer.ended
    expect(existsSync(h.socket!)).toBe(false)
    expect(existsSync(h.pidFile!)).toBe(false)
  })
})

describe('TCP', () => {
  it('binds 127.0.0.1 and needs the AUTH line before any command', async () => {
    const { h } = await start({ tcp: true, token: 'sesame-4Fq8Wz1Lk7Rb2Ny' })
    expect(h.tcp!.host).toBe('127.0.0.1')
    const peer = await rawPeer(h.tcp!)
    peer.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'AUTH',
        params: { token: 'sesame-4Fq8Wz1Lk7Rb2Ny' },
      }),
    )
    expect((await peer.next()).result).toEqual({ authenticated: true })
    peer.send(ping)
    expect((await peer.next()).result).toEqual({ pong: true })
    peer.close()
  })

  it('refuses a wrong token and closes the connection before any command runs', async () => {
    const { h, engine } = await start({ tcp: true, token: 'sesame-4Fq8Wz1Lk7Rb2Ny' })
    const peer = await rawPeer(h.tcp!)
    peer.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'AUTH', params: { token: 'nope' } }))
    peer.send(ping)
    expect((await peer.next()).error).toMatchObject({ code: -32020, data: { tag: 'Unauthorized' } })
    await peer.ended
    expect(engine.transports).not.toContain('tcp')
  })

  it('refuses a command sent without AUTH', async () => {
    const { h } = await start({ tcp: true, token: 'sesame-4Fq8Wz1Lk7Rb2Ny' })
    const peer = await rawPeer(h.tcp!)
    peer.send(ping)
    expect((await peer.next()).error).toMatchObject({ data: { tag: 'Unauthorized' } })
    await peer.ended
  })

  it('generates a token into a 0600 file when none is given, and removes it on close', async () => {
    const { h } = await start({ tcp: true })
    expect(h.token).toMatch(/^[\w-]{43}$/)
    expect(statSync(h.tokenFile!).mode & 0o777).toBe(0o600)
    expect(readFileSync(h.tokenFile!, 'utf8').trim()).toBe(h.token)
    await h.close()
    expect(existsSync(h.tokenFile!)).toBe(false)
  })

  it('refuses to bind a non-loopback address without a token', async () => {
    const e = await startServer({
      engine: echoEngine(),
      socket: false,
      tcp: { host: '0.0.0.0' },
    }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ServerStartError)
    expect((e as ServerStartError).reason).toBe('TokenRequired')
    const e2 = await startServer({
      engine: echoEngine(),
      socket: false,
      http: { host: '0.0.0.0' },
    }).catch((x: unknown) => x)
    expect((e2 as ServerStartError).reason).toBe('TokenRequired')
  })
})

describe('HTTP and WebSocket', () => {
  it('answers POST /rpc with the response, and 401 without the bearer token', async () => {
    const { h } = await start({ socket: false, http: true, token: 'sesame-4Fq8Wz1Lk7Rb2Ny' })
    const url = `${h.http!.url}/rpc`
    const ok = await fetch(url, {
      method: 'POST',
      body: ping,
      headers: { authorization: 'Bearer sesame-4Fq8Wz1Lk7Rb2Ny' },
    })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { pong: true } })
    const no = await fetch(url, { method: 'POST', body: ping })
    expect(no.status).toBe(401)
    expect(await no.json()).toMatchObject({ error: { data: { tag: 'Unauthorized' } } })
    const wrong = await fetch(url, {
      method: 'POST',
      body: ping,
      headers: { authorization: 'Bearer x' },
    })
    expect(wrong.status).toBe(401)
  })

  it('answers a body over the limit with 413 and keeps serving', async () => {
    const { h } = await start({
      socket: false,
      http: true,
      token: 'a-token-of-24-characters',
      maxLineBytes: 1000,
    })
    const headers = { authorization: 'Bearer a-token-of-24-characters' }
    const big = await fetch(`${h.http!.url}/rpc`, {
      method: 'POST',
      body: 'x'.repeat(5000),
      headers,
    })
    expect(big.status).toBe(413)
    expect(await big.json()).toMatchObject({ error: { data: { tag: 'LineTooLong' } } })
    const ok = await fetch(`${h.http!.url}/rpc`, { method: 'POST', body: ping, headers })
    expect(await ok.json()).toMatchObject({ result: { pong: true } })
  })

  it('aborts the request of an HTTP client that leaves before its answer', async () => {
    const { h, engine } = await start({
      socket: false,
      http: true,
      token: 'a-token-of-24-characters',
    })
    const leave = new AbortController()
    const call = fetch(`${h.http!.url}/rpc`, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SLOW', params: { ms: 10_000 } }),
      headers: { authorization: 'Bearer a-token-of-24-characters' },
      signal: leave.signal,
    })
    await expect.poll(() => engine.inFlight()).toBe(1)
    leave.abort()
    await expect(call).rejects.toThrow()
    await expect.poll(() => engine.inFlight()).toBe(0)
    expect(engine.open()).toBe(0)
  })

  it('answers a notification with 204 and an unknown path with 404', async () => {
    const { h } = await start({ socket: false, http: true, token: 'a-token-of-24-characters' })
    const headers = { authorization: 'Bearer a-token-of-24-characters' }
    const note = await fetch(`${h.http!.url}/rpc`, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', method: 'PING' }),
      headers,
    })
    expect(note.status).toBe(204)
    expect((await fetch(`${h.http!.url}/elsewhere`, { headers })).status).toBe(404)
    expect((await fetch(`${h.http!.url}/rpc`, { headers })).status).toBe(405)
  })

  it('carries the NDJSON stream, events included, over /ws', async () => {
    const { h } = await start({ socket: false, http: true, token: 'a-token-of-24-characters' })
    const ws = new WebSocket(`${h.http!.url.replace('http', 'ws')}/ws`, {
      headers: { authorization: 'Bearer a-token-of-24-characters' },
    })
    const got: Record<string, unknown>[] = []
    const done = new Promise<void>((resolve) => {
      ws.on('message', (d: Buffer) => {
        got.push(JSON.parse(d.toString()) as Record<string, unknown>)
        if (got.length === 3) resolve()
      })
    })
    await new Promise((r) => ws.once('open', r))
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'EMIT', params: { n: 2 } }))
    await done
    expect(got.map((m) => m.method ?? m.id)).toEqual(['EVENT', 'EVENT', 2])
    ws.close()
  })

  it('refuses the WebSocket upgrade with a wrong token', async () => {
    const { h } = await start({ socket: false, http: true, token: 'a-token-of-24-characters' })
    const ws = new WebSocket(`${h.http!.url.replace('http', 'ws')}/ws`, {
      headers: { authorization: 'Bearer wrong' },
    })
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0)
      })
      ws.on('error', () => undefined)
    })
    expect(status).toBe(401)
  })
})
