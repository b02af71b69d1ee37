import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, describe, expect, it } from 'vitest'
import {
  addStep,
  ancestors,
  ancestorsOfAll,
  assistant,
  type Conversation,
  defaultInterpreters,
  empty,
  fn,
  fork,
  graph,
  llm,
  llmInterpreter,
  run,
  UsageError,
  user,
} from 'nerve-agents'
import { encodeConversation, interpreters } from 'nerve-agents/core'
import {
  conversationOf,
  isStoreCorrupt,
  nodeSnapshot,
  sessionManager,
  type SessionRecord,
} from 'nerve-agents/session'
import { conversationHeads, scriptedProvider } from 'nerve-agents/testing'
import { isStoreTooNew, SCHEMA_VERSION, sqliteStore, type SqliteStore } from 'nerve-agents/store'

const base = mkdtempSync(join(tmpdir(), 'nerve-sqlite-'))
let n = 0
const freshPath = (): string => join(base, `case-${n++}`, 'nerve.db')
const opened: SqliteStore[] = []
const freshStore = (): SqliteStore => {
  const store = sqliteStore(freshPath())
  opened.push(store)
  return store
}
afterAll(async () => {
  for (const s of opened) await s.close()
  rmSync(base, { recursive: true, force: true })
})

const AT = '2025-03-01T12:00:00.000Z'
const record = (id: string, fields?: Partial<SessionRecord>): SessionRecord => ({
  id,
  name: `session ${id}`,
  tags: [],
  created_at: AT,
  updated_at: AT,
  metadata: {},
  nodes: [],
  ...fields,
})

/** Everything about a conversation but object identity: ids, parents, entries, metadata. */
const wire = (c: Conversation) => encodeConversation({ heads: [c], metadata: {} })

describe('sqliteStore as a SessionStore', () => {
  it('loads what it saved, in insertion order, frozen, and replaces a record in place', async () => {
    const store = freshStore()
    const a = record('a', {
      tags: ['x'],
      metadata: { deep: [{ k: null }] },
      nodes: [{ id: 'sh', type: 'bash', state: 'ready', metadata: {} }],
    })
    await store.save(a)
    await store.save(record('b'))
    await store.save(record('a', { ...a, name: 'renamed' }))
    const loaded = await store.load()
    expect(loaded.map((r) => [r.id, r.name])).toEqual([
      ['a', 'renamed'],
      ['b', 'session b'],
    ])
    expect(Object.isFrozen(loaded[0]?.nodes[0])).toBe(true)
    expect(await store.get('b')).toEqual(record('b'))
    expect(await store.get('nope')).toBeUndefined()
  })

  it('finds records by name and by tag, and removes one saying whether there was one', async () => {
    const store = freshStore()
    await store.save(record('a', { name: 'build', tags: ['ci', 'night'] }))
    await store.save(record('b', { name: 'review', tags: ['ci'] }))
    await store.save(record('c', { name: 'build' }))
    expect((await store.findByName('build')).map((r) => r.id)).toEqual(['a', 'c'])
    expect((await store.findByTag('ci')).map((r) => r.id)).toEqual(['a', 'b'])
    expect(await store.remove('a')).toBe(true)
    expect(await store.remove('a')).toBe(false)
    expect((await store.findByTag('ci')).map((r) => r.id)).toEqual(['b'])
  })

  it('refuses a record that would not read back with a UsageError naming the place', async () => {
    const store = freshStore()
    await expect(store.save(record('a', { updated_at: 'yesterday' }))).rejects.toThrow(
      /not a SessionRecord at \/updated_at/,
    )
    await expect(store.save(record('a', { metadata: { when: new Date(0) } }))).rejects.toThrow(
      UsageError,
    )
    await expect(store.get(3 as never)).rejects.toThrow(UsageError)
    expect(await store.load()).toEqual([])
  })

  it('creates the database with mode 0o600 at the current schema version, in WAL mode', () => {
    const path = freshPath()
    opened.push(sqliteStore(path))
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const db = new Database(path, { readonly: true })
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    db.close()
  })

  it('rejects calls after close', async () => {
    const store = sqliteStore(freshPath())
    await store.close()
    await expect(store.load()).rejects.toThrow(/is closed/)
    expect(() => store.putConversation(pipe(empty, user('hi')))).toThrow(UsageError)
  })

  it('acts like an insertion-ordered map under any sequence of saves and removes', async () => {
    const id = fc.constantFrom('a', 'b', 'c')
    const op = fc.oneof(
      fc.record({ id, name: fc.string() }).map(({ id, name }) => ({ save: record(id, { name }) })),
      id.map((remove) => ({ remove })),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 10 }), async (ops) => {
        const store = freshStore()
        const model = new Map<string, SessionRecord>()
        for (const o of ops) {
          if ('save' in o) {
            model.set(o.save.id, o.save)
            await store.save(o.save)
          } else expect(await store.remove(o.remove)).toBe(model.delete(o.remove))
        }
        expect(await store.load()).toEqual([...model.values()])
        await store.close()
      }),
      { numRuns: 30 },
    )
  })
})

