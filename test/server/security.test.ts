/**
 * The daemon's security promises, against real sockets on free loopback
 * ports: who can get in (the owner's Unix socket by its mode; TCP, HTTP and
 * WebSocket by a strong token, a loopback `Host` and no foreign `Origin`)
 * and what a peer that has not authenticated can cost.
 */
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs'
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import fc from 'fast-check'
import {
  checkToken,
  generateToken,
  startServer,
  type ServerHandle,
  type ServerOptions,
} from '../../src/server/index.js'
import { ensureBuilt, nerve } from '../cli/run.js'
import { echoEngine } from './fixtures/echoEngine.js'
import { rawPeer } from './fixtures/rawClient.js'

const TOKEN = 'a-token-of-24-characters'
const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'PING' })
const auth = (token: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'AUTH', params: { token } })

let dir: string
const handles: ServerHandle[] = []
const home = process.env.NERVE_HOME
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-sec-'))
  process.env.NERVE_HOME = dir
})
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()))
  rmSync(dir, { recursive: true, force: true })
  if (home === undefined) delete process.env.NERVE_HOME
  else process.env.NERVE_HOME = home
})

const start = async (options: Partial<ServerOptions> = {}) => {
  const engine = echoEngine()
  const h = await startServer({ engine, socket: join(dir, 'n.sock'), ...options })
  handles.push(h)
  return { h, engine }
}

const refusal = (options: Partial<ServerOptions>): Promise<unknown> =>
  startServer({ engine: echoEngine(), socket: false, ...options }).then(
    async (h) => {
      await h.close()
      return undefined
    },
    (e: unknown) => e,
  )

interface Answer {
  readonly status: number
  readonly body: string
}

/** One HTTP request with exactly these headers (a browser's `Host` and `Origin` included). */
const http = (
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'POST', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') })
        })
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })

/** The status a WebSocket upgrade is answered with (101 when it opens). */
const upgrade = (url: string, headers: Record<string, string>): Promise<number> =>
  new Promise((resolve) => {
    const ws = new WebSocket(url, { headers })
    ws.on('open', () => {
      ws.close()
      resolve(101)
    })
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0)
      res.resume()
    })
    ws.on('error', () => undefined)
  })

/** A raw HTTP client: what the daemon sent so far, and when it closed the connection. */
interface RawHttp {
  readonly socket: Socket
  readonly received: () => string
  /** Milliseconds from connecting to the daemon closing the connection. */
  readonly closed: Promise<number>
  /** Writes one byte of a chunked body every `everyMs` until the connection closes. */
  trickle(everyMs: number): void
}

const rawHttp = (port: number, head?: string): RawHttp => {
  const socket = connect(port, '127.0.0.1')
  const t0 = Date.now()
  let text = ''
  socket.setEncoding('utf8')
  socket.on('data', (c: string) => (text += c))
  socket.on('error', () => undefined)
  const closed = new Promise<number>((resolve) =>
    socket.on('close', () => {
      resolve(Date.now() - t0)
    }),
  )
  if (head !== undefined) socket.write(head)
  return {
    socket,
    received: () => text,
    closed,
    trickle: (everyMs) => {
      const timer = setInterval(() => {
        if (!socket.destroyed) socket.write('1\r\nx\r\n')
      }, everyMs)
      void closed.then(() => {
        clearInterval(timer)
      })
    },
  }
}

/** The head of a `POST /rpc` with a chunked body, with these extra header lines. */
const chunkedPost = (port: number, ...headers: string[]): string =>
  [
    'POST /rpc HTTP/1.1',
    `host: 127.0.0.1:${port}`,
    'content-type: application/json',
    'transfer-encoding: chunked',
    ...headers,
    '',
    '',
  ].join('\r\n')

const tagOf = (a: Answer): unknown =>
  (JSON.parse(a.body) as { error?: { data?: { tag?: unknown } } }).error?.data?.tag

