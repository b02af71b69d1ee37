import { taggedError } from '../errors.js'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { ImageBlock, TextBlock, ToolResultContent } from '../conversation/Entry.js'
import type { Risk } from '../node/ApprovalPolicy.js'
import type { Interpreter, NodeContext } from '../node/Interpreter.js'
import type { McpServerNode } from '../node/McpServerNode.js'
import type { Tool, ToolContext, ToolOutput } from './tools/Tool.js'

/**
 * An MCP server could not be reached, started or listed. `path` is the
 * step's; `nodeId` the mcp-server node's.
 *
 * @category errors
 */
export class McpServerFailed extends taggedError('McpServerFailed', 'failed')<{
  readonly path: readonly string[]
  readonly nodeId: string
}> {
  constructor(path: readonly string[], nodeId: string, message: string, cause?: unknown) {
    super(
      `step "${path.join('/')}": MCP server "${nodeId}" ${message}`,
      { path: Object.freeze([...path]), nodeId },
      { cause },
    )
  }
}

/**
 * A call of a server's tool failed: the server answered with a protocol
 * error, timed out, or went away (`message` adds the last lines it wrote
 * on stderr).
 *
 * @category tools
 */
export class McpToolFailed extends taggedError('McpToolFailed', 'failed')<{
  readonly nodeId: string
  readonly tool: string
}> {
  constructor(nodeId: string, tool: string, message: string, cause: unknown) {
    super(message, { nodeId, tool }, { cause })
  }
}

/**
 * A call of a server's tool was cancelled with its step.
 *
 * @category tools
 */
export class McpToolCancelled extends taggedError('McpToolCancelled', 'cancelled')<{
  readonly nodeId: string
  readonly tool: string
}> {
  constructor(nodeId: string, tool: string, cause: unknown) {
    super(`MCP server "${nodeId}": the call of ${tool} was cancelled`, { nodeId, tool }, { cause })
  }
}

/** One connection to a server: its tools and how to close it. */
interface Connection {
  readonly tools: readonly Tool[]
  /** Ends the session (HTTP) and the connection (a stdio server then exits). */
  close(): Promise<void>
}

const STDERR_KEPT = 2048

/** How long the end of an HTTP session may take before the connection is closed anyway. */
const SESSION_END_MS = 2000

/** `work`, or a rejection after `ms`. */
const within = <T>(ms: number, work: Promise<T>): Promise<T> => {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`took longer than ${ms} ms`))
    }, ms)
    timer.unref()
  })
  return Promise.race([work, late]).finally(() => {
    clearTimeout(timer)
  })
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** A tool as the server lists it: the fields of the MCP SDK's that Nerve reads. */
interface Listed {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema: object
  readonly annotations?:
    | {
        readonly readOnlyHint?: boolean | undefined
        readonly destructiveHint?: boolean | undefined
      }
    | undefined
}

/**
 * The risk of a listed tool: the node's `risk` for it, else its
 * annotations read as the MCP spec defines them — read-only is `low`;
 * else only additive changes (`destructiveHint: false`) `medium`; else
 * `high` (`destructiveHint` defaults to true).
 */
const riskOf = (node: McpServerNode, listed: Listed): Risk => {
  const given = node.risk
  if (typeof given === 'string') return given
  if (given !== undefined && Object.hasOwn(given, listed.name)) return given[listed.name]!
  const a = listed.annotations
  return a?.readOnlyHint === true ? 'low' : a?.destructiveHint === false ? 'medium' : 'high'
}

/** A tool name providers accept: the MCP name with anything else as `_`. */
const safeName = (name: string): string => name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || '_'

interface McpContent {
  readonly type: string
  readonly text?: string
  readonly data?: string
  readonly mimeType?: string
}

const blockOf = (c: McpContent): TextBlock | ImageBlock =>
  c.type === 'text' && typeof c.text === 'string'
    ? { type: 'text', text: c.text }
    : c.type === 'image' && typeof c.data === 'string' && typeof c.mimeType === 'string'
      ? { type: 'image', source: { type: 'base64', media_type: c.mimeType, data: c.data } }
      : { type: 'text', text: JSON.stringify(c) }

