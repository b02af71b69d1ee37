/**
 * The MCP face: Nerve's commands as MCP tools and node histories as MCP
 * resources, over any {@link NerveClient} (in-process or a daemon). Each tool
 * is one engine command: its arguments are the command's parameters under
 * the same names, checked by the engine's own codecs; a failure is a tool
 * result with `isError`, never a dead server.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { NerveClient } from '../client/index.js'
import { nodeKinds, type Method } from '../server/index.js'

const sessionId = z.string().optional().describe('the session (default: the default session)')
const nodeId = z.string().describe('the node, by name')
const networkId = z.string().describe('the network, by id')

/** One tool: its name, what it does, its arguments, and the command it calls. */
interface ToolSpec {
  readonly name: string
  readonly description: string
  readonly input: z.ZodRawShape
  readonly run: (client: NerveClient, args: Record<string, unknown>) => Promise<unknown>
}

const command =
  (method: Method) =>
  (client: NerveClient, args: Record<string, unknown>): Promise<unknown> =>
    client.call(method, args)

const tools: readonly ToolSpec[] = [
  {
    name: 'nerve_create_node',
    description: 'Create a node (bash, pty, tmux, wezterm, claude, llm or graph) and start it.',
    input: {
      nodeId,
      kind: z.enum(nodeKinds),
      options: z.record(z.string(), z.unknown()).optional().describe("the kind's options"),
      sessionId,
    },
    run: command('CREATE_NODE'),
  },
  {
    name: 'nerve_execute',
    description: "Send input to a node and wait for its answer (parsed by the node's parser).",
    input: {
      nodeId,
      input: z.unknown().describe('what to send: a command, a prompt, or a value'),
      parser: z.string().optional().describe('none, claude, gemini or codex'),
      timeout: z.number().positive().optional().describe('milliseconds'),
      sessionId,
    },
    run: command('EXECUTE_INPUT'),
  },
  {
    name: 'nerve_list_nodes',
    description: 'List the nodes of a session with their kind and state.',
    input: { sessionId },
    run: command('LIST_NODES'),
  },
  {
    name: 'nerve_stop_node',
    description: 'Stop a node (its process and everything it started).',
    input: { nodeId, sessionId },
    run: command('STOP_NODE'),
  },
  {
    name: 'nerve_fork_node',
    description:
      'Fork a node: an LLM node shares its conversation, a terminal node respawns its program.',
    input: {
      sourceId: z.string().describe('the node to fork'),
      targetId: z.string().describe('the name of the copy'),
      at: z.number().int().nonnegative().optional().describe('fork at this point of its history'),
      sessionId,
    },
    run: command('FORK_NODE'),
  },
  {
    name: 'nerve_run_graph',
    description: 'Run a graph file (a JSON value) and wait for its results and trace.',
    input: {
      graph: z.record(z.string(), z.unknown()).describe('a graph-file value'),
      input: z.unknown().optional().describe("the graph's input"),
      sessionId,
    },
    run: async (client, args) => {
      const { graph, ...rest } = args
      const run = await client.runGraph(graph, rest)
      return run.result()
    },
  },
  {
    name: 'nerve_get_history',
    description: "Read a node's history (sends, answers, reads, writes), oldest first.",
    input: {
      nodeId,
      limit: z.number().int().nonnegative().optional().describe('at most this many, the newest'),
      sessionId,
    },
    run: command('GET_HISTORY'),
  },
  {
    name: 'nerve_start_network',
    description:
      'Start a live agent network from a network-file value; it runs until stopped (nerve_stop_network).',
    input: {
      network: z.record(z.string(), z.unknown()).describe('a network-file value'),
      networkId: z.string().optional().describe("its id (default: the file's)"),
      root: z.string().optional().describe("the nodes' workspace directory"),
      sessionId,
    },
    run: command('CREATE_NETWORK'),
  },
  {
    name: 'nerve_send_to_network',
    description: 'Send a message to a node of a running network.',
    input: { networkId, nodeId, message: z.string().describe('what to send') },
    run: command('SEND_ENVELOPE'),
  },
  {
    name: 'nerve_network_status',
    description:
      "A network's state, its nodes, the nodes that are done, its halts and the approvals waiting.",
    input: { networkId },
    run: command('GET_NETWORK'),
  },
  {
    name: 'nerve_decide_approval',
    description:
      'Approve or deny an approval request of a network (nerve_network_status lists them).',
    input: {
      networkId,
      requestId: z.string().describe('the request, by id'),
      approve: z.boolean().describe('true approves, false denies'),
      note: z.string().optional().describe('why, recorded with the decision'),
    },
    run: (client, { approve, ...args }) => client.call(approve === true ? 'APPROVE' : 'DENY', args),
  },
  {
    name: 'nerve_stop_network',
    description: 'Wait until nothing is in flight in a network, then end it; answers how it ended.',
    input: { networkId },
    run: command('STOP_NETWORK'),
  },
]

