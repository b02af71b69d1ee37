/**
 * Engine benchmarks (issue 11), in process, no socket:
 *
 * - `engine.dispatch`: a PING through `engine.connect` — the line read and
 *   checked, the params decoded, the command run, the answer written —
 *   against a raw NDJSON echo handler (parse the line, write
 *   `{ id, result }`) answering on the same microtask boundary, in µs per
 *   call. Target: ≤ 5× raw.
 * - `engine.execute`: `echo hi` on a PTY bash through `EXECUTE_INPUT`
 *   (events, busy/ready, history off) against `Session.execute` on a PTY
 *   node in the same process, in ms: what the engine adds to the session.
 *   Target (issue 25): ≤ 1.2× the session.
 * - `engine.turn.store`: a turn of an echo LLM node through `EXECUTE_INPUT`
 *   on an engine whose SQLite store (a file in a temporary directory) is
 *   written as the turn ends — the node's row and the turn's three new
 *   vertices (question, answer, stop reason), in one transaction — against
 *   the same turn on an engine without a store followed by raw
 *   better-sqlite3 writes of the same rows (three vertex inserts and a node
 *   upsert, one transaction, same pragmas),
 *   in µs per turn: what writing as it goes costs beyond the writes
 *   themselves. `engine.turn.nostore` is the turn with no write at all, in
 *   the same run, for scale. Target: ≤ 1.3× the raw writes.
 */
import { createSession, defaultInterpreters, pty } from '../src/index.js'
import { interpreters } from '../src/core.js'
import { ptyInterpreter } from '../src/interpreters/index.js'
import { createEngine, type Engine, type EngineConnection } from '../src/server/index.js'
import Database from 'better-sqlite3'
import { sqliteStore } from '../src/store/index.js'
import { interleaveAsync, type Benchmark, type Result } from './harness.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const BASH = {
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ', PROMPT_COMMAND: '', SHLVL: '1' },
} as const

const now = (): number => performance.now()

/** A connection whose answers resolve the call waiting for them. */
const caller = (receive: (line: string) => void) => {
  let waiting: ((line: string) => void) | undefined
  let next = 0
  return {
    sink: (line: string): boolean => {
      const w = waiting
      waiting = undefined
      w?.(line)
      return true
    },
    call: (method: string, params: object): Promise<string> =>
      new Promise((resolve) => {
        waiting = resolve
        receive(JSON.stringify({ jsonrpc: '2.0', id: ++next, method, params }))
      }),
  }
}

/** A caller on a new connection of `engine`. */
const connected = (engine: Engine) => {
  const box: { connection?: EngineConnection } = {}
  const c = caller((line) => {
    box.connection!.receive(line)
  })
  box.connection = engine.connect({ send: c.sink })
  return c
}

const BATCH = 2000

const dispatch: Benchmark = {
  name: 'engine.dispatch',
  run: async ({ rounds }) => {
    const engine = createEngine({ history: false, env: {} })
    const ours = connected(engine)
    const raw: ReturnType<typeof caller> = caller((line) => {
      void Promise.resolve().then(() => {
        const m = JSON.parse(line) as { id: number }
        raw.sink(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { pong: true } }))
      })
    })
    const batch = async (c: ReturnType<typeof caller>) => {
      const t0 = now()
      for (let i = 0; i < BATCH; i++) await c.call('PING', {})
      return { us: ((now() - t0) * 1000) / BATCH }
    }
    const { ours: o, baseline: b } = await interleaveAsync({
      rounds: rounds ?? 21,
      warmup: 3,
      ours: () => batch(ours),
      baseline: () => batch(raw),
    })
    await engine.shutdown()
    const result: Result = {
      name: 'engine.dispatch',
      unit: 'µs/call',
      median: o.us,
      baseline: 'raw NDJSON echo',
      baselineMedian: b.us,
      target: { ratio: 5 },
    }
    return [result]
  },
}

const execute: Benchmark = {
  name: 'engine.execute',
  run: async ({ rounds }) => {
    const engine = createEngine({ history: false, env: {} })
    const ours = connected(engine)
    await ours.call('CREATE_NODE', { nodeId: 'sh', kind: 'pty', options: BASH })
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), ptyInterpreter()),
    })
    session.register(pty('sh', BASH))
    await session.start('sh')
    const { ours: o, baseline: b } = await interleaveAsync({
      rounds: rounds ?? 300,
      warmup: 30,
      ours: async () => {
        const t0 = now()
        const line = await ours.call('EXECUTE_INPUT', { nodeId: 'sh', input: 'echo hi' })
        const ms = now() - t0
        if (!line.includes('"text":"hi"')) throw new Error(`engine.execute: got ${line}`)
        return { ms }
      },
      baseline: async () => {
        const t0 = now()
        const r = (await session.execute('sh', 'echo hi')) as { text: string }
        const ms = now() - t0
        if (r.text !== 'hi') throw new Error(`engine.execute: the session got ${r.text}`)
        return { ms }
      },
    })
    await Promise.all([engine.shutdown(), session.close()])
    return [
      {
        name: 'engine.execute',
        unit: 'ms',
        median: o.ms,
        baseline: 'Session.execute on a PTY',
        baselineMedian: b.ms,
        target: { ratio: 1.2 },
      },
    ]
  },
}