/** An MCP tool result as a tool result: text alone as a string, else blocks. */
const contentOf = (result: {
  readonly content?: readonly McpContent[]
  readonly structuredContent?: unknown
}): ToolResultContent => {
  const content = result.content ?? []
  if (content.length === 0) {
    return result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent)
  }
  if (content.every((c) => c.type === 'text' && typeof c.text === 'string')) {
    return content.map((c) => c.text!).join('\n')
  }
  return Object.freeze(content.map(blockOf))
}

const connect = async (node: McpServerNode, ctx: NodeContext): Promise<Connection> => {
  // Loaded here, not at the top: a program that never uses an MCP server never loads the SDK.
  const { Client: ClientClass } = await import('@modelcontextprotocol/sdk/client/index.js')
  const client = new ClientClass({ name: 'nerve', version: '1' })
  let stderr = ''
  let endSession: () => Promise<void> = () => Promise.resolve()
  try {
    if (node.command !== undefined) {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
      const transport = new StdioClientTransport({
        command: node.command,
        args: [...node.args],
        stderr: 'pipe',
        ...(node.env !== undefined && { env: { ...node.env } }),
        ...(node.cwd !== undefined && { cwd: node.cwd }),
      })
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT)
      })
      await client.connect(transport, { signal: ctx.signal })
    } else {
      const { StreamableHTTPClientTransport } =
        await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
      const transport = new StreamableHTTPClientTransport(new URL(node.url!), {
        requestInit: { headers: { ...node.headers } },
      })
      await client.connect(transport, { signal: ctx.signal })
      endSession = () => transport.terminateSession()
    }
  } catch (e) {
    await client.close().catch(() => undefined)
    const said = stderr.trim()
    throw new McpServerFailed(
      ctx.path,
      node.id,
      `could not be reached: ${messageOf(e)}${said === '' ? '' : ` (it said: ${said})`}`,
      e,
    )
  }
  const said = (): string => stderr
  const listed: Listed[] = []
  try {
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        signal: ctx.signal,
      })
      listed.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor !== undefined)
  } catch (e) {
    await client.close().catch(() => undefined)
    throw new McpServerFailed(ctx.path, node.id, `could not list its tools: ${messageOf(e)}`, e)
  }
  const only = node.only
  const rated = typeof node.risk === 'object' ? Object.keys(node.risk) : []
  const missing = [...new Set([...(only ?? []), ...rated])].filter(
    (n) => !listed.some((x) => x.name === n),
  )
  if (missing.length > 0) {
    await client.close().catch(() => undefined)
    const names = listed.map((x) => x.name).join(', ') || 'none'
    throw new McpServerFailed(
      ctx.path,
      node.id,
      `has no tool named ${missing.map((m) => `"${m}"`).join(', ')} (it has: ${names})`,
    )
  }
  const tools = Object.freeze(
    listed
      .filter((x) => only === undefined || only.includes(x.name))
      .map((x) => mcpTool(node, client, said, x)),
  )
  const close = async (): Promise<void> => {
    // Ending the session tells the server to stop what it still runs for it.
    await within(SESSION_END_MS, endSession()).catch(() => undefined)
    await client.close()
  }
  return Object.freeze({ tools, close })
}

/**
 * The signal of one call, as the SDK's request reads it: `aborted`,
 * `reason`, `throwIfAborted` and one `abort` listener, which it adds and
 * never removes. A signal of the call's own keeps those listeners from
 * piling up on the tool's signal (one per call), and this one costs less
 * than an AbortController and Node's listener bookkeeping, which cost more
 * than the rest of the wrapping together (bench `mcp.call`). The cancel
 * tests hold it to what the SDK does with it.
 */
class CallSignal {
  aborted = false
  reason: unknown = undefined
  readonly #listeners: (() => void)[] = []

  throwIfAborted(): void {
    if (this.aborted) throw this.reason
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.push(listener)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const k = this.#listeners.indexOf(listener)
    if (k >= 0) this.#listeners.splice(k, 1)
  }

