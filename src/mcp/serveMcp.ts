/**
 * Where the MCP server listens: standard input and output (what MCP clients
 * spawn), or Streamable HTTP at `POST /mcp` — stateless, one server per
 * request. Over HTTP it keeps the daemon's promises: a strong token always
 * (generated into an owner-only file when none is given), a loopback `Host`
 * and no foreign `Origin` (a web page must not reach it by DNS rebinding),
 * checked before the body is read, and a bounded body.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { mkdir, readFile, unlink } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { PassThrough } from 'node:stream'
import type { NerveClient } from '../client/index.js'
import { DEFAULT_MAX_LINE_BYTES, defaultDaemonDir, LineReader } from '../client/index.js'
// The listener guard the daemon's own listeners use (token, Host and Origin checks), not the engine.
import { boundNames, browserRefusal, isLoopback } from '../server/transport/origin.js'
import { ensureSocketDir } from '../server/transport/socketFile.js'
import { ServerStartError } from '../server/transport/ServerError.js'
import {
  bearerToken,
  checkToken,
  generateToken,
  tokenMatches,
  writeTokenFile,
} from '../server/transport/token.js'
import { createMcpServer } from './createMcpServer.js'

/** @category mcp */
export interface McpStdioOptions {
  /** The longest line taken; a longer one is answered with an error. 16 MiB by default. */
  readonly maxLineBytes?: number
  readonly stdin?: NodeJS.ReadableStream
  readonly stdout?: NodeJS.WritableStream
}

/** A JSON-RPC id at the start (`{"jsonrpc":"2.0","id":…`) or at the end (`…,"id":…}`) of a line. */
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`)
const TAIL_ID = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*\}\s*$`)

/**
 * The id of a request line that was too long to read, from its first and
 * last bytes, when it can be told: the SDK's clients write the id last.
 */
const idOf = (ends: { readonly head: string; readonly tail: string }): string | number | null => {
  const m = HEAD_ID.exec(ends.head) ?? TAIL_ID.exec(ends.tail)
  return m === null ? null : (JSON.parse(m[1]!) as string | number)
}

/**
 * Serves MCP on standard input and output until the input ends. A line
 * longer than `maxLineBytes` is not handed to the SDK (whose buffer would
 * give up and end the server): it is answered with an `InvalidRequest`
 * error for that request, and the server goes on. When stdin ends, the
 * requests read by then are answered before the server closes.
 *
 * @category mcp
 */
export const serveMcpStdio = async (
  client: NerveClient,
  options: McpStdioOptions = {},
): Promise<void> => {
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  const lines = new PassThrough()
  const server = createMcpServer(client)
  // Only whole lines within the bound reach the SDK, so its own buffer never overflows.
  const transport = new StdioServerTransport(lines, stdout as never, { maxBufferSize: max + 1 })
  const reader = new LineReader(max, {
    line: (line) => {
      lines.write(`${line}\n`)
    },
    oversize: (bytes, ends) => {
      const message = `a line of ${bytes} bytes is over the limit of ${max} bytes`
      process.stderr.write(`nerve mcp: ${message}\n`)
      if (/"method"\s*:\s*"notifications\//.test(ends.head)) return
      stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: idOf(ends), error: { code: -32600, message } })}\n`,
      )
    },
  })
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve))
  await server.connect(transport)
  // Requests read and not answered yet: when stdin ends, the server closes once they are.
  const open = new Set<unknown>()
  let ended = false
  const closeWhenAnswered = (): void => {
    if (ended && open.size === 0) void server.close()
  }
  const received = transport.onmessage
  transport.onmessage = (message) => {
    if ('method' in message && 'id' in message) open.add(message.id)
    received?.(message)
  }
  const send = transport.send.bind(transport)
  transport.send = async (message) => {
    await send(message)
    if (!('method' in message) && 'id' in message && open.delete(message.id)) closeWhenAnswered()
  }
  stdin.on('data', (chunk: Buffer | string) => {
    reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  })
  stdin.once('end', () => {
    // The last lines reach the SDK on a later turn: count them first.
    setImmediate(() => {
      ended = true
      closeWhenAnswered()
    })
  })
  await closed
}

/** @category mcp */
export interface McpHttpOptions {
  /** Default `127.0.0.1`. */
  readonly host?: string
  /** Default 0: a free port. */
  readonly port?: number
  /**
   * The token every request must carry as `Authorization: Bearer <token>`,
   * strong enough for `checkToken` of `nerve-agents/server` (16 characters
   * and about 80 bits at least); one is generated into `tokenFile` when none
   * is given.
   */
  readonly token?: string
  /**
   * Where a generated token is written (mode 0600); by default
   * `mcp-<port>.token` in {@link defaultDaemonDir}, one file per server.
   */
  readonly tokenFile?: string
  /** More host names the `Host` header may carry, beside the loopback names and the bound address. */
  readonly allowedHosts?: readonly string[]
  /** The largest request body taken (413 past it); 16 MiB by default. */
  readonly maxBodyBytes?: number
  /** Milliseconds a whole request may take to arrive (then 408), a client with the token too; 60 s by default. */
  readonly requestTimeoutMs?: number
}

/** @category mcp */
export interface McpHttpHandle {
  /** `http://host:port/mcp` */
  readonly url: string
  /** The token clients present. */
  readonly token: string
  /** The file a generated token was written to (removed on close, if it still holds this token). */
  readonly tokenFile: string | undefined
  close(): Promise<void>
}

const reply = (res: ServerResponse, status: number, message: string): void => {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

/** The body, or `undefined` once it passed `max` bytes (then it is no longer read). */
const body = (req: IncomingMessage, max: number): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let bytes = 0
    const onData = (c: Buffer): void => {
      bytes += c.length
      if (bytes > max) {
        req.off('data', onData)
        req.pause()
        resolve(undefined)
      } else chunks.push(c)
    }
    req.on('data', onData)
    req.once('end', () => {
      resolve(Buffer.concat(chunks))
    })
    req.once('error', reject)
  })

