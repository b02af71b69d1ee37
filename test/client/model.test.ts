/**
 * Model-based: random sequences of commands give the same results
 * in-process and over the Unix socket, and both agree with a model of the
 * session (which nodes exist, which are stopped).
 */
import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { createEngine, standaloneClient, startServer } from '../../src/server/index.js'

interface Model {
  /** Node name → stopped? */
  readonly nodes: Map<string, boolean>
}

interface Real {
  readonly local: NerveClient
  readonly remote: NerveClient
}

/** Fields that differ between two runs of the same command: clocks. */
const VARYING = new Set(['time', 'durationMs', 'startedAt', 'createdAt', 'fork_time'])

/** What a call answered, with what differs between two engines (times) left out. */
const outcome = async (p: Promise<unknown>): Promise<unknown> => {
  try {
    return {
      ok: JSON.parse(
        JSON.stringify(await p, (k, v: unknown) => (VARYING.has(k) ? undefined : v)),
      ) as unknown,
    }
  } catch (e) {
    const err = e as { tag?: string; code?: number; path?: string }
    return { error: { tag: err.tag, code: err.code, path: err.path } }
  }
}

/** Runs the same call on both clients; they must agree. */
const both = async (r: Real, call: (c: NerveClient) => Promise<unknown>): Promise<unknown> => {
  const [a, b] = await Promise.all([outcome(call(r.local)), outcome(call(r.remote))])
  expect(b).toEqual(a)
  return a
}

const NAMES = ['a', 'b', 'c'] as const
const name = fc.constantFrom(...NAMES)

type Cmd = fc.AsyncCommand<Model, Real>

const command = (label: string, run: (m: Model, r: Real) => Promise<void>): Cmd => ({
  check: () => true,
  run,
  toString: () => label,
})

const create = (n: string): Cmd =>
  command(`create(${n})`, async (m, r) => {
    const got = await both(r, (c) => c.call('CREATE_NODE', { nodeId: n, kind: 'bash' }))
    if (m.nodes.has(n)) expect(got).toMatchObject({ error: { tag: 'NameTaken' } })
    else {
      expect(got).toMatchObject({ ok: { id: n, type: 'bash' } })
      m.nodes.set(n, false)
    }
  })

const get = (n: string): Cmd =>
  command(`get(${n})`, async (m, r) => {
    const got = await both(r, (c) => c.call('GET_NODE', { nodeId: n }))
    if (m.nodes.has(n)) expect(got).toMatchObject({ ok: { id: n } })
    else expect(got).toMatchObject({ error: { tag: 'UnknownNode' } })
  })

const list = (): Cmd =>
  command('list', async (m, r) => {
    const got = (await both(r, (c) => c.call('LIST_NODES', {}))) as {
      ok: { nodes: { id: string }[] }
    }
    expect(got.ok.nodes.map((n) => n.id).sort()).toEqual([...m.nodes.keys()].sort())
  })

const remove = (n: string): Cmd =>
  command(`delete(${n})`, async (m, r) => {
    const got = await both(r, (c) => c.call('DELETE_NODE', { nodeId: n }))
    if (m.nodes.has(n)) {
      expect(got).toEqual({ ok: { deleted: true } })
      m.nodes.delete(n)
    } else expect(got).toMatchObject({ error: { tag: 'UnknownNode' } })
  })

const stop = (n: string): Cmd =>
  command(`stop(${n})`, async (m, r) => {
    const got = await both(r, (c) => c.call('STOP_NODE', { nodeId: n }))
    if (m.nodes.has(n)) {
      expect(got).toMatchObject({ ok: { id: n, state: 'stopped' } })
      m.nodes.set(n, true)
    } else expect(got).toMatchObject({ error: { tag: 'UnknownNode' } })
  })

const execute = (n: string, word: string): Cmd =>
  command(`execute(${n}, ${word})`, async (m, r) => {
    const got = await both(r, (c) => c.call('EXECUTE_INPUT', { nodeId: n, input: `echo ${word}` }))
    if (m.nodes.get(n) === false) expect(got).toMatchObject({ ok: { stdout: `${word}\n` } })
    else expect(got).toHaveProperty('error')
  })

const fork = (from: string, to: string): Cmd =>
  command(`fork(${from}, ${to})`, async (m, r) => {
    const got = await both(r, (c) => c.call('FORK_NODE', { sourceId: from, targetId: to }))
    if (m.nodes.get(from) === false && !m.nodes.has(to)) {
      expect(got).toMatchObject({ ok: { nodeId: to, forkedFrom: from } })
      m.nodes.set(to, false)
    } else expect(got).toHaveProperty('error')
  })

const badParams = (): Cmd =>
  command('badParams', async (_m, r) => {
    const got = await both(r, (c) => c.call('GET_NODE', { nodeId: 'a', extra: 1 }))
    expect(got).toMatchObject({ error: { code: -32602, path: '/extra' } })
  })

const commands = fc.commands(
  [
    name.map(create),
    name.map(get),
    fc.constant(list()),
    name.map(remove),
    name.map(stop),
    fc.tuple(name, fc.constantFrom('x', 'y')).map(([n, w]) => execute(n, w)),
    fc.tuple(name, name).map(([a, b]) => fork(a, b)),
    fc.constant(badParams()),
  ],
  { maxCommands: 12 },
)

describe('the protocol, in-process and over the Unix socket', () => {
  it('gives the same results for random command sequences, and both follow the model (law)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nerve-model-'))
    try {
      await fc.assert(
        fc.asyncProperty(commands, async (cmds) => {
          const server = await startServer({
            engine: createEngine({ history: false }),
            socket: join(dir, 'n.sock'),
            pidFile: false,
          })
          const local = await standaloneClient({ history: false })
          const remote = await NerveClient.connect(server.socket)
          try {
            await fc.asyncModelRun(
              () => ({ model: { nodes: new Map() }, real: { local, remote } }),
              cmds,
            )
          } finally {
            await remote.close()
            await local.close()
            await server.close()
          }
        }),
        { numRuns: 30 },
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
