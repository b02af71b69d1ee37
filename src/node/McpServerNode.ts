import * as t from 'io-ts'
import { withJsonSchema } from '../codec/index.js'
import { RiskCodec, type Risk } from './ApprovalPolicy.js'
import { nodeKind } from './NodeKind.js'
import { EMPTY_METADATA, makeNode, type Node, type NodeOptions } from './Node.js'
import {
  anyString,
  arrayOf,
  decodeOptions,
  env,
  metadata,
  millis,
  nonBlank,
  nonEmpty,
  optionsCodec,
  pattern,
} from './options.js'

/**
 * A node that gives the tools of an MCP server to the agents linked to it:
 * a server it starts (`command`, `args`, `env`, `cwd`, spoken to over
 * stdio) or one it reaches by Streamable HTTP (`url`, `headers`). The
 * mcp-server interpreter connects once per run, lists the server's tools
 * (all, or those named in `only`) and closes the connection when the run
 * ends. Its step's result is the names of the tools. Each tool is rated
 * for approval policies (see {@link McpServerOptions.risk}).
 *
 * @category toolsets
 */
export interface McpServerNode extends Node, Omit<McpServerOptions, 'metadata' | 'args'> {
  readonly kind: 'mcp-server'
  readonly persistent: false
  readonly args: readonly string[]
}

/**
 * Options of {@link mcpServer}: `command` (stdio) or `url` (Streamable HTTP), not both.
 *
 * @category toolsets
 */
export interface McpServerOptions extends NodeOptions {
  readonly command?: string
  readonly args?: readonly string[]
  /**
   * Variables set for the server, over the MCP SDK's default environment
   * (HOME, LOGNAME, PATH, SHELL, TERM, USER): the server sees no other
   * variable of this process unless it is given here.
   */
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  readonly url?: string
  readonly headers?: Readonly<Record<string, string>>
  /** The tools to give, by name; default: all the server lists. */
  readonly only?: readonly string[]
  /** A limit on one tool call, in ms. Default: the SDK's (60 s). */
  readonly timeoutMs?: number
  /**
   * The risk of the server's tools, for approval policies: one for all of
   * them, or by tool name (the server's name for it) for some. A tool not
   * rated here is rated by the annotations the server lists it with, as
   * the MCP spec reads them: `readOnlyHint` is `low`; else
   * `destructiveHint: false` (additive changes only) is `medium`; else
   * (`destructiveHint` true, or absent: it defaults to true) `high`.
   * Annotations are the server's own claims: rate a server you do not
   * trust here.
   */
  readonly risk?: Risk | Readonly<Record<string, Risk>>
}

const showValue = (u: unknown): string => (u === undefined ? 'undefined' : JSON.stringify(u))

const RISK_WORDS = 'be "low", "medium" or "high"'

/** A risk, or risks by tool name. */
const toolRisk: t.Type<Risk | Readonly<Record<string, Risk>>> = withJsonSchema(
  new t.Type<Risk | Readonly<Record<string, Risk>>>(
    'McpToolRisk',
    (u): u is Risk | Readonly<Record<string, Risk>> =>
      RiskCodec.is(u) ||
      (t.UnknownRecord.is(u) &&
        !Array.isArray(u) &&
        Object.entries(u).every(([k, v]) => k !== '' && RiskCodec.is(v))),
    (u, c) => {
      if (typeof u === 'string') {
        return RiskCodec.is(u)
          ? t.success(u)
          : t.failure(u, c, `must ${RISK_WORDS}, got ${showValue(u)}`)
      }
      if (!t.UnknownRecord.is(u) || Array.isArray(u)) {
        return t.failure(u, c, `must ${RISK_WORDS}, or an object of those by tool name`)
      }
      const errors: t.ValidationError[] = []
      for (const [k, v] of Object.entries(u)) {
        if (k === '') errors.push({ value: u, context: c, message: 'names a tool with ""' })
        else if (!RiskCodec.is(v)) {
          errors.push({
            value: v,
            context: t.appendContext(c, k, RiskCodec, v),
            message: `must ${RISK_WORDS}, got ${showValue(v)}`,
          })
        }
      }
      return errors.length > 0 ? t.failures(errors) : t.success(u as Record<string, Risk>)
    },
    t.identity,
  ),
  () => {
    const risk = { enum: ['low', 'medium', 'high'] }
    return {
      anyOf: [risk, { type: 'object', additionalProperties: risk }],
    }
  },
)

