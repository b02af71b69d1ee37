/**
 * The MCP face: Nerve's commands as MCP tools and node histories as MCP
 * resources, over any {@link NerveClient} (in-process or a daemon). Each tool
 * is one engine command: its arguments are the command's parameters under
 * the same names, and its input schema is the JSON Schema of the command's
 * params codec (`jsonSchemaOf`), so a command is spelled once;
 * the engine checks the arguments with that same codec. A failure is a tool
 * result with `isError`, never a dead server.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { NerveClient } from '../client/index.js'
import { errorText, taggedError } from '../errors.js'
import { jsonSchemaOf, paramsCodecs, type JsonSchema, type Method } from '../protocol/index.js'

/** What each argument means, where a tool does not say otherwise. */
const MEANING: Readonly<Record<string, string>> = {
  sessionId: 'the session (default: the default session)',
  nodeId: 'the node, by name',
  networkId: 'the network, by id',
}

/** One tool: its name, what it does, the command whose params it takes, and how it runs. */
interface ToolSpec {
  readonly name: string
  readonly description: string
  /** The command whose params codec gives the arguments. */
  readonly method: Method
  /** The params the tool offers (default: all of them). */
  readonly pick?: readonly string[]
  /** What an argument means, for the model reading the schema. */
  readonly meaning?: Readonly<Record<string, string>>
  /** Arguments of the tool's own, not the command's. */
  readonly extra?: { readonly required: Readonly<Record<string, JsonSchema>> }
  readonly run?: (client: NerveClient, args: Record<string, unknown>) => Promise<unknown>
}

