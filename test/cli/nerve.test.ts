import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nerve, type Ran, testDir } from './run.js'

const decode = <A>(codec: t.Type<A, unknown>, text: string): A => {
  const r = codec.decode(JSON.parse(text))
  if (E.isLeft(r)) throw new Error(`unexpected shape: ${text}`)
  return r.right
}

const NodeInfo = t.type({
  id: t.string,
  type: t.string,
  state: t.string,
  metadata: t.UnknownRecord,
})
const NodeList = t.type({ nodes: t.array(NodeInfo) })
const Status = t.type({
  pid: t.number,
  socket: t.string,
  uptimeMs: t.number,
  sessions: t.array(t.type({ sessionId: t.string, nodes: t.number })),
})
const Fork = t.type({ nodeId: t.string, forkedFrom: t.string, nodeType: t.string })
const RunInfo = t.type({ runId: t.string, state: t.string, results: t.UnknownRecord })
const Event = t.type({ type: t.string, time: t.string })
const Validation = t.type({
  valid: t.boolean,
  errors: t.array(t.type({ path: t.string, message: t.string })),
})

const oneErrorLine = (r: Ran, tag: string): void => {
  const lines = r.stderr.trim().split('\n')
  expect(lines[0]).toMatch(new RegExp(`^error: ${tag}\\b`))
  expect(r.stderr).not.toMatch(/\n\s+at /) // no stack without --verbose
}

const dir = testDir('cli')
const env = { NERVE_SOCKET: join(dir, 'nerve.sock'), XDG_RUNTIME_DIR: dir, HOME: dir }

