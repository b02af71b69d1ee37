import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

/**
 * An MCP server written with the official SDK's server, for tests and the
 * bench: over stdio (`node server.mjs`) or Streamable HTTP (`node server.mjs
 * http`, which prints its port and wants the header `x-token: secret`).
 *
 * Its tools: `add` (a + b), `slow` (answers `tag` after `ms`, with the most
 * calls it had in flight at once), `fail` (an error result), `crash` (says so
 * on stderr and exits mid-call), `hang` (waits until the call is cancelled,
 * then writes `cancelled` to the file `$MARK`; it writes `started` there
 * first). At start it appends its pid to the file `$PIDS`, if set. Their
 * annotations: `add` is read-only, `fail` only additive
 * (`destructiveHint: false`), `crash` destructive; `slow` and `hang` have none.
 */
const SCRIPT = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import * as z from 'zod'
import { appendFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { randomUUID } from 'node:crypto'

if (process.env.PIDS) appendFileSync(process.env.PIDS, process.pid + '\\n')
const text = (t) => ({ content: [{ type: 'text', text: String(t) }] })
let inFlight = 0
let peak = 0
const makeServer = () => {
const server = new McpServer({ name: 'test-server', version: '1.0.0' })
server.registerTool('add', { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() },
  annotations: { readOnlyHint: true } },
  async ({ a, b }) => text(a + b))
server.registerTool('slow', { description: 'Answers its tag after ms.', inputSchema: { ms: z.number(), tag: z.string() } },
  async ({ ms, tag }) => {
    peak = Math.max(peak, ++inFlight)
    await new Promise((r) => setTimeout(r, ms))
    inFlight--
    return text(tag + ':' + peak)
  })
server.registerTool('fail', { description: 'Always fails.', inputSchema: {},
  annotations: { readOnlyHint: false, destructiveHint: false } },
  async () => ({ isError: true, content: [{ type: 'text', text: 'it went wrong' }] }))
server.registerTool('crash', { description: 'Exits mid-call.', inputSchema: {},
  annotations: { destructiveHint: true } }, async () => {
  process.stderr.write('about to crash\\n', () => process.exit(3))
  return new Promise(() => {})
})
server.registerTool('hang', { description: 'Waits until cancelled.', inputSchema: {} }, (_args, extra) => {
  writeFileSync(process.env.MARK, 'started')
  return new Promise((resolve) => {
    extra.signal.addEventListener('abort', () => {
      writeFileSync(process.env.MARK, 'cancelled')
      resolve(text('stopped'))
    })
  })
})
return server
}

if (process.argv[2] === 'http') {
  // One server and transport per session, as a stateful Streamable HTTP server keeps them.
  const sessions = new Map()
  const http = createServer(async (req, res) => {
    if (req.headers['x-token'] !== 'secret') {
      res.writeHead(401).end('no token')
      return
    }
    let transport = sessions.get(req.headers['mcp-session-id'])
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      })
      await makeServer().connect(transport)
    }
    await transport.handleRequest(req, res)
  })
  http.listen(0, '127.0.0.1', () => console.log(http.address().port))
} else {
  await makeServer().connect(new StdioServerTransport())
}
`

/** Where the scripts are written: below the repository, so that the SDK and zod resolve. */
const cache = join(import.meta.dirname, '../../../node_modules/.cache')

/** A directory holding the server's script (`script`), removed by `remove`. */
export const writeMcpServer = async (): Promise<{
  readonly dir: string
  readonly script: string
  remove(): Promise<void>
}> => {
  await mkdir(cache, { recursive: true })
  const dir = await mkdtemp(join(cache, 'nerve-mcp-'))
  const script = join(dir, 'server.mjs')
  await writeFile(script, SCRIPT)
  return { dir, script, remove: () => rm(dir, { recursive: true, force: true }) }
}

/** The server over Streamable HTTP: its URL once it listens, and its process. */
export const startHttpMcpServer = async (
  script: string,
  env: Readonly<Record<string, string>> = {},
): Promise<{ readonly url: string; readonly child: ChildProcess }> => {
  const child = spawn(process.execPath, [script, 'http'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout })
  const port = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => {
      reject(new Error(`the HTTP MCP server exited (${String(code)}) before it listened`))
    })
  })
  return { url: `http://127.0.0.1:${port}/mcp`, child }
}