const TURNS = 50

/** A database with the store's vertex and node tables, written the way the store writes them. */
const rawTables = (path: string) => {
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.exec(`CREATE TABLE vertices (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
    parents TEXT NOT NULL, data TEXT NOT NULL, meta TEXT);
  CREATE TABLE nodes (session_id TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
    state TEXT NOT NULL, description TEXT NOT NULL, live TEXT, head TEXT,
    PRIMARY KEY (session_id, name))`)
  const vertex = db.prepare<[string, string, string]>(
    'INSERT INTO vertices (id, parents, data, meta) VALUES (?, ?, ?, NULL) ON CONFLICT (id) DO NOTHING',
  )
  const node = db.prepare<[string, string, string, string]>(
    `INSERT INTO nodes (session_id, name, kind, state, description, live, head)
     VALUES ('default', ?, 'llm', 'ready', ?, ?, ?)
     ON CONFLICT (session_id, name) DO UPDATE SET state = excluded.state,
       description = excluded.description, live = excluded.live, head = excluded.head`,
  )
  const description = JSON.stringify({
    id: 'chat',
    kind: 'llm',
    persistent: true,
    metadata: {},
    provider: 'echo',
    system: '',
    tools: [],
    maxToolRounds: 20,
    toolChoice: { type: 'auto' },
    parallelToolCalls: true,
  })
  let n = 0
  const turn = db.transaction((nodeId: string, input: string) => {
    // 16 hex digits, as vertex ids are
    const asked = `u${n++}`.padStart(16, '0')
    const answered = `a${n++}`.padStart(16, '0')
    vertex.run(
      asked,
      `["p${n}"]`,
      JSON.stringify({ type: 'message', role: 'user', content: input }),
    )
    vertex.run(
      answered,
      `["${asked}"]`,
      JSON.stringify({ type: 'message', role: 'assistant', content: `echo: ${input}` }),
    )
    const stopped = `s${n++}`.padStart(16, '0')
    vertex.run(stopped, `["${answered}"]`, JSON.stringify({ type: 'stop', reason: 'end_turn' }))
    node.run(nodeId, description, JSON.stringify({ head: stopped }), stopped)
  })
  return { db, turn }
}

const turnStore: Benchmark = {
  name: 'engine.turn.store',
  run: async ({ rounds }) => {
    const dir = mkdtempSync(join(tmpdir(), 'nerve-bench-turn-'))
    const store = sqliteStore(join(dir, 'nerve.db'))
    const raw = rawTables(join(dir, 'raw.db'))
    const kept = createEngine({ history: false, env: {}, store })
    const bare = createEngine({ history: false, env: {} })
    const callers = { kept: connected(kept), bare: connected(bare) }
    let node = 0
    /** A fresh echo LLM node per batch, so every side turns on conversations of the same length. */
    const batch = async (c: ReturnType<typeof connected>, write?: typeof raw.turn) => {
      const nodeId = `chat${node++}`
      await c.call('CREATE_NODE', { nodeId, kind: 'llm', options: { provider: 'echo' } })
      const t0 = now()
      for (let i = 0; i < TURNS; i++) {
        const line = await c.call('EXECUTE_INPUT', { nodeId, input: `turn ${i}` })
        if (!line.includes(`echo: turn ${i}`)) throw new Error(`engine.turn.store: got ${line}`)
        write?.(nodeId, `turn ${i}`)
      }
      return { us: ((now() - t0) * 1000) / TURNS }
    }
    const { ours: o, baseline: b } = await interleaveAsync({
      rounds: rounds ?? 21,
      warmup: 3,
      ours: () => batch(callers.kept),
      baseline: () => batch(callers.bare, raw.turn),
    })
    const { ours: plain } = await interleaveAsync({
      rounds: rounds ?? 21,
      warmup: 3,
      ours: () => batch(callers.bare),
      baseline: () => batch(callers.bare),
    })
    const written = store.nodes('default').filter((n) => n.head !== undefined).length
    await Promise.all([kept.shutdown(), bare.shutdown()])
    await store.close()
    raw.db.close()
    rmSync(dir, { recursive: true, force: true })
    // Every batch of ours (warm-up included) left its node with its conversation in the store.
    if (written !== (rounds ?? 21) + 3) {
      throw new Error(`engine.turn.store: the store kept ${written} conversations`)
    }
    return [
      {
        name: 'engine.turn.store',
        unit: 'µs/turn',
        median: o.us,
        baseline: 'no store, then raw writes of the same rows',
        baselineMedian: b.us,
        target: { ratio: 1.3 },
      },
      {
        name: 'engine.turn.nostore',
        unit: 'µs/turn',
        median: plain.us,
        baseline: 'the turn with the store',
        baselineMedian: o.us,
      },
    ]
  },
}

export const benchmarks: readonly Benchmark[] = [dispatch, execute, turnStore]