describe('tokens', () => {
  it('refuses an empty token at start on TCP and HTTP, with TokenTooWeak', async () => {
    expect(await refusal({ tcp: true, token: '' })).toMatchObject({ reason: 'TokenTooWeak' })
    expect(await refusal({ http: true, token: '' })).toMatchObject({ reason: 'TokenTooWeak' })
    expect(await refusal({ tcp: { host: '0.0.0.0' }, token: '' })).toMatchObject({
      reason: 'TokenTooWeak',
    })
  })

  it('refuses a token shorter than 16 characters', async () => {
    expect(await refusal({ tcp: true, token: 'fifteen-chars!!' })).toMatchObject({
      reason: 'TokenTooWeak',
      path: 'token',
    })
    expect(await refusal({ tcp: true, token: 'tw3nty-chrs-9QxZ#WbLk' })).toBeUndefined()
  })

  it('refuses a long token with too few distinct characters, and says how to make one', async () => {
    for (const token of ['a'.repeat(16), 'ab'.repeat(32), 'sixteen-chars!!!']) {
      for (const listener of [{ tcp: true }, { http: true }] as const) {
        const e = await refusal({ ...listener, token })
        expect(e).toMatchObject({ reason: 'TokenTooWeak', path: 'token' })
        expect((e as Error).message).toMatch(/bits .*openssl rand -base64 32/)
      }
    }
  })

  it('takes tokens of 32 random bytes (as generated, or from `openssl rand`), however they are written', () => {
    fc.assert(
      fc.property(
        fc.noBias(fc.uint8Array({ minLength: 32, maxLength: 32 })),
        fc.constantFrom('base64url', 'base64', 'hex') as fc.Arbitrary<BufferEncoding>,
        (bytes, encoding) => {
          checkToken(Buffer.from(bytes).toString(encoding), 'tcp')
        },
      ),
    )
    for (let i = 0; i < 1000; i++) checkToken(generateToken(), 'tcp')
  })

  it('generates a token of at least 128 random bits', async () => {
    const { h } = await start({ tcp: true })
    expect(Buffer.from(h.token!, 'base64url').length).toBeGreaterThanOrEqual(16)
  })
})

