/**
 * A node kind of the user's own (test/fixtures/counter: its data side and
 * its interpreter side), given to a daemon in one line, is what every face
 * offers: `nerve node create --kind`, `nerve node kinds`, the REPL's
 * completion, the MCP tool's enum, graph files and the daemon's commands.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import * as E from 'fp-ts/lib/Either.js'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { NerveClient } from '../../../src/client/index.js'
import { creatableKinds } from '../../../src/cli/commands/repl.js'
import { program } from '../../../src/cli/program.js'
import { complete } from '../../../src/cli/repl/line.js'
import { decodeGraph } from '../../../src/graph/index.js'
import { builtinKinds, kindsOf } from '../../../src/interpreters/index.js'
import { createMcpServer } from '../../../src/mcp/index.js'
import { startServer, type ServerHandle } from '../../../src/server/index.js'
import { counterKind } from '../../fixtures/counter/counterInterpreter.js'

let dir: string
let server: ServerHandle
let socket: string
let client: NerveClient

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-kinds-'))
  socket = join(dir, 'nerve.sock')
  // the one line: the engine is given the kind
  server = await startServer({
    engineOptions: { history: false, kinds: [counterKind] },
    socket,
    pidFile: false,
  })
  client = await NerveClient.connect(socket)
})

afterAll(async () => {
  await client.close()
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs `nerve …args` in this process against the daemon; what it printed and its exit code. */
const nerveText = async (...args: string[]): Promise<{ out: string; code: number }> => {
  const written: string[] = []
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    written.push(String(chunk))
    return true
  })
  const before = process.exitCode
  process.exitCode = 0
  try {
    await program('0.0.0')
      .exitOverride()
      .parseAsync(['node', 'nerve', '--socket', socket, ...args])
    const code: unknown = process.exitCode // set by a failing command
    return { out: written.join(''), code: Number(code ?? 0) }
  } finally {
    write.mockRestore()
    process.exitCode = before
  }
}

/** `nerve --json …args`. */
const nerve = (...args: string[]) => nerveText('--json', ...args)

describe('a node kind of your own', () => {
  it('is created by `nerve node create --kind`, by its name or an alias, and runs on the daemon', async () => {
    const created = await nerve('node', 'create', 'c', '--kind', 'counter', '--set', 'start=5')
    expect(created.code).toBe(0)
    expect(JSON.parse(created.out)).toMatchObject({ id: 'c', type: 'counter', state: 'ready' })
    const first = await nerve('node', 'execute', 'c', 'x')
    const second = await nerve('node', 'execute', 'c', 'x')
    expect([JSON.parse(first.out), JSON.parse(second.out)]).toEqual([5, 6])
    const alias = await nerve(
      'node',
      'create',
      't',
      '--kind',
      'tally',
      '--options',
      '{"start":1,"step":10}',
    )
    expect(JSON.parse(alias.out)).toMatchObject({ id: 't', type: 'counter' })
  })

  it('is refused with its options codec, at the bad option', async () => {
    const bad = await nerve('node', 'create', 'b', '--kind', 'counter', '--set', 'start="x"')
    expect(bad.code).toBe(2)
    expect(JSON.parse(bad.out)).toMatchObject({
      error: { tag: 'InvalidOptions', path: '/options/start' },
    })
    const unknown = await nerve('node', 'create', 'u', '--kind', 'counterr')
    expect(JSON.parse(unknown.out)).toMatchObject({ error: { tag: 'UnknownKind', path: '/kind' } })
    expect((JSON.parse(unknown.out) as { error: { message: string } }).error.message).toMatch(
      /counter/,
    )
  })

  it('is listed by `nerve node kinds` with its summary, aliases and options', async () => {
    const { out } = await nerve('node', 'kinds')
    const { kinds } = JSON.parse(out) as { kinds: { kind: string }[] }
    expect(kinds.find((k) => k.kind === 'counter')).toMatchObject({
      aliases: ['tally'],
      summary: 'counts its executes from start, by step',
      persistent: true,
      capabilities: { terminal: false, conversation: false, fork: false },
    })
    const text = await nerveText('node', 'kinds')
    expect(text.out).toContain(
      'counter (also: tally)\n  counts its executes from start, by step\n  options: start, step\n',
    )
    // the CLI lists what the daemon makes: no kind that CREATE_NODE refuses
    expect(kinds.map((k) => k.kind)).not.toContain('toolset')
  })

  it('is what the REPL completes after `:create NAME`', async () => {
    const kinds = await creatableKinds(client)
    expect(complete(':create x co', [], kinds)).toEqual([['counter'], 'co'])
    expect(kinds).toEqual(
      [...builtinKinds.values(), counterKind].filter((k) => k.creatable).map((k) => k.kind),
    )
  })

  it('is in the enum of the MCP create tool, and the tool makes one', async () => {
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair()
    await createMcpServer(client).connect(serverSide)
    const mcp = new Client({ name: 'test', version: '1.0.0' })
    await mcp.connect(clientSide)
    try {
      const { tools } = await mcp.listTools()
      const create = tools.find((t) => t.name === 'nerve_create_node')!.inputSchema
      expect((create.properties?.kind as { enum: string[] }).enum).toContain('counter')
      const made = await mcp.callTool({
        name: 'nerve_create_node',
        arguments: { nodeId: 'm', kind: 'counter', options: { start: 3 } },
      })
      expect(made.isError).toBeFalsy()
    } finally {
      await mcp.close()
    }
  })

  it('is described in graph files: decoded with its codec, and run by the daemon', async () => {
    const file = {
      id: 'g',
      nodes: { n: { kind: 'counter', start: 10, step: 2 } },
      steps: [{ id: 'a', node: 'n' }],
    }
    const kinds = kindsOf(...builtinKinds.values(), counterKind)
    const decoded = decodeGraph(file, { kinds })
    expect(E.isRight(decoded)).toBe(true)
    const bad = decodeGraph({ ...file, nodes: { n: { kind: 'counter', start: 'x' } } }, { kinds })
    expect(E.isLeft(bad) && bad.left.map((e) => e.path)).toEqual(['/nodes/n/start'])
    const run = await client.runGraph(file)
    const info = await run.result()
    expect(info.results).toEqual({ a: 10 })
    await expect(
      client.runGraph({ ...file, nodes: { n: { kind: 'counter', start: 'x' } } }),
    ).rejects.toMatchObject({ tag: 'GraphFileInvalid', path: '/graph/nodes/n/start' })
  })

  it('is walked by docs/extending.md, whose two files are the ones this test gives the daemon', () => {
    const doc = readFileSync(new URL('../../../docs/extending.md', import.meta.url), 'utf8')
    for (const file of ['CounterNode.ts', 'counterInterpreter.ts']) {
      const block = new RegExp('```ts\\n// ' + file + '\\n([\\s\\S]*?)```').exec(doc)?.[1]
      const source = readFileSync(
        new URL(`../../fixtures/counter/${file}`, import.meta.url),
        'utf8',
      )
      // the fixture imports the sources; the doc, the package (root and subpaths)
      const asPackage = source.replace(
        /'\.\.\/\.\.\/\.\.\/src\/(\w+)(?:\/index)?\.js'/g,
        (_, p: string) => (p === 'index' ? "'nerve-agents'" : `'nerve-agents/${p}'`),
      )
      expect(block).toBe(asPackage)
    }
  })
})
