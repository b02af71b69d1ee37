/**
 * MCP server benchmark (issue 27), against a baseline measured in the same run:
 *
 * - `mcp.call`: one tool call to a local stdio MCP server (written with the
 *   SDK's server, test/interpreters/mcp/testServer.ts), made as an agent
 *   makes it — `callTool` on the tools an mcp-server node materialized —
 *   against the SDK's own client calling the same tool of another process
 *   of the same server directly. Both sides make their calls one after the
 *   other; the ratio is what the node's wrapping costs on top of the SDK.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { mcpServer, type Tool, toolbox } from '../src/index.js'
import { type NodeContext, nodeRegistry } from '../src/core.js'
import { callTool, mcpServerInterpreter, type ToolContext } from '../src/interpreters/index.js'
import { writeMcpServer } from '../test/interpreters/mcp/testServer.js'
import { interleaveAsync, type Benchmark } from './harness.js'

/** The context an mcp-server node is materialized with, outside a run: its signal closes the server. */
const contextOf = (signal: AbortSignal): NodeContext => ({
  input: undefined,
  upstream: {},
  signal,
  runId: 'bench',
  runStartedAt: 0,
  stepId: 'srv',
  path: ['srv'],
  attempt: 1,
  session: nodeRegistry(),
  interpreters: new Map(),
  reportUsage: () => undefined,
  emit: () => undefined,
  resolveLinks: () => Promise.resolve([]),
})

const mcpCall: Benchmark = {
  name: 'mcp.call',
  run: async ({ rounds, log }) => {
    const CALLS = 100
    const server = await writeMcpServer()
    const end = new AbortController()
    const direct = new Client({ name: 'bench', version: '1' })
    try {
      const node = mcpServer('srv', { command: process.execPath, args: [server.script] })
      const tools = (await mcpServerInterpreter().materialize!(
        node,
        undefined,
        contextOf(end.signal),
      )) as readonly Tool[]
      const box = toolbox(...tools)
      await direct.connect(
        // Its stderr piped as the node pipes it, so the two differ only in the calls.
        new StdioClientTransport({
          command: process.execPath,
          args: [server.script],
          stderr: 'pipe',
        }),
      )
      const ctx: ToolContext = { signal: end.signal, toolUseId: 'c', depth: 0 }
      log(`  ${CALLS} sequential calls of the add tool per sample`)
      const m = await interleaveAsync({
        rounds: rounds ?? 101,
        warmup: 5,
        ours: async () => {
          const t0 = performance.now()
          for (let i = 0; i < CALLS; i++) {
            const out = await callTool(
              box,
              { type: 'tool_use', id: 'c', name: 'add', input: { a: i, b: 1 } },
              ctx,
            )
            if (out.content !== String(i + 1))
              throw new Error(`add answered ${JSON.stringify(out.content)}`)
          }
          return { us: ((performance.now() - t0) * 1000) / CALLS }
        },
        baseline: async () => {
          const t0 = performance.now()
          for (let i = 0; i < CALLS; i++) {
            const r = await direct.callTool({ name: 'add', arguments: { a: i, b: 1 } })
            const first = (r.content as readonly { text?: string }[])[0]
            if (first?.text !== String(i + 1)) throw new Error('add answered something else')
          }
          return { us: ((performance.now() - t0) * 1000) / CALLS }
        },
      })
      return [
        {
          name: 'mcp.call',
          unit: 'µs',
          median: m.ours.us,
          baseline: 'the SDK client calling the tool directly',
          baselineMedian: m.baseline.us,
          target: { ratio: 1.2 },
        },
      ]
    } finally {
      end.abort()
      await direct.close()
      await server.remove()
    }
  },
}

export const benchmarks: readonly Benchmark[] = [mcpCall]