  abort(reason: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    for (const l of this.#listeners.splice(0)) l()
  }
}

/** The calls in flight under a tool signal, which aborts them all: one listener per signal. */
const inFlight = new WeakMap<AbortSignal, Set<CallSignal>>()

const callsOf = (signal: AbortSignal): Set<CallSignal> => {
  let calls = inFlight.get(signal)
  if (calls === undefined) {
    const made = new Set<CallSignal>()
    calls = made
    inFlight.set(signal, made)
    signal.addEventListener(
      'abort',
      () => {
        for (const c of made) c.abort(signal.reason)
      },
      { once: true },
    )
  }
  return calls
}

/** One tool of the server, called through the run's connection. */
const mcpTool = (node: McpServerNode, client: Client, stderr: () => string, listed: Listed): Tool =>
  Object.freeze({
    definition: Object.freeze({
      name: safeName(listed.name),
      description: listed.description ?? '',
      input_schema: listed.inputSchema as Readonly<Record<string, unknown>>,
    }),
    risk: riskOf(node, listed),
    async run(
      input: Readonly<Record<string, unknown>>,
      ctx: ToolContext,
    ): Promise<ToolOutput | ToolResultContent> {
      const calls = callsOf(ctx.signal)
      const call = new CallSignal()
      if (ctx.signal.aborted) call.abort(ctx.signal.reason)
      else calls.add(call)
      let result
      try {
        result = await client.callTool({ name: listed.name, arguments: { ...input } }, undefined, {
          signal: call as unknown as AbortSignal,
          ...(node.timeoutMs !== undefined && { timeout: node.timeoutMs }),
        })
      } catch (e) {
        if (ctx.signal.aborted) throw new McpToolCancelled(node.id, listed.name, e)
        const said = stderr().trim()
        throw new McpToolFailed(
          node.id,
          listed.name,
          `MCP server "${node.id}": ${messageOf(e)}${said === '' ? '' : ` (it said: ${said.split('\n').slice(-3).join(' | ')})`}`,
          e,
        )
      } finally {
        calls.delete(call)
      }
      const content = contentOf(result as Parameters<typeof contentOf>[0])
      return result.isError === true ? Object.freeze({ content, is_error: true }) : content
    },
  })

/**
 * The interpreter of mcp-server nodes, and the connections it has open.
 *
 * @category toolsets
 */
export interface McpServerInterpreter extends Interpreter<McpServerNode> {
  /** How many server connections are open now (each run closes its own when it ends). */
  open(): number
}

/**
 * Runs mcp-server nodes through the official MCP SDK's client, loaded the
 * first time a server is used. A step connects to its server — starts it
 * (stdio) or reaches it (Streamable HTTP) — lists its tools and answers
 * their names; `materialize` gives the linked agents the tools, which call
 * the server through the same connection. One connection per step and run,
 * closed when the run ends (the stdio server then exits). A tool call the
 * server answers with `isError`, one that fails (a timeout, a server that
 * crashed or went away) and one cancelled by the agent's signal are tool
 * errors the model is shown; the run goes on. A server that cannot be
 * started, reached or listed — or lacks a tool that `only` or `risk`
 * names — fails the step with {@link McpServerFailed}. Each tool carries
 * a `risk` (the node's, else read from the server's annotations; see
 * `McpServerOptions.risk`), which approval policies match.
 *
 * @category toolsets
 */
export const mcpServerInterpreter = (): McpServerInterpreter => {
  const connections = new Map<string, Promise<Connection>>()
  const connectionOf = (node: McpServerNode, ctx: NodeContext): Promise<Connection> => {
    const key = `${ctx.runId}\u0000${ctx.path.join('\u0000')}\u0000${node.id}`
    let found = connections.get(key)
    if (found === undefined) {
      found = connect(node, ctx)
      connections.set(key, found)
      const close = (): Promise<void> => {
        if (connections.get(key) !== found) return Promise.resolve()
        connections.delete(key)
        return found!.then(
          (c) => c.close(),
          () => undefined,
        )
      }
      if (ctx.onRunEnd !== undefined) ctx.onRunEnd(close)
      else ctx.signal.addEventListener('abort', () => void close(), { once: true })
      // A failed connection is not kept: the step's retry tries again.
      found.catch(() => {
        if (connections.get(key) === found) connections.delete(key)
      })
    }
    return found
  }
  return Object.freeze({
    kind: 'mcp-server' as const,
    open: () => connections.size,
    async execute(node: McpServerNode, ctx: NodeContext): Promise<readonly string[]> {
      const c = await connectionOf(node, ctx)
      return Object.freeze(c.tools.map((x) => x.definition.name))
    },
    async materialize(node: McpServerNode, _output: unknown, ctx: NodeContext) {
      return (await connectionOf(node, ctx)).tools
    },
  })
}
