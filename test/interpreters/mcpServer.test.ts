import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  addStep,
  graph,
  type Graph,
  llm,
  llmInterpreter,
  mcpServer,
  type McpServerNode,
  run,
} from 'nerve-agents'
import { interpreters, type NodeContext } from 'nerve-agents/core'
import { mcpServerInterpreter, type ModelRequest, type Tool } from 'nerve-agents/interpreters'
import { RunControl } from 'nerve-agents/runtime'
import { scriptedProvider, toolUse, type ScriptedReply } from 'nerve-agents/testing'
import { gone, goneSoon } from '../processes.js'
import { startHttpMcpServer, writeMcpServer } from './mcp/testServer.js'

let server: Awaited<ReturnType<typeof writeMcpServer>>
let http: Awaited<ReturnType<typeof startHttpMcpServer>>

beforeAll(async () => {
  server = await writeMcpServer()
  http = await startHttpMcpServer(server.script)
})

afterAll(async () => {
  http.child.kill('SIGKILL')
  await server.remove()
})

/** The text of the tool results the model was shown in a request, by tool use id. */
const resultsIn = (request: ModelRequest): Record<string, { text: string; error: boolean }> => {
  const out: Record<string, { text: string; error: boolean }> = {}
  for (const m of request.messages) {
    if (!Array.isArray(m.content)) continue
    for (const b of m.content as readonly { type: string }[]) {
      if (b.type !== 'tool_result') continue
      const r = b as unknown as { tool_use_id: string; content: unknown; is_error?: boolean }
      out[r.tool_use_id] = {
        text: typeof r.content === 'string' ? r.content : JSON.stringify(r.content),
        error: r.is_error === true,
      }
    }
  }
  return out
}