describe('conversation vertices', () => {
  it('round-trip any conversation: ids, parents and entries come back equal, metadata of its first write', () => {
    fc.assert(
      fc.property(conversationHeads({ withMeta: true }), (heads) => {
        const store = sqliteStore(':memory:')
        // Metadata is not part of an id: two vertices may differ in it alone.
        // Each id's metadata is one of those of the first head that held it.
        const metas = new Map<string, Set<string>>()
        for (const head of heads) {
          store.putConversation(head)
          const seen = new Map<string, Set<string>>()
          for (const v of ancestors(head)) {
            if (metas.has(v.id)) continue
            const set = seen.get(v.id) ?? new Set<string>()
            seen.set(v.id, set.add(JSON.stringify(v.meta)))
          }
          for (const [id, set] of seen) metas.set(id, set)
          const back = wire(store.conversation(head.id)!)
          const sent = wire(head)
          for (const v of back.vertices) expect(metas.get(v.id)).toContain(JSON.stringify(v.meta))
          const noMeta = (w: typeof sent) => w.vertices.map(({ meta: _, ...rest }) => rest)
          expect(noMeta(back)).toEqual(noMeta(sent))
        }
        void store.close()
      }),
      { numRuns: 60 },
    )
  })

  it('keep the metadata of a vertex’s first write: metadata is not part of its id', () => {
    const store = freshStore()
    const first = pipe(empty, user('hi', { meta: { note: 'first' } }))
    const second = pipe(empty, user('hi', { meta: { note: 'second' } }))
    expect(second.id).toBe(first.id)
    expect(store.putConversation(first)).toBe(1)
    expect(store.putConversation(second)).toBe(0)
    expect(store.conversation(second.id)!.meta).toEqual({ note: 'first' })
  })

  it('are content-addressed: storing several heads writes each distinct vertex once', () => {
    fc.assert(
      fc.property(conversationHeads({ maxBranches: 3 }), (heads) => {
        const store = sqliteStore(':memory:')
        const written = heads.reduce((sum, h) => sum + store.putConversation(h), 0)
        const distinct = new Set(ancestorsOfAll(heads).map((v) => v.id))
        expect(written).toBe(distinct.size)
        expect(store.vertexCount()).toBe(distinct.size)
        expect(heads.map((h) => store.putConversation(h))).toEqual(heads.map(() => 0))
        void store.close()
      }),
      { numRuns: 60 },
    )
  })

  it('are written once: a turn writes only its new vertices, a stored head none', () => {
    const store = freshStore()
    const asked = pipe(empty, user('What is 2 + 2?'))
    const answered = pipe(asked, assistant('4'))
    expect(store.putConversation(answered)).toBe(2)
    expect(store.putConversation(answered)).toBe(0)
    expect(store.putConversation(pipe(answered, user('And 3 + 3?'), assistant('6')))).toBe(2)
    expect(store.putConversation(pipe(asked, assistant('Four.')))).toBe(1)
    expect(store.vertexCount()).toBe(5)
  })

  it('are shared between connections: a second store on the file writes only what it adds', async () => {
    const path = freshPath()
    const first = sqliteStore(path)
    const head = pipe(empty, user('a'), assistant('b'))
    first.putConversation(head)
    await first.close()
    const second = sqliteStore(path)
    opened.push(second)
    const again = pipe(empty, user('a'), assistant('b'), user('c')) // equal vertices, new objects
    expect(second.putConversation(again)).toBe(1)
    const loaded = second.conversation(head.id)!
    expect(second.putConversation(pipe(loaded, user('d')))).toBe(1)
    // A branch from inside the loaded history (a fork at an earlier point) adds only its own vertex.
    expect(second.putConversation(loaded.parents[0]!)).toBe(0)
    expect(second.putConversation(pipe(loaded.parents[0]!, assistant('B')))).toBe(1)
  })

  it('answer undefined for a head that is not stored', () => {
    expect(freshStore().conversation('nope')).toBeUndefined()
  })
})

