/**
 * MCP over HTTP keeps the daemon's promises: a strong token always (one is
 * generated into an owner-only file when none is given), a loopback `Host`
 * and no foreign `Origin` (DNS rebinding), all refused before the body is
 * read, and a bounded body. Over stdio, a line past the SDK's buffer is
 * answered with an error and the server keeps serving.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { standaloneClient } from '../../src/server/index.js'
import { serveMcpHttp, type McpHttpHandle, type McpHttpOptions } from '../../src/mcp/index.js'
import { bin, ensureBuilt } from '../cli/run.js'

const TOKEN = 'an-mcp-token-of-24-chars'
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1.0.0' },
  },
})
const mcpHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

let dir: string
let nerve: NerveClient
const served: McpHttpHandle[] = []
const home = process.env.NERVE_HOME
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-mcp-sec-'))
  process.env.NERVE_HOME = dir
  nerve = await standaloneClient({ history: false })
})
afterEach(async () => {
  await Promise.all(served.splice(0).map((h) => h.close()))
  await nerve.close()
  rmSync(dir, { recursive: true, force: true })
  if (home === undefined) delete process.env.NERVE_HOME
  else process.env.NERVE_HOME = home
})

const serve = async (options: McpHttpOptions = {}): Promise<McpHttpHandle> => {
  const h = await serveMcpHttp(nerve, options)
  served.push(h)
  return h
}

interface Answer {
  readonly status: number
  readonly body: string
}

/** One POST with exactly these headers; `body` may be a generator of chunks that never ends. */
const post = (
  url: string,
  headers: Record<string, string>,
  body: string | (() => Generator<Buffer>),
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') })
        req.destroy()
      })
    })
    req.on('error', (e) => {
      if (!req.destroyed) reject(e)
    })
    if (typeof body === 'string') req.end(body)
    else
      void (async () => {
        for (const chunk of body()) {
          if (req.destroyed) return
          if (!req.write(chunk)) await new Promise((r) => req.once('drain', r))
        }
      })().catch(() => undefined)
  })

describe('MCP over HTTP: who can get in', () => {
  it('generates a token into an owner-only file in NERVE_HOME when none is given, and removes it on close', async () => {
    const h = await serve()
    expect(h.token).toMatch(/^[\w-]{43}$/)
    expect(h.tokenFile).toBe(join(dir, `mcp-${new URL(h.url).port}.token`))
    expect(statSync(h.tokenFile!).mode & 0o777).toBe(0o600)
    expect(readFileSync(h.tokenFile!, 'utf8').trim()).toBe(h.token)
    const bare = await post(h.url, mcpHeaders, initialize)
    expect(bare.status).toBe(401)
    await h.close()
    expect(existsSync(h.tokenFile!)).toBe(false)
  })

  it('gives each server in one directory its own token file, and removes only its own', async () => {
    const first = await serve()
    const second = await serve()
    expect(second.tokenFile).not.toBe(first.tokenFile)
    expect(readFileSync(first.tokenFile!, 'utf8').trim()).toBe(first.token)
    await second.close()
    expect(existsSync(second.tokenFile!)).toBe(false)
    expect(readFileSync(first.tokenFile!, 'utf8').trim()).toBe(first.token)
    const ok = await post(
      first.url,
      { ...mcpHeaders, authorization: `Bearer ${readFileSync(first.tokenFile!, 'utf8').trim()}` },
      initialize,
    )
    expect(ok.status).toBe(200)
  })

  it('leaves a named token file alone on close once another server has written its token there', async () => {
    const tokenFile = join(dir, 'shared.token')
    const first = await serve({ tokenFile })
    const second = await serve({ tokenFile })
    await first.close()
    expect(readFileSync(tokenFile, 'utf8').trim()).toBe(second.token)
    await second.close()
    expect(existsSync(tokenFile)).toBe(false)
  })

  it('refuses an empty, a short or an easily guessed token at start with TokenTooWeak', async () => {
    for (const token of ['', 'short', 'a'.repeat(40), 'mcp-mcp-mcp-mcp-mcp-mcp']) {
      await expect(serveMcpHttp(nerve, { token })).rejects.toMatchObject({
        reason: 'TokenTooWeak',
        path: 'token',
      })
    }
  })

  it('refuses a missing, an empty and a wrong bearer token, and takes the right one', async () => {
    const h = await serve({ token: TOKEN })
    for (const auth of [undefined, 'Bearer ', 'Bearer wrong-wrong-wrong-wrong']) {
      const a = await post(
        h.url,
        { ...mcpHeaders, ...(auth !== undefined && { authorization: auth }) },
        initialize,
      )
      expect(a.status).toBe(401)
    }
    const ok = await post(h.url, { ...mcpHeaders, authorization: `Bearer ${TOKEN}` }, initialize)
    expect(ok.status).toBe(200)
  })

  it('refuses a rebound Host and a foreign Origin, before reading the body', async () => {
    const h = await serve({ token: TOKEN })
    const port = new URL(h.url).port
    const auth = { ...mcpHeaders, authorization: `Bearer ${TOKEN}` }
    // A body that never ends: only a refusal that does not wait for it can be answered.
    const endless = function* (): Generator<Buffer> {
      for (;;) yield Buffer.alloc(64 * 1024, 0x20)
    }
    const rebound = await post(h.url, { ...auth, host: `evil.example:${port}` }, endless)
    expect(rebound.status).toBe(403)
    expect(rebound.body).toMatch(/Host/)
    const foreign = await post(h.url, { ...auth, origin: 'https://evil.example' }, endless)
    expect(foreign.status).toBe(403)
    expect(foreign.body).toMatch(/Origin/)
    const own = await post(h.url, { ...auth, origin: `http://127.0.0.1:${port}` }, initialize)
    expect(own.status).toBe(200)
    const localhost = await post(h.url, { ...auth, host: `localhost:${port}` }, initialize)
    expect(localhost.status).toBe(200)
  })

  it('serves the SDK client that presents the token', async () => {
    const h = await serve({ token: TOKEN })
    const mcp = new Client({ name: 'friend', version: '1.0.0' })
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(h.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    )
    expect((await mcp.listTools()).tools).toHaveLength(19)
    await mcp.close()
  })
})