describe('the Unix socket is the owner’s', () => {
  it('is mode 0600 in a directory mode 0700', async () => {
    const { h } = await start()
    expect(statSync(h.socket!).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
  })

  it('takes back an existing directory of ours that others could enter', async () => {
    const runtime = join(dir, 'run')
    mkdirSync(runtime)
    chmodSync(runtime, 0o777)
    await start({ socket: join(runtime, 'n.sock') })
    expect(statSync(runtime).mode & 0o777).toBe(0o700)
  })

  it("refuses a directory that is someone else's", async () => {
    const foreign = join(dir, 'theirs')
    mkdirSync(foreign, { mode: 0o700 })
    const uid = process.getuid!()
    if (uid === 0) chownSync(foreign, 65534, 65534)
    const where = uid === 0 ? foreign : '/tmp'
    const e = await refusal({ socket: join(where, 'n.sock') })
    expect(e).toMatchObject({ _tag: 'ServerStartError', reason: 'UnsafeDirectory', path: where })
  })

  it('lets the owner in while 300 peers that never authenticate hold TCP connections', async () => {
    const { h } = await start({ tcp: true, token: TOKEN, maxConnections: 256 })
    const idle: Socket[] = []
    let turnedAway = 0
    try {
      for (let i = 0; i < 300; i++) {
        const s = connect(h.tcp!.port, h.tcp!.host)
        s.on('error', () => undefined)
        s.once('data', () => turnedAway++)
        idle.push(s)
      }
      // The daemon has met them all once at least 300 - 256 were turned away.
      await expect.poll(() => turnedAway, { timeout: 10_000 }).toBeGreaterThanOrEqual(44)
      const owner = await rawPeer({ path: h.socket! })
      owner.send(ping)
      expect((await owner.next()).result).toEqual({ pong: true })
      owner.close()
    } finally {
      for (const s of idle) s.destroy()
    }
  }, 20_000)
})

describe('TCP before AUTH', () => {
  it('refuses a missing, an empty and a wrong token', async () => {
    const { h, engine } = await start({ tcp: true, token: TOKEN })
    for (const first of [ping, auth(''), auth('x'.repeat(24))]) {
      const peer = await rawPeer(h.tcp!)
      peer.send(first)
      expect((await peer.next()).error).toMatchObject({ data: { tag: 'Unauthorized' } })
      await peer.ended
    }
    expect(engine.transports).not.toContain('tcp')
  })

  it('turns away peers past the pre-auth pool, and lets an authenticated peer keep working', async () => {
    const { h } = await start({ tcp: true, token: TOKEN, preAuth: { maxConnections: 4 } })
    const friend = await rawPeer(h.tcp!)
    friend.send(auth(TOKEN))
    expect((await friend.next()).result).toEqual({ authenticated: true })
    const waiting = await Promise.all([0, 1, 2, 3].map(() => rawPeer(h.tcp!)))
    const late = await rawPeer(h.tcp!)
    expect((await late.next()).error).toMatchObject({ data: { tag: 'TooManyConnections' } })
    await late.ended
    friend.send(ping)
    expect((await friend.next()).result).toEqual({ pong: true })
    for (const w of waiting) w.close()
    friend.close()
  })

  it('turns away a peer that authenticates when the pool of authenticated connections is full', async () => {
    const { h } = await start({ tcp: true, token: TOKEN, maxConnections: 1 })
    const first = await rawPeer(h.tcp!)
    first.send(auth(TOKEN))
    expect((await first.next()).result).toEqual({ authenticated: true })
    const second = await rawPeer(h.tcp!)
    second.send(auth(TOKEN))
    expect((await second.next()).error).toMatchObject({ data: { tag: 'TooManyConnections' } })
    await second.ended
    const owner = await rawPeer({ path: h.socket! })
    owner.send(ping)
    expect((await owner.next()).result).toEqual({ pong: true })
    owner.close()
    first.close()
  })

  it('hangs up on a peer that does not authenticate within the deadline', async () => {
    const { h } = await start({ tcp: true, token: TOKEN, preAuth: { timeoutMs: 200 } })
    const peer = await rawPeer(h.tcp!)
    const t0 = Date.now()
    expect((await peer.next()).error).toMatchObject({ data: { tag: 'AuthTimeout' } })
    await peer.ended
    expect(Date.now() - t0).toBeLessThan(5000)
  })

  it('takes no more than a few KiB of one line before AUTH', async () => {
    const { h, engine } = await start({ tcp: true, token: TOKEN })
    const peer = await rawPeer(h.tcp!)
    peer.send(Buffer.alloc(64 * 1024, 0x61))
    expect((await peer.next()).error).toMatchObject({ data: { tag: 'LineTooLong' } })
    await peer.ended
    expect(engine.transports).not.toContain('tcp')
  })

  it('takes a long line once authenticated', async () => {
    const { h } = await start({ tcp: true, token: TOKEN })
    const peer = await rawPeer(h.tcp!)
    peer.send(auth(TOKEN))
    await peer.next()
    const big = 'y'.repeat(64 * 1024)
    peer.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ECHO', params: { big } }))
    expect((await peer.next()).result).toEqual({ big })
    peer.close()
  })
})

describe('HTTP and WebSocket', () => {
  const bearer = { authorization: `Bearer ${TOKEN}` }

  it('refuses a missing, an empty and a wrong bearer token on POST /rpc and /ws', async () => {
    const { h } = await start({ socket: false, http: true, token: TOKEN })
    for (const headers of [{}, { authorization: 'Bearer ' }, { authorization: 'Bearer wrong' }]) {
      expect((await http(`${h.http!.url}/rpc`, { headers, body: ping })).status).toBe(401)
      expect(await upgrade(`${h.http!.url.replace('http', 'ws')}/ws`, headers)).toBe(401)
    }
    expect((await http(`${h.http!.url}/rpc`, { headers: bearer, body: ping })).status).toBe(200)
  })

  it('refuses a Host that is not a loopback name or the bound address (DNS rebinding)', async () => {
    const { h } = await start({ socket: false, http: true, token: TOKEN })
    const port = h.http!.port
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`]) {
      const a = await http(`${h.http!.url}/rpc`, { headers: { ...bearer, host }, body: ping })
      expect(a.status).toBe(403)
      expect(tagOf(a)).toBe('ForbiddenHost')
      expect(await upgrade(`${h.http!.url.replace('http', 'ws')}/ws`, { ...bearer, host })).toBe(
        403,
      )
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const a = await http(`${h.http!.url}/rpc`, { headers: { ...bearer, host }, body: ping })
      expect(a.status).toBe(200)
    }
  })

  it('on a wildcard bind, takes the names of this machine and refuses others', async () => {
    const { h } = await start({ socket: false, http: { host: '0.0.0.0' }, token: TOKEN })
    const url = `http://127.0.0.1:${h.http!.port}/rpc`
    const named = await http(url, { headers: { ...bearer, host: hostname() }, body: ping })
    expect(named.status).toBe(200)
    const other = await http(url, { headers: { ...bearer, host: 'evil.example' }, body: ping })
    expect(other.status).toBe(403)
  })

  it("refuses a browser Origin that is not the daemon's own, and lets its own in", async () => {
    const { h } = await start({ socket: false, http: true, token: TOKEN })
    const ws = `${h.http!.url.replace('http', 'ws')}/ws`
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1:1']) {
      const a = await http(`${h.http!.url}/rpc`, { headers: { ...bearer, origin }, body: ping })
      expect(a.status).toBe(403)
      expect(tagOf(a)).toBe('ForbiddenOrigin')
      expect(await upgrade(ws, { ...bearer, origin })).toBe(403)
    }
    const own = h.http!.url
    expect(
      (await http(`${h.http!.url}/rpc`, { headers: { ...bearer, origin: own }, body: ping }))
        .status,
    ).toBe(200)
    expect(await upgrade(ws, { ...bearer, origin: own })).toBe(101)
  })

  it('hangs up on a request it refuses, without reading the rest of its body', async () => {
    const { h } = await start({ socket: false, http: true, token: TOKEN })
    const port = h.http!.port
    for (const extra of [[], ['authorization: Bearer wrong'], ['origin: https://evil.example']]) {
      const peer = rawHttp(port, chunkedPost(port, ...extra))
      peer.trickle(50)
      expect(await peer.closed).toBeLessThan(3000)
      expect(peer.received()).toMatch(/^HTTP\/1\.1 40[13] /)
      expect(peer.received()).toMatch(/connection: close/i)
    }
  })

  it('answers a streamed body 413 as soon as it passes the limit, and hangs up', async () => {
    const { h } = await start({ socket: false, http: true, token: TOKEN, maxLineBytes: 1000 })
    const port = h.http!.port
    const peer = rawHttp(port, chunkedPost(port, `authorization: Bearer ${TOKEN}`))
    peer.socket.write(`800\r\n${'x'.repeat(0x800)}\r\n`)
    peer.trickle(50)
    expect(await peer.closed).toBeLessThan(3000)
    expect(peer.received()).toMatch(/^HTTP\/1\.1 413 /)
    expect(peer.received()).toContain('LineTooLong')
  })

  it('answers a declared length over the limit 413 before the body comes, and hangs up', async () => {
    const { h } = await start({ socket: false, http: true, token: TOKEN, maxLineBytes: 1000 })
    const port = h.http!.port
    const head = `POST /rpc HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${TOKEN}\r\ncontent-length: 5000\r\n\r\n`
    const peer = rawHttp(port, head)
    expect(await peer.closed).toBeLessThan(3000)
    expect(peer.received()).toMatch(/^HTTP\/1\.1 413 /)
  })

  it('cuts a body that trickles in past the request deadline, even with the token', async () => {
    const { h } = await start({ socket: false, http: true, token: TOKEN, requestTimeoutMs: 500 })
    const port = h.http!.port
    const peer = rawHttp(port, chunkedPost(port, `authorization: Bearer ${TOKEN}`))
    peer.trickle(50)
    expect(await peer.closed).toBeLessThan(3000)
    expect(peer.received()).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('hangs up on a connection that sends no headers within the deadline', async () => {
    const { h } = await start({
      socket: false,
      http: true,
      token: TOKEN,
      preAuth: { timeoutMs: 200 },
    })
    const peer = rawHttp(h.http!.port, 'POST /rpc HTTP/1.1\r\n')
    expect(await peer.closed).toBeLessThan(2000)
  })

  it('turns away HTTP strangers past the pre-auth pool, and keeps serving a token holder', async () => {
    const { h } = await start({
      socket: false,
      http: true,
      token: TOKEN,
      preAuth: { maxConnections: 4 },
    })
    const port = h.http!.port
    // A token holder's connection leaves the strangers' pool once it shows the token.
    const owner = rawHttp(port)
    const call = `POST /rpc HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${TOKEN}\r\ncontent-length: ${ping.length}\r\n\r\n${ping}`
    owner.socket.write(call)
    await expect.poll(() => owner.received(), { timeout: 5000 }).toContain('"pong":true')
    const waiting = [0, 1, 2, 3].map(() => rawHttp(port))
    await new Promise((r) => setTimeout(r, 200))
    const late = rawHttp(port)
    expect(await late.closed).toBeLessThan(3000)
    expect(late.received()).toMatch(/^HTTP\/1\.1 503 /)
    expect(late.received()).toContain('TooManyConnections')
    owner.socket.write(call)
    await expect
      .poll(() => owner.received().match(/"pong":true/g)?.length, { timeout: 5000 })
      .toBe(2)
    for (const w of [...waiting, owner]) w.socket.destroy()
  })

  it('answers a body over the limit with 413 without keeping it', async () => {
    const { h } = await start({ socket: false, http: true, token: TOKEN, maxLineBytes: 1000 })
    const a = await http(`${h.http!.url}/rpc`, { headers: bearer, body: 'x'.repeat(5000) })
    expect(a.status).toBe(413)
    expect(tagOf(a)).toBe('LineTooLong')
  })
})

describe('the nerve executable', () => {
  beforeAll(() => {
    ensureBuilt()
  }, 180_000)

  it('keeps a given token out of the detached daemon’s arguments, which every local user can read', async () => {
    const token = 'detached-7Qx2pL9vRk4mZs'
    const socket = join(dir, 'n.sock')
    const started = await nerve(
      [
        'server',
        'start',
        '--detach',
        '--tcp',
        '127.0.0.1:0',
        '--no-store',
        '--token',
        token,
        '--socket',
        socket,
        '--json',
      ],
      { NERVE_HOME: dir },
    )
    expect(started.code).toBe(0)
    const status = JSON.parse(started.stdout) as {
      pid: number
      tcp: { host: string; port: number }
    }
    try {
      const cmdline = readFileSync(`/proc/${status.pid}/cmdline`, 'utf8')
      expect(cmdline).toContain('--tcp')
      expect(cmdline).not.toContain(token)
      const peer = await rawPeer(status.tcp)
      peer.send(auth(token))
      expect((await peer.next()).result).toEqual({ authenticated: true })
      peer.close()
    } finally {
      await nerve(['server', 'stop', '--socket', socket], { NERVE_HOME: dir })
    }
  }, 30_000)

  it('refuses to serve TCP with an empty NERVE_TOKEN, and says why', async () => {
    const ran = await nerve(
      ['server', 'start', '--tcp', '0.0.0.0:0', '--socket', join(dir, 'n.sock')],
      {
        NERVE_TOKEN: '',
        NERVE_HOME: dir,
      },
    )
    expect(ran.code).toBe(2)
    expect(ran.stderr).toMatch(/^error: ServerStartError at token: .*\(TokenTooWeak\)$/m)
  }, 30_000)
})