describe('nerve without a daemon', () => {
  it('prints its version and exits 0', async () => {
    const r = await nerve(['--version'])
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
  })

  it('shows an example in every command help', async () => {
    for (const cmd of [
      ['node', 'create'],
      ['node', 'fork'],
      ['graph', 'run'],
      ['server', 'start'],
      ['extract'],
    ]) {
      const r = await nerve([...cmd, '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('Examples:')
    }
  })

  it('exits 2 on a usage error', async () => {
    // a kind the daemon does not make is its answer, UnknownKind (test/server/engine/kinds.test.ts)
    expect((await nerve(['node', 'create', 'x'])).code).toBe(2)
    expect((await nerve(['frobnicate'])).code).toBe(2)
  })

  it('says a node command needs a daemon, in one line, exit 1', async () => {
    const r = await nerve(['node', 'list'], env)
    expect(r.code).toBe(6)
    oneErrorLine(r, 'DaemonNotRunning')
    expect(r.stderr).toContain('nerve server start')
  })

  it('validates a graph file, naming every error with its JSON path', async () => {
    const bad = join(dir, 'bad.json')
    writeFileSync(
      bad,
      JSON.stringify({
        id: 'g',
        steps: [
          { id: 'a', node: 'nope' },
          { id: 'b', dependsOn: ['zz'], node: 'nope' },
        ],
      }),
    )
    const r = await nerve(['graph', 'validate', bad, '--json'])
    expect(r.code).toBe(2)
    const v = decode(Validation, r.stdout)
    expect(v.valid).toBe(false)
    expect(v.errors.map((e) => e.path)).toEqual(
      expect.arrayContaining(['/steps/0/node', '/steps/1/dependsOn/0']),
    )
    const text = await nerve(['graph', 'validate', 'examples/release-check.json'])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('valid (5 steps)')
  })

  it('refuses a file that is not JSON with one line', async () => {
    const bad = join(dir, 'not.json')
    writeFileSync(bad, '{ nope')
    const r = await nerve(['graph', 'run', bad])
    expect(r.code).toBe(2)
    oneErrorLine(r, 'InvalidJson')
  })

  it('runs an example graph embedded: NDJSON events, then the run record', async () => {
    const r = await nerve([
      'graph',
      'run',
      'examples/fan-out.json',
      '--json',
      '--max-parallel',
      '2',
    ])
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    const events = lines.slice(0, -1).map((l) => decode(Event, l))
    expect(events[0]!.type).toBe('GRAPH_STARTED')
    expect(events.filter((e) => e.type === 'STEP_COMPLETED').length).toBe(8) // 6 steps + 2 nested
    const info = decode(RunInfo, lines.at(-1)!)
    expect(info.state).toBe('completed')
    expect(r.stdout).not.toContain('\u001b[') // no escape codes off a TTY
  })

  it('shows a graph as a Mermaid flowchart with its nested graph as a subgraph', async () => {
    const r = await nerve(['graph', 'show', 'examples/fan-out.json', '--mermaid'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^flowchart TD/)
    expect(r.stdout).toContain('subgraph nested')
    expect(r.stdout).toContain('prepare --> a')
  })

  it('extracts sections from standard input', async () => {
    const r = await nerve(['extract', '--parser', 'none', '--json'], {}, 'hello\nworld\n')
    expect(r.code).toBe(0)
    const parsed = decode(t.type({ text: t.string, sections: t.array(t.unknown) }), r.stdout)
    expect(parsed.text).toContain('hello')
  })

  it('views a nano-agent conversation file as one self-contained HTML page', async () => {
    const out = join(dir, 'c.html')
    const r = await nerve([
      'view',
      'test/conversation/codec/fixtures/sub_agent_graph.json',
      '-o',
      out,
    ])
    expect(r.code, r.stderr).toBe(0)
    const html = readFileSync(out, 'utf8')
    expect(html).toMatch(/^<!doctype html>/i)
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=["']?https?:/) // nothing fetched
  })

  it('refuses a conversation file that does not decode, naming the problem', async () => {
    const file = join(dir, 'broken.json')
    writeFileSync(file, JSON.stringify({ messages: 'not a list' }))
    const r = await nerve(['view', file])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^error: \w+/)
  })
})

describe('nerve against a real daemon', () => {
  beforeAll(async () => {
    const r = await nerve(['server', 'start', '--detach'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(statSync(env.NERVE_SOCKET).mode & 0o777).toBe(0o600)
  }, 30_000)

  afterAll(async () => {
    await nerve(['server', 'stop'], env)
  })

  it('reports its status', async () => {
    const r = await nerve(['server', 'status', '--json'], env)
    expect(r.code, r.stderr).toBe(0)
    const s = decode(Status, r.stdout)
    expect(s.socket).toBe(env.NERVE_SOCKET)
    expect(s.sessions.map((x) => x.sessionId)).toContain('default')
  })

  it('creates a bash node, executes on it, lists it', async () => {
    const created = await nerve(['node', 'create', 'sh', '--kind', 'bash', '--json'], env)
    expect(created.code, created.stderr).toBe(0)
    expect(decode(NodeInfo, created.stdout).type).toBe('bash')
    const ran = await nerve(['node', 'execute', 'sh', 'echo hello-from-cli'], env)
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stdout).toBe('hello-from-cli\n')
    // A command that fails: what it printed, then the error.
    const failed = await nerve(['node', 'execute', 'sh', 'echo out; echo err >&2; false'], env)
    expect(failed.code).toBe(1)
    expect(failed.stdout).toBe('out\n')
    expect(failed.stderr).toMatch(/^error: BashFailed: .*exited with code 1: err$/m)
    const listed = decode(NodeList, (await nerve(['node', 'list', '--json'], env)).stdout)
    expect(listed.nodes.map((n) => n.id)).toContain('sh')
  })

  it("prints an LLM node's conversation", async () => {
    await nerve(['node', 'create', 'talk', '--kind', 'llm', '--set', 'provider=echo'], env)
    expect((await nerve(['node', 'conversation', 'talk'], env)).stdout).toBe('no messages yet\n')
    await nerve(['node', 'execute', 'talk', 'hello'], env)
    const r = await nerve(['node', 'conversation', 'talk'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/● USER \w+\n│ {3}hello\n● ASSISTANT \w+\n│ {3}echo: hello\n/)
    const json: unknown = JSON.parse(
      (await nerve(['node', 'conversation', 'talk', '--json'], env)).stdout,
    )
    expect(json).toMatchObject({ nodeId: 'talk', messageCount: 2 })
    const bash = await nerve(['node', 'conversation', 'sh'], env)
    expect(bash.code).toBe(2)
    expect(bash.stderr).toMatch(
      /^error: InvalidOptions at \/nodeId: .*only nodes with a conversation/,
    )
  })

  it('is reachable as nerve server node too', async () => {
    const r = await nerve(['server', 'node', 'list'], env)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('sh')
  })

  it("forks a node and prints Forked 'a' → 'b'", async () => {
    const r = await nerve(['node', 'fork', 'sh', 'sh2', '--execute', 'echo on-the-fork'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("Forked 'sh' → 'sh2'")
    expect(r.stdout).toContain('on-the-fork')
    const json = await nerve(['node', 'fork', 'sh', 'sh3', '--json'], env)
    expect(decode(Fork, json.stdout)).toMatchObject({
      nodeId: 'sh3',
      forkedFrom: 'sh',
      nodeType: 'bash',
    })
  })

  it("reads a node's history", async () => {
    const r = await nerve(['node', 'history', 'sh', '--json'], env)
    expect(r.code, r.stderr).toBe(0)
    const h = decode(
      t.type({ history: t.array(t.type({ op: t.string, input: t.unknown })) }),
      r.stdout,
    )
    expect(h.history.some((x) => x.input === 'echo hello-from-cli')).toBe(true)
  })

  it('names an unknown node with its tag and path, exit 3 (not found)', async () => {
    const r = await nerve(['node', 'execute', 'ghost', 'x'], env)
    expect(r.code).toBe(3)
    oneErrorLine(r, 'UnknownNode')
    expect(r.stderr).toContain('at /nodeId')
  })

  it('refuses a taken fork target', async () => {
    const r = await nerve(['node', 'fork', 'sh', 'sh2'], env)
    expect(r.code).toBe(4)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('runs a graph on the daemon with --server', async () => {
    const r = await nerve(
      ['graph', 'run', 'examples/release-check.json', '--server', '--json'],
      env,
    )
    expect(r.code, r.stderr).toBe(0)
    expect(decode(RunInfo, r.stdout.trim().split('\n').at(-1)!).state).toBe('completed')
  })

  it('stops and deletes a node', async () => {
    expect((await nerve(['node', 'stop', 'sh3'], env)).code).toBe(0)
    expect((await nerve(['node', 'delete', 'sh3'], env)).code).toBe(0)
    const listed = decode(NodeList, (await nerve(['node', 'list', '--json'], env)).stdout)
    expect(listed.nodes.map((n) => n.id)).not.toContain('sh3')
  })
})