const httpUrl = pattern('HttpUrl', /^https?:\/\/[^\s/]+/, 'be an http(s) URL')

const oneTransport = (o: McpServerOptions): string | undefined => {
  const stdio = o.command !== undefined
  const http = o.url !== undefined
  if (stdio === http) return 'give either command (stdio) or url (Streamable HTTP), one of them'
  if (stdio && o.headers !== undefined) return 'headers go with url, not with command'
  if (http && (o.args !== undefined || o.env !== undefined || o.cwd !== undefined)) {
    return 'args, env and cwd go with command, not with url'
  }
  return undefined
}

/**
 * The io-ts codec of an mcp-server node's options: what {@link mcpServer}
 * checks and a graph file's `mcp-server` node is decoded with. Unknown keys fail.
 *
 * @category toolsets
 */
export const McpServerOptionsCodec: t.Type<McpServerOptions> = optionsCodec<McpServerOptions>(
  'McpServerOptions',
  {},
  {
    metadata,
    command: nonBlank,
    args: arrayOf(anyString),
    env: env((k) => k !== '' && !k.includes('=') && !k.includes('\0')),
    cwd: nonEmpty,
    url: httpUrl,
    headers: env((k) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)),
    only: arrayOf(nonEmpty, 'tool names'),
    timeoutMs: millis(false),
    risk: toolRisk,
  },
  [oneTransport],
)

/**
 * An mcp-server node.
 *
 * @category toolsets
 * @example
 * import { mcpServer } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const files = mcpServer('files', { command: 'npx', args: ['-y', 'some-mcp-server'] })
 * assert.strictEqual(files.kind, 'mcp-server')
 * const remote = mcpServer('remote', { url: 'http://127.0.0.1:3000/mcp', only: ['search'] })
 * assert.deepStrictEqual(remote.only, ['search'])
 * const rated = mcpServer('db', { command: 'db-mcp', risk: { query: 'low', drop: 'high' } })
 * assert.deepStrictEqual(rated.risk, { query: 'low', drop: 'high' })
 * assert.throws(() => mcpServer('y', { command: 'x', risk: 'huge' as never }), /risk must be "low"/)
 * assert.throws(() => mcpServer('x', {}), /either command \(stdio\) or url/)
 */
export const mcpServer = (id: string, options: McpServerOptions): McpServerNode => {
  const {
    metadata: meta,
    args,
    ...config
  } = decodeOptions('mcpServer', id, McpServerOptionsCodec, options)
  return makeNode<McpServerNode>(
    {
      id,
      kind: 'mcp-server',
      persistent: false,
      metadata: meta ?? EMPTY_METADATA,
      args: [...(args ?? [])],
      ...config,
    },
    'mcpServer',
  )
}

/**
 * Whether a node is an mcp-server node.
 *
 * @category guards
 */
export const isMcpServerNode = (n: Node): n is McpServerNode => n.kind === 'mcp-server'

/**
 * The `mcp-server` node kind, its data side: its options codec and builder, for graph files,
 * `CREATE_NODE` and stores.
 *
 * @category model
 */
export const mcpServerNodeKind = nodeKind({
  kind: 'mcp-server',
  summary: 'the tools of an MCP server, given to LLM nodes through links',
  options: McpServerOptionsCodec,
  build: (id, options) => mcpServer(id, options),

  creatable: false,
  provides: ['tools'],
})