const pids = (file: string): number[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map(Number)

const stdio = (env: Record<string, string> = {}, id = 'srv'): McpServerNode =>
  mcpServer(id, { command: process.execPath, args: [server.script], env })

const remote = (): McpServerNode =>
  mcpServer('srv', { url: http.url, headers: { 'x-token': 'secret' } })

/** An agent whose tools come from the mcp-server step `srv`. */
const agentGraph = (srv: McpServerNode): Graph =>
  pipe(
    graph('g'),
    addStep({ id: 'srv', node: srv }),
    addStep({ id: 'agent', node: llm('agent'), input: 'go', links: { tools: ['srv'] } }),
  )

const runWith = (g: Graph, script: readonly ScriptedReply[], signal?: AbortSignal) => {
  const model = scriptedProvider(script)
  const mcp = mcpServerInterpreter()
  const done = run(g, {
    interpreters: interpreters(llmInterpreter({ providers: model }), mcp),
    ...(signal !== undefined && { signal }),
  })
  return { model, mcp, done }
}

const ALL = ['add', 'slow', 'fail', 'crash', 'hang']

for (const [transport, node] of [
  ['stdio', () => stdio()],
  ['Streamable HTTP', remote],
] as const) {
  describe(`an mcp-server node over ${transport}`, () => {
    it('lists the server’s tools, and an agent linked to it calls them in parallel', async () => {
      const { model, mcp, done } = runWith(agentGraph(node()), [
        [
          toolUse('slow', { ms: 300, tag: 'a' }, 'a'),
          toolUse('slow', { ms: 300, tag: 'b' }, 'b'),
          toolUse('slow', { ms: 300, tag: 'c' }, 'c'),
          toolUse('add', { a: 2, b: 3 }, 'sum'),
        ],
        'all done',
      ])
      const r = await done
      expect(r.results.srv).toEqual(ALL)
      expect(r.results.agent).toBe('all done')
      expect(model.requests[0]!.tools.map((d) => d.name)).toEqual(ALL)
      expect(model.requests[0]!.tools[0]!.input_schema).toMatchObject({
        type: 'object',
        required: ['a', 'b'],
      })
      const results = resultsIn(model.requests[1]!)
      expect(results.sum).toEqual({ text: '5', error: false })
      // Each slow call reports the most calls in flight at once: all three ran together.
      const peaks = ['a', 'b', 'c'].map((k) => Number(results[k]!.text.split(':')[1]))
      expect(Math.max(...peaks)).toBe(3)
      expect(mcp.open()).toBe(0)
    })

    it('answers a tool’s error result as a tool error, and the run goes on', async () => {
      const { model, done } = runWith(agentGraph(node()), [
        [toolUse('fail', {}, 'f'), toolUse('nope', {}, 'n')],
        'coped',
      ])
      expect((await done).results.agent).toBe('coped')
      const results = resultsIn(model.requests[1]!)
      expect(results.f).toEqual({ text: 'it went wrong', error: true })
      expect(results.n!.error).toBe(true)
    })
  })
}

describe('an mcp-server node', () => {
  it('starts its server once per run, shared by every agent linked to it, and closes it with the run', async () => {
    const pidFile = join(server.dir, 'pids-once')
    const srv = stdio({ PIDS: pidFile })
    const g = pipe(
      graph('g'),
      addStep({ id: 'srv', node: srv }),
      addStep({ id: 'a', node: llm('a'), input: 'x', links: { tools: ['srv'] } }),
      addStep({ id: 'b', node: llm('b'), input: 'y', links: { tools: ['srv'] } }),
    )
    const { mcp, done } = runWith(g, [
      [toolUse('add', { a: 1, b: 1 })],
      [toolUse('add', { a: 2, b: 2 })],
      'one',
      'two',
    ])
    const r = await done
    expect(r.metrics.materializations).toBe(1)
    expect(r.metrics.materializeCacheHits).toBe(1)
    const started = pids(pidFile)
    expect(started).toHaveLength(1)
    expect(mcp.open()).toBe(0)
    expect(await goneSoon(started[0]!)).toBe(true)
  })

  it('turns a server that crashes mid-call into a clear tool error, and the run goes on', async () => {
    const { model, done } = runWith(agentGraph(stdio()), [
      [toolUse('crash', {}, 'c')],
      [toolUse('add', { a: 1, b: 2 }, 'after')],
      'recovered',
    ])
    expect((await done).results.agent).toBe('recovered')
    const crashed = resultsIn(model.requests[1]!).c!
    expect(crashed.error).toBe(true)
    expect(crashed.text).toMatch(/MCP server "srv": .*Connection closed/)
    expect(crashed.text).toMatch(/about to crash/)
    // The connection is gone: later calls are errors too, not hangs.
    expect(resultsIn(model.requests[2]!).after!.error).toBe(true)
  })

  it('fails its step with the path when the server cannot start', async () => {
    const bad = mcpServer('srv', { command: process.execPath, args: ['-e', 'process.exit(7)'] })
    const { done } = runWith(agentGraph(bad), ['never'])
    await expect(done).rejects.toMatchObject({
      _tag: 'StepFailed',
      stepId: 'srv',
      cause: { _tag: 'McpServerFailed', path: ['srv'], nodeId: 'srv' },
    })
  })

  it('refuses a tool named in only that the server lacks', async () => {
    const srv = mcpServer('srv', {
      command: process.execPath,
      args: [server.script],
      only: ['add', 'fly'],
    })
    const { done } = runWith(agentGraph(srv), ['never'])
    const e = (await done.catch((x: unknown) => x)) as { cause?: Error & { _tag?: string } }
    expect(e.cause?._tag).toBe('McpServerFailed')
    expect(e.cause?.message).toMatch(/no tool named "fly" \(it has: add, slow, fail, crash, hang\)/)
  })

  it('gives only the tools named in only', async () => {
    const srv = mcpServer('srv', { url: http.url, headers: { 'x-token': 'secret' }, only: ['add'] })
    const { model, done } = runWith(agentGraph(srv), ['ok'])
    expect((await done).results.srv).toEqual(['add'])
    expect(model.requests[0]!.tools.map((d) => d.name)).toEqual(['add'])
  })

  it('cannot reach an HTTP server without the headers it wants', async () => {
    const { done } = runWith(agentGraph(mcpServer('srv', { url: http.url })), ['never'])
    const e = (await done.catch((x: unknown) => x)) as { cause?: Error & { _tag?: string } }
    expect(e.cause?._tag).toBe('McpServerFailed')
    expect(e.cause?.message).toMatch(/could not be reached: .*no token/)
  })

  it('passes a cancelled run on to the call in flight (stdio), and its server exits', async () => {
    const mark = join(server.dir, 'mark-stdio')
    await cancelled(stdio({ MARK: mark, PIDS: `${mark}.pids` }), mark)
    expect(pids(`${mark}.pids`).every(gone)).toBe(true)
  })

  it('passes a cancelled run on to the call in flight (Streamable HTTP)', async () => {
    const mark = join(server.dir, 'mark-http')
    const own = await startHttpMcpServer(server.script, { MARK: mark })
    try {
      await cancelled(mcpServer('srv', { url: own.url, headers: { 'x-token': 'secret' } }), mark)
    } finally {
      own.child.kill('SIGKILL')
    }
  })
})

describe('the risk of an mcp-server node’s tools', () => {
  /** The risk of each tool the node gives, by name, from a run of the real server. */
  const risks = async (srv: McpServerNode): Promise<Record<string, string | undefined>> => {
    const mcp = mcpServerInterpreter()
    const ends: (() => unknown)[] = []
    const ctx = {
      runId: 'r',
      path: ['srv'],
      signal: new AbortController().signal,
      onRunEnd: (c: () => unknown) => ends.push(c),
    } as unknown as NodeContext
    try {
      const tools = (await mcp.materialize!(srv, undefined, ctx)) as readonly Tool[]
      return Object.fromEntries(tools.map((t) => [t.definition.name, t.risk]))
    } finally {
      await Promise.all(ends.map((c) => c()))
    }
  }

  it('reads the server’s annotations as the MCP spec defines them: read-only low, additive medium, else high', async () => {
    expect(await risks(stdio())).toEqual({
      add: 'low',
      fail: 'medium',
      crash: 'high',
      slow: 'high',
      hang: 'high',
    })
  })

  it('takes the node’s risk over the annotations: one for every tool, or some by name', async () => {
    const all = await risks(
      mcpServer('srv', { url: http.url, headers: { 'x-token': 'secret' }, risk: 'medium' }),
    )
    expect(new Set(Object.values(all))).toEqual(new Set(['medium']))
    const some = await risks(
      mcpServer('srv', {
        command: process.execPath,
        args: [server.script],
        risk: { slow: 'low', add: 'high' },
      }),
    )
    expect(some).toMatchObject({ slow: 'low', add: 'high', fail: 'medium', hang: 'high' })
  })

  it('refuses a risk naming a tool the server lacks', async () => {
    const srv = mcpServer('srv', {
      command: process.execPath,
      args: [server.script],
      risk: { fly: 'low' },
    })
    const e = (await runWith(agentGraph(srv), ['never']).done.catch((x: unknown) => x)) as {
      cause?: Error & { _tag?: string }
    }
    expect(e.cause?._tag).toBe('McpServerFailed')
    expect(e.cause?.message).toMatch(/no tool named "fly"/)
  })

  it('is what an agent’s approval policy matches: a rule denying high risk refuses slow, lets add and fail run', async () => {
    const policy = {
      rules: [{ risk: 'high' as const, decision: 'deny' as const }],
      fallback: 'approve' as const,
    }
    const agent = (srv: McpServerNode): Graph =>
      pipe(
        graph('g'),
        addStep({ id: 'srv', node: srv }),
        addStep({
          id: 'agent',
          node: llm('agent', { approvals: policy }),
          input: 'go',
          links: { tools: ['srv'] },
        }),
      )
    const calls = [
      [
        toolUse('slow', { ms: 1, tag: 's' }, 's'),
        toolUse('add', { a: 1, b: 2 }, 'a'),
        toolUse('fail', {}, 'f'),
      ],
      'done',
    ] as const
    const ask = async (srv: McpServerNode) => {
      const model = scriptedProvider(calls)
      const llms = llmInterpreter({ providers: model, approvals: { control: new RunControl() } })
      await run(agent(srv), { interpreters: interpreters(llms, mcpServerInterpreter()) })
      return resultsIn(model.requests[1]!)
    }
    const rated = await ask(stdio())
    expect(rated.s).toEqual({ text: 'the call was not approved (denied by policy)', error: true })
    expect(rated.a).toEqual({ text: '3', error: false })
    expect(rated.f).toEqual({ text: 'it went wrong', error: true })
    // Rated low by the node, slow runs.
    const trusted = await ask(
      mcpServer('srv', { command: process.execPath, args: [server.script], risk: { slow: 'low' } }),
    )
    expect(trusted.s).toEqual({ text: 's:1', error: false })
  })
})

/** Runs an agent that calls `hang`, cancels the run once the call started, and sees the server told. */
const cancelled = async (srv: McpServerNode, mark: string): Promise<void> => {
  const stop = new AbortController()
  const { mcp, done } = runWith(agentGraph(srv), [[toolUse('hang')], 'never'], stop.signal)
  const failed = expect(done).rejects.toMatchObject({ _tag: 'Cancelled' })
  await until(() => read(mark) === 'started')
  stop.abort()
  await failed
  await until(() => read(mark) === 'cancelled')
  expect(mcp.open()).toBe(0)
}

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/** Waits for `ok` to hold, for at most 5 s. */
const until = async (ok: () => boolean): Promise<void> => {
  for (const end = Date.now() + 5000; !ok();) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('the MCP SDK', () => {
  it('is imported by the library only when a server is used: dynamically, or for types', () => {
    const src = join(import.meta.dirname, '../../src')
    const files = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)],
      )
    // src/mcp is the MCP face (nerve-agents/mcp), which serves MCP: it may load it at once.
    const eager = files(src)
      .filter((f) => !f.startsWith(join(src, 'mcp')))
      .filter((f) =>
        /^import (?!type )(?:[^'\n]|\n(?!import))*'@modelcontextprotocol\//m.test(
          readFileSync(f, 'utf8'),
        ),
      )
    expect(eager).toEqual([])
    const mcp = readFileSync(join(src, 'interpreters/mcpServer.ts'), 'utf8')
    expect(mcp).toMatch(/await import\('@modelcontextprotocol\/sdk\/client\/index\.js'\)/)
  })
})