describe('MCP over HTTP: what a body may cost', () => {
  it('answers 413 for a declared length over the bound without reading it', async () => {
    const h = await serve({ token: TOKEN, maxBodyBytes: 1024 })
    const endless = function* (): Generator<Buffer> {
      for (;;) yield Buffer.alloc(64 * 1024, 0x20)
    }
    const a = await post(
      h.url,
      { ...mcpHeaders, authorization: `Bearer ${TOKEN}`, 'content-length': String(300 << 20) },
      endless,
    )
    expect(a.status).toBe(413)
  })

  it('answers 413 as soon as a streamed body passes the bound', async () => {
    const h = await serve({ token: TOKEN, maxBodyBytes: 1024 })
    const endless = function* (): Generator<Buffer> {
      for (;;) yield Buffer.alloc(4096, 0x20)
    }
    const a = await post(h.url, { ...mcpHeaders, authorization: `Bearer ${TOKEN}` }, endless)
    expect(a.status).toBe(413)
  })

  it('answers 408 to a body that does not arrive in time, a client with the token too', async () => {
    const h = await serve({ token: TOKEN, requestTimeoutMs: 600 })
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        h.url,
        { method: 'POST', headers: { ...mcpHeaders, authorization: `Bearer ${TOKEN}` } },
        (res) => {
          resolve(res.statusCode ?? 0)
          req.destroy()
        },
      )
      req.on('error', reject)
      req.write('{"jsonrpc":') // and never the rest
    })
    expect(status).toBe(408)
  })

  it('checks the token and the content type before the size', async () => {
    const h = await serve({ token: TOKEN, maxBodyBytes: 16 })
    expect((await post(h.url, mcpHeaders, initialize)).status).toBe(401)
    const text = { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' }
    expect((await post(h.url, text, initialize)).status).toBe(415)
  })
})

describe('MCP over stdio', () => {
  beforeAll(() => {
    ensureBuilt()
  }, 180_000)
  let home2: string
  let mcp: Client
  beforeAll(async () => {
    home2 = mkdtempSync(join(tmpdir(), 'nerve-mcp-stdio-'))
    mcp = new Client({ name: 'nerve-test', version: '1.0.0' })
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'mcp'],
        env: { ...(process.env as Record<string, string>), HOME: home2, NERVE_HOME: home2 },
        cwd: home2,
      }),
    )
  }, 60_000)
  afterAll(async () => {
    await mcp.close()
    rmSync(home2, { recursive: true, force: true })
  })

  it('takes a tool argument past the SDK’s 10 MiB buffer', async () => {
    const big = 'x'.repeat(11 * 1024 * 1024)
    const r = await mcp.callTool({ name: 'nerve_execute', arguments: { nodeId: 'sh', input: big } })
    expect((r.content as { text: string }[])[0]!.text).toMatch(/^UnknownNode at \/nodeId/)
  }, 60_000)

  it('answers a line over its bound with an error for that request, and keeps serving', async () => {
    const huge = 'x'.repeat(17 * 1024 * 1024)
    await expect(
      mcp.callTool({ name: 'nerve_execute', arguments: { nodeId: 'sh', input: huge } }),
    ).rejects.toThrow(/-32600: a line of \d+ bytes is over the limit of 16777216 bytes/)
    expect((await mcp.listTools()).tools).toHaveLength(19)
  }, 60_000)
})

describe('nerve mcp --http', () => {
  beforeAll(() => {
    ensureBuilt()
  }, 180_000)

  it('generates a token into a file of its own in NERVE_HOME, names the file, never prints the token, and serves only the client that presents it', async () => {
    const home3 = mkdtempSync(join(tmpdir(), 'nerve-mcp-http-'))
    const { NERVE_TOKEN: _, ...withoutToken } = process.env
    const child = spawn(process.execPath, [bin, 'mcp', '--http', '127.0.0.1:0', '--json'], {
      env: { ...withoutToken, HOME: home3, NERVE_HOME: home3 },
      cwd: home3,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      let stderr = ''
      let stdout = ''
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
      await expect.poll(() => stdout, { timeout: 20_000 }).toMatch(/\n$/)
      const said = JSON.parse(stdout) as { url: string; tokenFile: string }
      const port = new URL(said.url).port
      expect(said.tokenFile).toBe(join(home3, `mcp-${port}.token`))
      expect(statSync(said.tokenFile).mode & 0o777).toBe(0o600)
      const token = readFileSync(said.tokenFile, 'utf8').trim()
      await expect.poll(() => stderr, { timeout: 5000 }).toContain(said.tokenFile)
      expect(stderr).toContain(`serving ${said.url}`)
      expect(stderr + stdout).not.toContain(token)
      expect((await post(said.url, mcpHeaders, initialize)).status).toBe(401)
      const mcp = new Client({ name: 'owner', version: '1.0.0' })
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(said.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      )
      expect((await mcp.listTools()).tools).toHaveLength(19)
      await mcp.close()
    } finally {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
      rmSync(home3, { recursive: true, force: true })
    }
  }, 60_000)
})