const llmSession = async () => {
  const model = scriptedProvider([(r) => `reply ${r.messages.length}`], { loop: true })
  const store = freshStore()
  const manager = sessionManager({
    store,
    interpreters: interpreters(
      llmInterpreter({ providers: model }),
      ...defaultInterpreters.values(),
    ),
  })
  const session = await manager.create({ id: 's1', name: 'dev' })
  session.register(llm('dev', { system: 'Be brief.' }))
  return { store, manager, session }
}

describe('node snapshots', () => {
  it('keep each node’s description, state and conversation head; a turn writes only the new vertices', async () => {
    const { store, manager, session } = await llmSession()
    await session.execute('dev', 'one')
    await manager.save('s1')
    const before = store.vertexCount()
    const [dev] = store.nodes('s1')
    expect(dev).toMatchObject({ name: 'dev', kind: 'llm', state: 'ready' })
    expect(dev?.description).toMatchObject({ id: 'dev', kind: 'llm', system: 'Be brief.' })
    expect(dev?.head).toBe(conversationOf(session, 'dev')!.id)
    expect(wire(store.conversation(dev!.head!)!)).toEqual(wire(conversationOf(session, 'dev')!))

    const last = conversationOf(session, 'dev')!
    await session.execute('dev', 'two')
    await manager.save('s1')
    const known = new Set(ancestors(last).map((v) => v.id))
    const added = ancestors(conversationOf(session, 'dev')!).filter((v) => !known.has(v.id))
    expect(added.length).toBeGreaterThanOrEqual(2) // the user message and the reply, at least
    expect(store.vertexCount() - before).toBe(added.length)
    await manager.closeAll()
  })

  it('of a forked LLM node write no vertex rows', async () => {
    const { store, manager, session } = await llmSession()
    for (let i = 0; i < 20; i++) await session.execute('dev', `turn ${i}`)
    await manager.save('s1')
    const before = store.vertexCount()
    await fork(session, 'dev', 'dev2')
    await fork(session, 'dev', 'dev3', { at: 4 })
    await manager.save('s1')
    expect(store.vertexCount()).toBe(before)
    expect(store.nodes('s1').map((x) => x.name)).toEqual(['dev', 'dev2', 'dev3'])
    expect(store.nodes('s1')[1]?.head).toBe(store.nodes('s1')[0]?.head)
    await manager.closeAll()
  })

  it('leave function fields out of a description and go with their session', async () => {
    const store = freshStore()
    const manager = sessionManager({ store })
    const session = await manager.create({ id: 's2' })
    session.register(fn('double', (ctx) => Number(ctx.input) * 2))
    await manager.save('s2')
    expect(store.nodes('s2')).toEqual([
      {
        name: 'double',
        kind: 'function',
        state: 'created',
        description: { id: 'double', kind: 'function', persistent: false, metadata: {} },
        live: null,
        head: undefined,
      },
    ])
    await manager.close('s2')
    expect(store.nodes('s2')).toEqual([])
  })

  it('are refused for a session that is not saved', () => {
    expect(() => {
      freshStore().saveNodes('ghost', [])
    }).toThrow(/no session "ghost"/)
    expect(() => {
      freshStore().saveNode('ghost', {
        name: 'x',
        node: fn('x', () => 1),
        state: 'created',
        live: undefined,
      })
    }).toThrow(/SqliteStore\.saveNode\(\): no session "ghost"/)
  })

  it('one at a time: saveNode replaces a node in its place and writes only a turn’s new vertices, removeNode drops it', async () => {
    const { store, manager, session } = await llmSession()
    session.register(fn('double', (ctx) => Number(ctx.input) * 2))
    await manager.save('s1')
    await session.execute('dev', 'one')
    store.saveNode('s1', nodeSnapshot(session, 'dev')!)
    const before = store.vertexCount()
    expect(before).toBe(ancestors(conversationOf(session, 'dev')!).length)
    await session.execute('dev', 'two')
    const last = conversationOf(session, 'dev')!
    store.saveNode('s1', nodeSnapshot(session, 'dev')!)
    expect(store.vertexCount()).toBe(ancestors(last).length)
    expect(store.vertexCount() - before).toBeGreaterThanOrEqual(2)
    expect(store.nodes('s1').map((n) => [n.name, n.head])).toEqual([
      ['dev', last.id],
      ['double', undefined],
    ])
    expect(store.removeNode('s1', 'dev')).toBe(true)
    expect(store.removeNode('s1', 'dev')).toBe(false)
    expect(store.nodes('s1').map((n) => n.name)).toEqual(['double'])
    await manager.closeAll()
  })
})