const tools: readonly ToolSpec[] = [
  {
    name: 'nerve_create_node',
    description: 'Create a node of one of the kinds of the enum and start it.',
    method: 'CREATE_NODE',
    meaning: { options: "the kind's options", kind: 'the node kind' },
  },
  {
    name: 'nerve_execute',
    description: "Send input to a node and wait for its answer (parsed by the node's parser).",
    method: 'EXECUTE_INPUT',
    meaning: {
      input: 'what to send: a command, a prompt, or a value',
      parser: 'the parser, by name',
      timeout: 'milliseconds',
    },
  },
  {
    name: 'nerve_list_nodes',
    description: 'List the nodes of a session with their kind and state.',
    method: 'LIST_NODES',
  },
  {
    name: 'nerve_stop_node',
    description: 'Stop a node (its process and everything it started).',
    method: 'STOP_NODE',
  },
  {
    name: 'nerve_fork_node',
    description:
      'Fork a node: an LLM node shares its conversation, a terminal node respawns its program.',
    method: 'FORK_NODE',
    meaning: {
      sourceId: 'the node to fork',
      targetId: 'the name of the copy',
      at: 'fork at this point of its history',
    },
  },
  {
    name: 'nerve_run_graph',
    description: 'Run a graph file (a JSON value) and wait for its results and trace.',
    method: 'EXECUTE_GRAPH',
    pick: ['graph', 'input', 'sessionId'],
    meaning: { graph: 'a graph-file value', input: "the graph's input" },
    run: async (client, args) => {
      const { graph, ...rest } = args
      const run = await client.runGraph(graph, rest)
      return run.result()
    },
  },
  {
    name: 'nerve_get_history',
    description: "Read a node's history (sends, answers, reads, writes), oldest first.",
    method: 'GET_HISTORY',
    pick: ['nodeId', 'limit', 'sessionId'],
    meaning: { limit: 'at most this many, the newest' },
  },
  {
    name: 'nerve_start_network',
    description:
      'Start a live agent network from a network-file value; it runs until stopped (nerve_stop_network).',
    method: 'CREATE_NETWORK',
    meaning: {
      network: 'a network-file value',
      networkId: "its id (default: the file's)",
      root: "the nodes' workspace directory",
    },
  },
  {
    name: 'nerve_send_to_network',
    description: 'Send a message to a node of a running network.',
    method: 'SEND_ENVELOPE',
    pick: ['networkId', 'nodeId', 'message'],
    meaning: { message: 'what to send' },
  },
  {
    name: 'nerve_network_status',
    description:
      "A network's state, its nodes, the nodes that are done, its halts and the approvals waiting.",
    method: 'GET_NETWORK',
  },
  {
    name: 'nerve_list_approvals',
    description:
      "The approval requests waiting: CLI agents' permission prompts, tool calls, networks' actions.",
    method: 'LIST_APPROVALS',
    meaning: { nodeId: 'only those of this node', networkId: 'only those of this network' },
  },
  {
    name: 'nerve_decide_approval',
    description:
      'Approve or deny a waiting approval request, by its id (nerve_list_approvals lists them).',
    method: 'APPROVE',
    pick: ['requestId', 'networkId', 'note', 'arguments'],
    meaning: {
      requestId: 'the request, by id',
      networkId: "the request's network (optional)",
      note: 'why, recorded with the decision',
      arguments: "the tool call's arguments, edited (approve only)",
    },
    extra: {
      required: { approve: { type: 'boolean', description: 'true approves, false denies' } },
    },
    run: (client, { approve, arguments: edited, ...args }) =>
      approve === true
        ? client.call('APPROVE', { ...args, ...(edited !== undefined && { arguments: edited }) })
        : client.call('DENY', args),
  },
  {
    name: 'nerve_chat_create',
    description:
      'Open a chat: the one kept under chatId, or a new one on an agent (llm options) or a graph file.',
    method: 'CHAT_CREATE',
    meaning: {
      chatId: 'the chat, by name',
      agent: "the agent's llm options (provider, system, model, …)",
      graph: 'a graph-file value whose llm step answers',
      step: "the agent's step in the graph",
      output: "the answer's step, in a graph without an agent",
    },
  },
  {
    name: 'nerve_chat_send',
    description: "Send a message in a chat and wait for the answer (on the chat's current head).",
    method: 'CHAT_SEND',
    meaning: { chatId: 'the chat, by name', message: 'the message: text or content blocks' },
  },
  {
    name: 'nerve_chat_retry',
    description: 'A new answer to the last message of a chat, as a sibling branch.',
    method: 'CHAT_RETRY',
    meaning: { chatId: 'the chat, by name', at: 'a head (vertex id) to retry instead' },
  },
  {
    name: 'nerve_chat_edit',
    description: 'Change the last message of a chat and answer it, as a sibling branch.',
    method: 'CHAT_EDIT',
    meaning: { chatId: 'the chat, by name', message: 'the new message', at: 'a head to edit' },
  },
  {
    name: 'nerve_chat_branches',
    description: "A chat's tree: its heads, the current one, where each branch forked.",
    method: 'CHAT_BRANCHES',
    meaning: { chatId: 'the chat, by name' },
  },
  {
    name: 'nerve_chat_switch',
    description: 'Make another head of a chat the current one.',
    method: 'CHAT_SWITCH',
    meaning: { chatId: 'the chat, by name', head: 'the head, by vertex id' },
  },
  {
    name: 'nerve_stop_network',
    description: 'Wait until nothing is in flight in a network, then end it; answers how it ended.',
    method: 'STOP_NETWORK',
  },
]

/** The tool's input schema: its command's params schema, picked, described, with its own arguments. */
const inputSchema = (spec: ToolSpec): Tool['inputSchema'] => {
  const schema = jsonSchemaOf(paramsCodecs[spec.method]) as {
    readonly properties: Readonly<Record<string, JsonSchema>>
    readonly required?: readonly string[]
  }
  const offered = (k: string): boolean => spec.pick === undefined || spec.pick.includes(k)
  const described = (k: string, s: JsonSchema): JsonSchema => {
    const meaning = spec.meaning?.[k] ?? MEANING[k]
    return meaning === undefined ? s : { ...s, description: meaning }
  }
  const properties: Record<string, JsonSchema> = Object.fromEntries([
    ...Object.entries(schema.properties)
      .filter(([k]) => offered(k))
      .map(([k, s]): [string, JsonSchema] => [k, described(k, s)]),
    ...Object.entries(spec.extra?.required ?? {}),
  ])
  const required = [
    ...(schema.required ?? []).filter(offered),
    ...Object.keys(spec.extra?.required ?? {}),
  ]
  return {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: false,
  }
}