/**
 * Serves MCP over Streamable HTTP at `POST /mcp` until `close()`. Each
 * request is checked, in this order and before its body is read: the path
 * (404), `Host` and `Origin` (403), the bearer token (401), the method
 * (405), the content type (415), the declared length (413); the body is
 * then read up to `maxBodyBytes` (413 past it).
 *
 * @category mcp
 */
export const serveMcpHttp = async (
  client: NerveClient,
  options: McpHttpOptions = {},
): Promise<McpHttpHandle> => {
  const host = options.host ?? '127.0.0.1'
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_LINE_BYTES
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new ServerStartError(
      'BadOption',
      'maxBodyBytes',
      `maxBodyBytes must be a positive integer, got ${maxBodyBytes}`,
    )
  }
  if (options.token !== undefined) checkToken(options.token, 'serveMcpHttp')
  else if (!isLoopback(host) && options.tokenFile === undefined) {
    throw new ServerStartError(
      'TokenRequired',
      host,
      `serving MCP on ${host} is reachable from other machines: give a token (or a tokenFile to generate one into)`,
    )
  }
  const token = options.token ?? generateToken()
  const hosts = [...boundNames(host), ...(options.allowedHosts ?? [])]

  const refusal = (req: IncomingMessage): readonly [number, string] | undefined => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return [404, 'not found']
    const forbidden = browserRefusal(req.headers, hosts)
    if (forbidden !== undefined) return [403, forbidden.message]
    if (!tokenMatches(token, bearerToken(req.headers.authorization))) {
      return [401, 'missing or wrong bearer token']
    }
    if (req.method !== 'POST') return [405, 'only POST: this server keeps no sessions']
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
    if (type !== 'application/json') return [415, 'the body must be application/json']
    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) {
      return [413, `the body is over the limit of ${maxBodyBytes} bytes`]
    }
    return undefined
  }
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = refusal(req)
    if (refused !== undefined) {
      reply(res, ...refused)
      return
    }
    const raw = await body(req, maxBodyBytes)
    if (raw === undefined) {
      reply(res, 413, `the body is over the limit of ${maxBodyBytes} bytes`)
      return
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(raw.toString('utf8')) as unknown
    } catch {
      reply(res, 400, 'the body is not JSON')
      return
    }
    const names = [
      'localhost',
      '127.0.0.1',
      '[::1]',
      ...hosts.map((h) => (h.includes(':') ? `[${h}]` : h)),
    ]
    const server = createMcpServer(client)
    // No session ids: stateless. The SDK's own Host/Origin checks stay on behind ours.
    const transport = new StreamableHTTPServerTransport({
      enableDnsRebindingProtection: true,
      allowedHosts: names.map((n) => `${n}:${port}`),
      allowedOrigins: names.map((n) => `http://${n}:${port}`),
      maxRequestBodySize: maxBodyBytes,
    })
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(req, res, parsed)
  }
  const requestTimeout = options.requestTimeoutMs ?? 60_000
  // A client that has not sent its headers within a few seconds, or its body in time, is let go.
  const http = createServer(
    {
      headersTimeout: Math.min(5000, requestTimeout),
      requestTimeout,
      connectionsCheckingInterval: Math.min(1000, requestTimeout / 2),
    },
    (req, res) => {
      handle(req, res).catch((e: unknown) => {
        if (!res.headersSent) reply(res, 500, (e as Error).message)
      })
    },
  )
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port ?? 0, host, resolve)
  })
  const { port } = http.address() as AddressInfo
  // Each server its own file: another one in the same directory neither overwrites nor removes it.
  const tokenFile =
    options.token === undefined
      ? (options.tokenFile ?? join(defaultDaemonDir(), `mcp-${port}.token`))
      : undefined
  try {
    if (tokenFile !== undefined) {
      // The default directory is ours alone; a file the caller named goes where it said.
      if (options.tokenFile === undefined) await ensureSocketDir(tokenFile)
      else await mkdir(dirname(tokenFile), { recursive: true, mode: 0o700 })
      await writeTokenFile(tokenFile, token)
    }
  } catch (e) {
    http.close()
    throw e
  }
  /** Removes the token file, unless another server has written its own token there since. */
  const removeTokenFile = async (file: string): Promise<void> => {
    const held = await readFile(file, 'utf8').catch(() => undefined)
    if (held?.trim() === token) await unlink(file).catch(() => undefined)
  }
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    token,
    tokenFile,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => {
          resolve()
        })
      }).then(() => (tokenFile === undefined ? undefined : removeTokenFile(tokenFile))),
  }
}