describe('histories, traces, envelopes and artifacts', () => {
  it('read back as stored, and go with their session', async () => {
    const store = freshStore()
    await store.save(record('s'))
    const h = (seq: number) => ({ seq, op: 'run' as const, time: AT, node: 'sh', exitCode: 0 })
    store.appendHistory('s', 'sh', [h(1), h(2)])
    store.appendHistory('s', 'sh', [h(3)])
    expect(store.history('s', 'sh')).toEqual([h(1), h(2), h(3)])
    expect(store.historyNodes('s')).toEqual(['sh'])

    const g = pipe(graph('g'), addStep({ id: 'a', node: fn('one', () => 1) }))
    const { trace } = await run(g, { interpreters: defaultInterpreters })
    store.saveTrace(trace, 's')
    expect(store.trace(trace.runId)).toMatchObject({ runId: trace.runId, status: 'completed' })
    expect(store.trace(trace.runId)?.records[0]?.data.output).toBe(1)

    const seqs = store.appendEnvelopes(
      'net',
      [
        { id: 'e1', from: 'a', to: 'b', payload: { text: 'hi' } },
        { id: 'e2', from: 'b', to: 'a', payload: 'ok' },
      ],
      's',
    )
    expect(store.envelopes('net', { after: seqs[0]! }).map((e) => e.envelope.id)).toEqual(['e2'])

    store.putArtifact({
      id: 'art1',
      name: 'report.md',
      location: '/tmp/report.md',
      session_id: 's',
      size: 12,
    })
    expect(store.artifacts('s')).toEqual([
      { id: 'art1', name: 'report.md', location: '/tmp/report.md', session_id: 's', size: 12 },
    ])

    await store.remove('s')
    expect(store.history('s', 'sh')).toEqual([])
    expect(store.trace(trace.runId)).toBeUndefined()
    expect(store.envelopes('net')).toEqual([])
    expect(store.artifact('art1')).toBeUndefined()
  })

  it('refuse a value of the wrong shape with a UsageError naming it', async () => {
    const store = freshStore()
    await store.save(record('s'))
    expect(() => {
      store.appendHistory('s', 'sh', [{ seq: 0, op: 'run', time: AT, node: 'sh' }])
    }).toThrow(/records\[0\]\) at \/seq/)
    expect(() => store.appendEnvelopes('net', [{ id: 'e', from: 'a' } as never])).toThrow(/\/to/)
  })

  it('batch several writes into one transaction: all land, or none', async () => {
    const store = freshStore()
    await store.save(record('s'))
    expect(() =>
      store.batch((w) => {
        w.putConversation(pipe(empty, user('kept?')))
        w.appendEnvelopes('net', [{ id: 'e', from: 'a', to: 'b' }])
        throw new Error('changed my mind')
      }),
    ).toThrow('changed my mind')
    expect(store.vertexCount()).toBe(0)
    expect(store.envelopes('net')).toEqual([])
    // The vertex rolled back is written again next time.
    expect(store.putConversation(pipe(empty, user('kept?')))).toBe(1)
  })
})