/**
 * The tools with `nerve_create_node`'s `kind` an enum of the kinds the
 * engine makes (its `LIST_KINDS`), each with its summary: the engine's own
 * kinds appear as the built-in ones do.
 */
const withKinds = async (client: NerveClient, listed: readonly Tool[]): Promise<Tool[]> => {
  const kinds = (await client.listKinds()).filter((k) => k.creatable)
  return listed.map((tool) => {
    if (tool.name !== 'nerve_create_node') return tool
    const properties = tool.inputSchema.properties as Record<string, JsonSchema>
    const kind = {
      ...properties.kind,
      enum: kinds.map((k) => k.kind),
      description: `the node kind: ${kinds.map((k) => `${k.kind} (${k.summary})`).join('; ')}`,
    }
    return { ...tool, inputSchema: { ...tool.inputSchema, properties: { ...properties, kind } } }
  })
}

const text = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
})

/** A failure as the one line the CLI prints (`errorText`): its tag, where, and what. */
const failure = (e: unknown): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: errorText(e) }],
})

/**
 * A tool call names a tool the server does not have.
 *
 * @category mcp
 */
export class UnknownTool extends taggedError('UnknownTool', 'notFound')<{ readonly tool: string }> {
  constructor(tool: string) {
    super(`no tool named ${tool}`, { tool })
  }
}

/**
 * A resource read names a URI the server does not serve.
 *
 * @category mcp
 */
export class UnknownResource extends taggedError('UnknownResource', 'notFound')<{
  readonly uri: string
}> {
  constructor(uri: string) {
    super(`no resource ${uri}`, { uri })
  }
}

const HISTORY = 'nerve://nodes/{nodeId}/history'
const HISTORY_URI = /^nerve:\/\/nodes\/([^/]+)\/history$/

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
// The low-level Server on purpose: the tools' schemas are JSON Schemas derived from the
// protocol's codecs, which McpServer (zod shapes only) cannot take.
// eslint-disable-next-line @typescript-eslint/no-deprecated
export const createMcpServer = (client: NerveClient, version = '0.1.0'): Server => {
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const server = new Server(
    { name: 'nerve', version },
    { capabilities: { tools: {}, resources: {} } },
  )
  const byName = new Map(tools.map((t) => [t.name, t]))
  const listed: Tool[] = tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: inputSchema(t),
  }))
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: await withKinds(client, listed),
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const spec = byName.get(request.params.name)
    if (spec === undefined) {
      return failure(new UnknownTool(request.params.name))
    }
    const args = request.params.arguments ?? {}
    try {
      return text(
        await (spec.run === undefined ? client.call(spec.method, args) : spec.run(client, args)),
      )
    } catch (e) {
      return failure(e)
    }
  })
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: HISTORY,
        name: 'history',
        description: "A node's history as JSON",
        mimeType: 'application/json',
      },
    ],
  }))
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await client.listNodes()).map((n) => ({
      uri: HISTORY.replace('{nodeId}', encodeURIComponent(n.id)),
      name: `${n.id} history`,
      mimeType: 'application/json',
    })),
  }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const m = HISTORY_URI.exec(request.params.uri)
    if (m === null) throw new UnknownResource(request.params.uri)
    const entries = await client.call('GET_HISTORY', { nodeId: decodeURIComponent(m[1]!) })
    return {
      contents: [
        { uri: request.params.uri, mimeType: 'application/json', text: JSON.stringify(entries) },
      ],
    }
  })
  return server
}