const text = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
})

/** A failure as the one line the CLI prints: its tag, where, and what. */
const failure = (e: unknown): CallToolResult => {
  const err = e as { tag?: unknown; _tag?: unknown; path?: unknown; message?: unknown }
  const tag = [err.tag, err._tag].find((t) => typeof t === 'string') ?? 'Error'
  const where = typeof err.path === 'string' && err.path !== '' ? ` at ${err.path}` : ''
  const message = typeof err.message === 'string' ? err.message : String(e)
  return { isError: true, content: [{ type: 'text', text: `${tag}${where}: ${message}` }] }
}

const HISTORY = 'nerve://nodes/{nodeId}/history'

/**
 * An MCP server whose tools and resources call `client`. Connect it to a
 * transport (`StdioServerTransport`, `StreamableHTTPServerTransport`).
 *
 * @example
 * import assert from 'node:assert'
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js'
 * import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
 * import { createMcpServer } from 'nerve-agents/mcp'
 * import { standaloneClient } from 'nerve-agents/server'
 *
 * const nerve = await standaloneClient({ history: false })
 * const [serverSide, clientSide] = InMemoryTransport.createLinkedPair()
 * await createMcpServer(nerve).connect(serverSide)
 * const client = new Client({ name: 'example', version: '1.0.0' })
 * await client.connect(clientSide)
 * await client.callTool({ name: 'nerve_create_node', arguments: { nodeId: 'sh', kind: 'bash' } })
 * const listed = await client.callTool({ name: 'nerve_list_nodes', arguments: {} })
 * const { text } = (listed.content as { text: string }[])[0]!
 * assert.deepEqual(JSON.parse(text).nodes.map((n: { id: string }) => n.id), ['sh'])
 * await client.close()
 * await nerve.close()
 *
 * @category mcp
 */
export const createMcpServer = (client: NerveClient, version = '0.1.0'): McpServer => {
  const server = new McpServer({ name: 'nerve', version })
  for (const t of tools) {
    server.registerTool(
      t.name,
      { description: t.description, inputSchema: t.input },
      async (args: Record<string, unknown>) => {
        try {
          return text(await t.run(client, args))
        } catch (e) {
          return failure(e)
        }
      },
    )
  }
  server.registerResource(
    'history',
    new ResourceTemplate(HISTORY, {
      list: async () => ({
        resources: (await client.listNodes()).map((n) => ({
          uri: HISTORY.replace('{nodeId}', encodeURIComponent(n.id)),
          name: `${n.id} history`,
          mimeType: 'application/json',
        })),
      }),
    }),
    { description: "A node's history as JSON", mimeType: 'application/json' },
    async (uri, { nodeId }) => {
      const id = decodeURIComponent(String(nodeId))
      const entries = await client.call('GET_HISTORY', { nodeId: id })
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(entries) }],
      }
    },
  )
  return server
}
