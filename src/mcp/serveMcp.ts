/**
 * Where the MCP server listens: standard input and output (what MCP clients
 * spawn), or Streamable HTTP at `POST /mcp` — stateless, one server per
 * request, on loopback unless a token guards it.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { NerveClient } from '../client/index.js'
import { bearerToken, isLoopback, ServerStartError, tokenMatches } from '../server/index.js'
import { createMcpServer } from './createMcpServer.js'

/**
 * Serves MCP on standard input and output until the input ends.
 *
 * @category mcp
 */
export const serveMcpStdio = async (client: NerveClient): Promise<void> => {
  const server = createMcpServer(client)
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve))
  await server.connect(transport)
  process.stdin.once('end', () => void server.close())
  await closed
}

/** @category mcp */
export interface McpHttpOptions {
  /** Default `127.0.0.1`; any other address needs `token`. */
  readonly host?: string
  /** Default 0: a free port. */
  readonly port?: number
  /** When given, every request must carry `Authorization: Bearer <token>`. */
  readonly token?: string
}

/** @category mcp */
export interface McpHttpHandle {
  /** `http://host:port/mcp` */
  readonly url: string
  close(): Promise<void>
}

const reply = (res: ServerResponse, status: number, message: string): void => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

const body = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
}

/**
 * Serves MCP over Streamable HTTP at `POST /mcp` until `close()`.
 *
 * @category mcp
 */
export const serveMcpHttp = async (
  client: NerveClient,
  options: McpHttpOptions = {},
): Promise<McpHttpHandle> => {
  const host = options.host ?? '127.0.0.1'
  const token = options.token
  if (!isLoopback(host) && token === undefined) {
    throw new ServerStartError('TokenRequired', host, `serving MCP on ${host} needs a token`)
  }
  const refusal = (req: IncomingMessage): readonly [number, string] | undefined => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return [404, 'not found']
    if (token !== undefined && !tokenMatches(token, bearerToken(req.headers.authorization))) {
      return [401, 'missing or wrong bearer token']
    }
    if (req.method !== 'POST') return [405, 'only POST: this server keeps no sessions']
    return undefined
  }
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = refusal(req)
    if (refused !== undefined) {
      reply(res, ...refused)
      return
    }
    let parsed: unknown
    try {
      parsed = await body(req)
    } catch {
      reply(res, 400, 'the body is not JSON')
      return
    }
    const server = createMcpServer(client)
    const transport = new StreamableHTTPServerTransport() // no session ids: stateless
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(req, res, parsed)
  }
  const http = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) reply(res, 500, (e as Error).message)
    })
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port ?? 0, host, resolve)
  })
  const { port } = http.address() as AddressInfo
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => {
          resolve()
        })
      }),
  }
}
