/**
 * SQLite store benchmarks (issue 14), each against a baseline measured in
 * the same run:
 *
 * - `store.append`: persisting a conversation turn by turn (a user message,
 *   an assistant message calling two tools, the two results merged, an
 *   answer and a stop reason: 7 vertices a turn, one transaction each), per
 *   appended vertex, against raw better-sqlite3 inserts of the same rows
 *   (id, parents, `JSON.stringify` of the entry and metadata) into the same
 *   table, one transaction a turn.
 * - `store.load`: reading back a 10⁵-vertex conversation by its head,
 *   against `codec.load.nerve`'s work on the same conversation (parse and
 *   decode its Nerve file text).
 * - `store.fork`: forking an LLM node holding 10⁴ messages and saving the
 *   session (its node snapshots), per fork, against the fork alone; and
 *   `store.fork.rows`, the vertex rows those saves wrote (goal 0), against
 *   the rows a store that copies the history would write.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import * as E from 'fp-ts/lib/Either.js'
import {
  assistant,
  type Conversation,
  fork,
  llm,
  llmInterpreter,
  messages,
  stop,
  toolResults,
  user,
} from '../src/index.js'
import { interpreters, parseConversation, stringifyConversation } from '../src/core.js'
import { sessionManager, setConversation } from '../src/session/index.js'
import { sqliteStore } from '../src/store/index.js'
import { scriptedProvider } from '../src/testing/index.js'
import { buildConversation } from './codec.bench.js'
import { gc, interleave, interleaveAsync, sink, timeUs, type Benchmark } from './harness.js'

const SCHEMA = `CREATE TABLE vertices (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
  parents TEXT NOT NULL, data TEXT NOT NULL, meta TEXT)`

const rawDb = (path: string): Database.Database => {
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.exec(SCHEMA)
  return db
}

/** The vertices a turn adds. */
const VERTICES_PER_TURN = 7

/** The vertices of turn `i` on `c`, parents first ({@link VERTICES_PER_TURN} of them; the last is the new head). */
const turn = (c: Conversation, i: number): Conversation[] => {
  const out: Conversation[] = []
  let h = user(`Turn ${i}: what does src/module${i}.ts do?`)(c)
  out.push(h)
  h = assistant([
    { type: 'text', text: 'Let me read it and look for callers.' },
    { type: 'tool_use', id: `t${i}a`, name: 'read_file', input: { path: `src/module${i}.ts` } },
    { type: 'tool_use', id: `t${i}b`, name: 'grep', input: { pattern: `module${i}` } },
  ])(h)
  out.push(h)
  const results = toolResults([
    { tool_use_id: `t${i}a`, content: `export const f${i} = (x: number) => x * ${i}\n` },
    { tool_use_id: `t${i}b`, content: `src/main.ts:${i}: import { f${i} }` },
  ])(h)
  // toolResults adds an execution per call (each on the assistant message) and
  // the merged message: keep every new vertex, parents before children.
  const added: Conversation[] = []
  const seen = new Set<Conversation>([h])
  const visit = (v: Conversation): void => {
    if (seen.has(v)) return
    seen.add(v)
    for (const p of v.parents) visit(p)
    added.push(v)
  }
  visit(results)
  out.push(...added)
  h = assistant(`Module ${i} exports f${i}; src/main.ts uses it.`)(results)
  out.push(h)
  h = stop('end_turn', { input_tokens: 900 + i, output_tokens: 40 })(h)
  out.push(h)
  return out
}

