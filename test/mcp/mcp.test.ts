/**
 * The MCP server as MCP clients meet it: the SDK's own `Client` spawning the
 * built `nerve mcp` over stdio (embedded, and against a real daemon), and
 * over Streamable HTTP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { serveMcpHttp } from '../../src/mcp/index.js'
import {
  createEngine,
  standaloneClient,
  startServer,
  type ServerHandle,
} from '../../src/server/index.js'
import { bin, nerve, testDir } from '../cli/run.js'

interface ToolResult {
  readonly isError?: boolean
  readonly content: readonly { readonly type: string; readonly text?: string }[]
}

const textOf = (r: unknown): string => (r as ToolResult).content.map((c) => c.text ?? '').join('')
const jsonOf = (r: unknown): unknown => JSON.parse(textOf(r))

const call = async (c: Client, name: string, args: Record<string, unknown>): Promise<unknown> => {
  const r = await c.callTool({ name, arguments: args })
  if ((r as ToolResult).isError === true) throw new Error(`${name} failed: ${textOf(r)}`)
  return jsonOf(r)
}

const dir = testDir('mcp')
const env = (): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  HOME: dir,
  XDG_RUNTIME_DIR: dir,
})

const spawnMcp = async (args: readonly string[] = []): Promise<Client> => {
  const client = new Client({ name: 'nerve-test', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', ...args],
      env: env(),
      cwd: dir, // where an embedded engine keeps histories
    }),
  )
  return client
}

describe('nerve mcp over stdio, embedded', () => {
  let mcp: Client
  beforeAll(async () => {
    mcp = await spawnMcp()
  }, 60_000)
  afterAll(async () => {
    await mcp.close()
  })

  it("lists the tools, their arguments named as the engine's parameters", async () => {
    const { tools } = await mcp.listTools()
    const args = Object.fromEntries(
      tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {}).sort()]),
    )
    expect(args).toEqual({
      nerve_create_node: ['kind', 'nodeId', 'options', 'sessionId'],
      nerve_execute: ['input', 'nodeId', 'parser', 'sessionId', 'timeout'],
      nerve_list_nodes: ['sessionId'],
      nerve_stop_node: ['nodeId', 'sessionId'],
      nerve_fork_node: ['at', 'sessionId', 'sourceId', 'targetId'],
      nerve_run_graph: ['graph', 'input', 'sessionId'],
      nerve_get_history: ['limit', 'nodeId', 'sessionId'],
      nerve_start_network: ['network', 'networkId', 'root', 'sessionId'],
      nerve_send_to_network: ['message', 'networkId', 'nodeId'],
      nerve_network_status: ['networkId'],
      nerve_list_approvals: ['networkId', 'nodeId', 'sessionId'],
      nerve_decide_approval: ['approve', 'arguments', 'networkId', 'note', 'requestId'],
      nerve_chat_create: ['agent', 'chatId', 'graph', 'output', 'sessionId', 'step'],
      nerve_chat_send: ['chatId', 'message', 'sessionId'],
      nerve_chat_retry: ['at', 'chatId', 'sessionId'],
      nerve_chat_edit: ['at', 'chatId', 'message', 'sessionId'],
      nerve_chat_branches: ['chatId', 'sessionId'],
      nerve_chat_switch: ['chatId', 'head', 'sessionId'],
      nerve_stop_network: ['networkId'],
    })
    expect(tools.find((t) => t.name === 'nerve_create_node')?.inputSchema.required).toEqual([
      'nodeId',
      'kind',
    ])
  })

  it('creates a bash node, executes echo, forks it, lists both, stops one', async () => {
    expect(await call(mcp, 'nerve_create_node', { nodeId: 'sh', kind: 'bash' })).toMatchObject({
      id: 'sh',
      type: 'bash',
    })
    expect(await call(mcp, 'nerve_execute', { nodeId: 'sh', input: 'echo hi' })).toMatchObject({
      stdout: 'hi\n',
    })
    expect(await call(mcp, 'nerve_fork_node', { sourceId: 'sh', targetId: 'sh2' })).toMatchObject({
      nodeId: 'sh2',
      forkedFrom: 'sh',
      nodeType: 'bash',
    })
    expect(await call(mcp, 'nerve_execute', { nodeId: 'sh2', input: 'echo ho' })).toMatchObject({
      stdout: 'ho\n',
    })
    const listed = (await call(mcp, 'nerve_list_nodes', {})) as { nodes: { id: string }[] }
    expect(listed.nodes.map((n) => n.id).sort()).toEqual(['sh', 'sh2'])
    expect(await call(mcp, 'nerve_stop_node', { nodeId: 'sh2' })).toMatchObject({
      id: 'sh2',
      state: 'stopped',
    })
  })

  it('answers a failing call with isError naming the tag, and keeps serving', async () => {
    const unknown = await mcp.callTool({
      name: 'nerve_execute',
      arguments: { nodeId: 'nobody', input: 'true' },
    })
    expect(unknown.isError).toBe(true)
    expect(textOf(unknown)).toMatch(/^UnknownNode/)
    const taken = await mcp.callTool({
      name: 'nerve_create_node',
      arguments: { nodeId: 'sh', kind: 'bash' },
    })
    expect(textOf(taken)).toMatch(/^NameTaken/)
    const badKind = await mcp.callTool({
      name: 'nerve_create_node',
      arguments: { nodeId: 'x', kind: 'teapot' },
    })
    expect(badKind.isError).toBe(true)
    const badGraph = await mcp.callTool({
      name: 'nerve_run_graph',
      arguments: { graph: { id: 'g', steps: [{ id: 'a', node: 'missing' }] } },
    })
    expect(badGraph.isError).toBe(true)
    expect(textOf(badGraph)).toMatch(/^GraphFileInvalid at \/graph\/steps\/0/)
    expect(await call(mcp, 'nerve_list_nodes', {})).toHaveProperty('nodes')
  })

  it('runs a graph file value and answers its results', async () => {
    const graph = {
      id: 'two',
      nodes: { sh: { kind: 'bash' } },
      steps: [
        { id: 'a', node: 'sh', input: 'echo a' },
        { id: 'b', node: 'sh', input: 'echo b', dependsOn: ['a'] },
      ],
    }
    const run = (await call(mcp, 'nerve_run_graph', { graph })) as {
      state: string
      results: Record<string, { stdout: string }>
    }
    expect(run.state).toBe('completed')
    expect(run.results.b?.stdout).toBe('b\n')
  })

  it("reads a terminal node's history as a tool and as a resource", async () => {
    await call(mcp, 'nerve_create_node', {
      nodeId: 'tty',
      kind: 'pty',
      options: { command: 'bash', args: ['--norc', '--noprofile'], env: { PS1: '$ ' } },
    })
    await call(mcp, 'nerve_execute', { nodeId: 'tty', input: 'echo from-tty' })
    const h = (await call(mcp, 'nerve_get_history', { nodeId: 'tty' })) as {
      records: { op: string }[]
    }
    expect(h.records.map((r) => r.op)).toContain('send_stream')
    const { resources } = await mcp.listResources()
    expect(resources.map((r) => r.uri)).toContain('nerve://nodes/tty/history')
    const read = await mcp.readResource({ uri: 'nerve://nodes/tty/history' })
    const content = read.contents[0] as { text: string; mimeType: string }
    expect(content.mimeType).toBe('application/json')
    expect(content.text).toContain('echo from-tty')
  }, 30_000)

  it('starts a network, sends to it, refuses an unknown approval, and stops it when it is done', async () => {
    const network = {
      id: 'pair',
      nodes: [{ id: 'writer', provider: { type: 'mock', script: ['A line.\nDONE'] } }],
      edges: [],
    }
    expect(await call(mcp, 'nerve_start_network', { network, root: tmpdir() })).toMatchObject({
      networkId: 'pair',
      state: 'running',
    })
    await call(mcp, 'nerve_send_to_network', { networkId: 'pair', nodeId: 'writer', message: 'go' })
    const refused = await mcp.callTool({
      name: 'nerve_decide_approval',
      arguments: { networkId: 'pair', requestId: 'approval-9', approve: true },
    })
    expect(refused.isError).toBe(true)
    expect((refused.content as { text: string }[])[0]!.text).toMatch(
      /^UnknownApproval at \/requestId: /,
    )
    expect(await call(mcp, 'nerve_list_approvals', { networkId: 'pair' })).toEqual({ pending: [] })
    expect(await call(mcp, 'nerve_stop_network', { networkId: 'pair' })).toMatchObject({
      outcome: 'done',
      done: ['writer'],
    })
    expect(await call(mcp, 'nerve_network_status', { networkId: 'pair' })).toMatchObject({
      state: 'finished',
    })
  }, 30_000)
})

describe('nerve mcp against a running daemon', () => {
  const socket = join(dir, 'd.sock')
  let server: ServerHandle
  beforeAll(async () => {
    server = await startServer({
      engine: createEngine({ history: { root: dir } }),
      socket,
      pidFile: false,
    })
  })
  afterAll(async () => {
    await server.close()
  })

  it('answers every request read before stdin ended, then exits', async () => {
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'pipe', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]
    const r = await nerve(
      ['mcp', '--socket', socket],
      { HOME: dir, XDG_RUNTIME_DIR: dir },
      lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
      dir,
    )
    expect(r.code, r.stderr).toBe(0)
    const answers = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; result?: { tools?: unknown[] } })
    expect(answers.map((a) => a.id)).toEqual([1, 2])
    expect(answers[1]!.result!.tools!.length).toBeGreaterThan(5)
  }, 30_000)

  it("creates nodes on the daemon, which the daemon's other clients see", async () => {
    const mcp = await spawnMcp(['--socket', socket])
    try {
      await call(mcp, 'nerve_create_node', { nodeId: 'remote', kind: 'bash' })
      const sdk = await NerveClient.connect(socket)
      try {
        expect((await sdk.listNodes()).map((n) => n.id)).toContain('remote')
        expect(await sdk.node('remote').execute('echo via-sdk')).toMatchObject({
          stdout: 'via-sdk\n',
        })
      } finally {
        await sdk.close()
      }
    } finally {
      await mcp.close()
    }
  }, 60_000)
})

describe('MCP over Streamable HTTP', () => {
  it('serves the tools at POST /mcp', async () => {
    const nerve = await standaloneClient({ history: false })
    const http = await serveMcpHttp(nerve, { tokenFile: join(dir, 'mcp.token') })
    const mcp = new Client({ name: 'nerve-test', version: '1.0.0' })
    try {
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(http.url), {
          requestInit: { headers: { authorization: `Bearer ${http.token}` } },
        }),
      )
      expect((await mcp.listTools()).tools).toHaveLength(19)
      await call(mcp, 'nerve_create_node', { nodeId: 'h', kind: 'bash' })
      expect((await nerve.listNodes()).map((n) => n.id)).toEqual(['h'])
    } finally {
      await mcp.close()
      await http.close()
      await nerve.close()
    }
  })

  it('refuses a client without the token, and a non-loopback address without one', async () => {
    const nerve = await standaloneClient({ history: false })
    const http = await serveMcpHttp(nerve, { token: 'secret-Mv3Tn8Qc2Xr6Jd' })
    try {
      const stranger = new Client({ name: 'stranger', version: '1.0.0' })
      await expect(
        stranger.connect(new StreamableHTTPClientTransport(new URL(http.url))),
      ).rejects.toThrow()
      const friend = new Client({ name: 'friend', version: '1.0.0' })
      await friend.connect(
        new StreamableHTTPClientTransport(new URL(http.url), {
          requestInit: { headers: { authorization: 'Bearer secret-Mv3Tn8Qc2Xr6Jd' } },
        }),
      )
      expect((await friend.listTools()).tools).toHaveLength(19)
      await friend.close()
      await expect(serveMcpHttp(nerve, { host: '0.0.0.0' })).rejects.toMatchObject({
        reason: 'TokenRequired',
      })
    } finally {
      await http.close()
      await nerve.close()
    }
  })
})