describe('a database that cannot be read', () => {
  it('is a StoreCorrupt when the file is not SQLite, left as it was', () => {
    const path = freshPath()
    sqliteStore(path)
      .close()
      .catch(() => undefined)
    writeFileSync(path, 'not a database at all, just text '.repeat(200))
    let error: unknown
    try {
      sqliteStore(path)
    } catch (e) {
      error = e
    }
    expect(isStoreCorrupt(error)).toBe(true)
  })

  it('is a StoreTooNew when a newer Nerve wrote it', async () => {
    const path = freshPath()
    await sqliteStore(path).close()
    const db = new Database(path)
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`)
    db.close()
    let error: unknown
    try {
      sqliteStore(path)
    } catch (e) {
      error = e
    }
    expect(isStoreTooNew(error)).toBe(true)
    expect(error).toMatchObject({ found: SCHEMA_VERSION + 1, supported: SCHEMA_VERSION })
  })

  it('names the row of a record that does not decode', async () => {
    const path = freshPath()
    const store = sqliteStore(path)
    opened.push(store)
    await store.save(record('a'))
    const db = new Database(path)
    db.prepare("UPDATE sessions SET record = json_set(record, '$.created_at', 'now')").run()
    db.close()
    const error: unknown = await store.load().catch((e: unknown) => e)
    expect(isStoreCorrupt(error)).toBe(true)
    expect(error).toMatchObject({ pointer: '/sessions/a/created_at' })
  })
})

const readerScript = join(import.meta.dirname, 'fixtures', 'readCount.ts')
const repoRoot = join(import.meta.dirname, '..', '..')

/** A process that opens the store at `path` on its own and tells what it sees when asked. */
const anotherProcess = async (path: string) => {
  const child = spawn(process.execPath, ['--import', 'tsx', readerScript, path], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const next = async (): Promise<string> => {
    const line = await lines.next()
    if (line.done === true) throw new Error('the reader ended')
    return line.value
  }
  expect(await next()).toBe('ready')
  return {
    sees: async (): Promise<unknown> => {
      child.stdin.write('\n')
      return JSON.parse(await next())
    },
    end: () => {
      child.stdin.end()
    },
  }
}

describe('a reader in another process', () => {
  it('sees each committed transaction while the writer keeps the database open', async () => {
    const path = freshPath()
    const store = sqliteStore(path)
    opened.push(store)
    await store.save(record('a'))
    const reader = await anotherProcess(path)
    expect(await reader.sees()).toEqual({ sessions: 1, vertices: 0 })
    store.putConversation(pipe(empty, user('one'), assistant('two')))
    expect(await reader.sees()).toEqual({ sessions: 1, vertices: 2 })
    await store.save(record('b'))
    expect(await reader.sees()).toEqual({ sessions: 2, vertices: 2 })
    reader.end()
  })
})

const saveMany = join(import.meta.dirname, 'fixtures', 'saveMany.ts')

/** A process that saves `count` records named after `prefix` once let go. */
const saver = (path: string, prefix: string, count: number) => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', saveMany, path, prefix, String(count)],
    {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8')
  child.stderr.on('data', (c: Buffer) => (err += c.toString()))
  const ready = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk
      if (out.startsWith('ready\n')) resolve()
    })
  })
  const done = new Promise<void>((resolve, reject) => {
    child.on('close', (code) => {
      if (code === 0 && out.includes('done\n')) resolve()
      else reject(new Error(`saver ${prefix} ended with ${code}: ${err}`))
    })
  })
  return { ready, done, go: () => child.stdin.write('go\n') }
}

describe('writers in several processes', () => {
  it('take turns: every record of each lands', async () => {
    const path = freshPath()
    await sqliteStore(path).close()
    const savers = ['p', 'q', 'r'].map((p) => saver(path, p, 15))
    await Promise.all(savers.map((s) => s.ready))
    for (const s of savers) s.go()
    await Promise.all(savers.map((s) => s.done))
    const store = sqliteStore(path)
    opened.push(store)
    const ids = (await store.load()).map((r) => r.id)
    expect(ids).toHaveLength(45)
    for (const p of ['p', 'q', 'r']) {
      expect(ids.filter((id) => id.startsWith(`${p}-`))).toEqual(
        Array.from({ length: 15 }, (_, i) => `${p}-${i}`),
      )
    }
  }, 60_000)
})