const appendBench: Benchmark = {
  name: 'store.append',
  run: ({ rounds, log }) => {
    const turnsPerSample = 200
    const dir = mkdtempSync(join(tmpdir(), 'nerve-bench-store-'))
    try {
      const store = sqliteStore(join(dir, 'nerve.db'))
      const raw = rawDb(join(dir, 'raw.db'))
      const insert = raw.prepare<[string, string, string, string | null]>(
        'INSERT INTO vertices (id, parents, data, meta) VALUES (?, ?, ?, ?)',
      )
      const rawTurn = raw.transaction((vs: readonly Conversation[], parent: number) => {
        let p = parent
        for (const v of vs) {
          const meta = Object.keys(v.meta).length === 0 ? null : JSON.stringify(v.meta)
          p = Number(insert.run(v.id, `[${p}]`, JSON.stringify(v.data), meta).lastInsertRowid)
        }
        return p
      })
      // Two equal histories, one per side, built ahead (ids included) so that
      // both sides persist, not build. Each side extends only its own: a turn
      // on a head the store never saw would make it write that history too.
      const start = buildConversation(2)
      store.putConversation(start)
      const sides = { ours: { head: start, next: 0 }, raw: { head: start, next: 0, parent: 0 } }
      /** The next turns of one side's history, ids computed. */
      const sample = (side: { head: Conversation; next: number }): Conversation[][] => {
        const turns: Conversation[][] = []
        for (let k = 0; k < turnsPerSample; k++) {
          const vs = turn(side.head, side.next++)
          for (const v of vs) sink.value = v.id // the ids are computed here, not timed
          turns.push(vs)
          side.head = vs[vs.length - 1]!
        }
        return turns
      }
      log(`  ${turnsPerSample} turns of ${VERTICES_PER_TURN} vertices per sample`)
      const m = interleave({
        rounds: rounds ?? 15,
        warmup: 2,
        ours: () => {
          const turns = sample(sides.ours)
          gc()
          let written = 0
          const us = timeUs(() => {
            for (const vs of turns) written += store.putConversation(vs[vs.length - 1]!)
          })
          if (written !== turnsPerSample * VERTICES_PER_TURN) {
            throw new Error(`store.append wrote ${written} rows`)
          }
          return { us: us / (turnsPerSample * VERTICES_PER_TURN) }
        },
        baseline: () => {
          const turns = sample(sides.raw)
          gc()
          const us = timeUs(() => {
            for (const vs of turns) sides.raw.parent = rawTurn(vs, sides.raw.parent)
          })
          return { us: us / (turnsPerSample * VERTICES_PER_TURN) }
        },
      })
      raw.close()
      void store.close()
      return [
        {
          name: 'store.append',
          unit: 'µs',
          median: m.ours.us,
          baseline: 'raw better-sqlite3 inserts, a transaction a turn',
          baselineMedian: m.baseline.us,
          target: { ratio: 1.5 },
        },
      ]
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}

const loadBench: Benchmark = {
  name: 'store.load',
  run: ({ rounds, log }) => {
    const dir = mkdtempSync(join(tmpdir(), 'nerve-bench-store-'))
    try {
      const path = join(dir, 'nerve.db')
      const head = buildConversation(1e5)
      const text = stringifyConversation({ heads: [head], metadata: {} })
      const writer = sqliteStore(path)
      const written = writer.putConversation(head)
      void writer.close()
      log(`  ${written} vertices stored; the file text is ${(text.length / 1e6).toFixed(1)} MB`)
      const store = sqliteStore(path)
      const back = store.conversation(head.id)
      if (back?.id !== head.id || messages(back).length !== messages(head).length) {
        throw new Error('the store does not load what it stored')
      }
      const m = interleave({
        rounds: rounds ?? 7,
        warmup: 1,
        ours: () => {
          gc()
          // A store of its own each sample: nothing it remembers of earlier loads helps.
          const fresh = sqliteStore(path)
          let out: Conversation | undefined
          const us = timeUs(() => {
            out = fresh.conversation(head.id)
          })
          if (out === undefined) throw new Error('nothing loaded')
          void fresh.close()
          return { ms: us / 1e3 }
        },
        baseline: () => {
          gc()
          let out: unknown
          const us = timeUs(() => {
            out = parseConversation(text)
          })
          if (!E.isRight(out as E.Either<unknown, unknown>)) throw new Error('the codec failed')
          return { ms: us / 1e3 }
        },
      })
      void store.close()
      return [
        {
          name: 'store.load',
          unit: 'ms',
          median: m.ours.ms,
          baseline: 'codec.load.nerve (parse and decode the file text)',
          baselineMedian: m.baseline.ms,
        },
      ]
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}

const forkBench: Benchmark = {
  name: 'store.fork',
  run: async ({ rounds, log }) => {
    const forks = 50
    const dir = mkdtempSync(join(tmpdir(), 'nerve-bench-store-'))
    try {
      const store = sqliteStore(join(dir, 'nerve.db'))
      const model = scriptedProvider(['ok'], { loop: true })
      const manager = sessionManager({
        store,
        interpreters: interpreters(llmInterpreter({ providers: model })),
      })
      const session = await manager.create({ id: 'bench' })
      session.register(llm('dev'))
      await session.start('dev')
      let head = user('start')(buildConversation(1))
      for (let i = 1; i < 1e4; i++) head = (i % 2 === 0 ? user : assistant)(`message ${i}`)(head)
      setConversation(session, 'dev', head)
      await manager.save('bench')
      const history = store.vertexCount()
      log(
        `  ${forks} forks per sample of a ${messages(head).length}-message node (${history} vertices)`,
      )
      let sample = 0
      let rows = 0
      let saves = 0
      const m = await interleaveAsync({
        rounds: rounds ?? 15,
        warmup: 2,
        ours: async () => {
          const names = Array.from({ length: forks }, (_, k) => `s${sample}-${k}`)
          sample++
          const before = store.vertexCount()
          const t0 = performance.now()
          for (const name of names) {
            await fork(session, 'dev', name)
            await manager.save('bench')
          }
          const us = ((performance.now() - t0) * 1000) / forks
          rows += store.vertexCount() - before
          saves += forks
          for (const name of names) session.unregister(name)
          return { us }
        },
        baseline: async () => {
          const names = Array.from({ length: forks }, (_, k) => `b${sample}-${k}`)
          sample++
          const t0 = performance.now()
          for (const name of names) await fork(session, 'dev', name)
          const us = ((performance.now() - t0) * 1000) / forks
          for (const name of names) session.unregister(name)
          return { us }
        },
      })
      await manager.closeAll()
      await store.close()
      return [
        {
          name: 'store.fork',
          unit: 'µs',
          median: m.ours.us,
          baseline: 'the fork alone, not saved',
          baselineMedian: m.baseline.us,
        },
        {
          name: 'store.fork.rows',
          unit: 'rows',
          median: rows / saves,
          baseline: 'vertex rows a copy of the history writes',
          baselineMedian: history,
          target: { median: 0 },
        },
      ]
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}

/** The store benchmarks, in the order they run. */
export const benchmarks: readonly Benchmark[] = [appendBench, loadBench, forkBench]
