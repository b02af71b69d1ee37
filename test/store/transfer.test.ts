import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { type Conversation, createSession, llm, messages } from 'nerve-agents'
import { encodeConversation } from 'nerve-agents/core'
import {
  type HistoryRecord,
  isStoreCorrupt,
  loadConversation,
  type SessionRecord,
  sessionStore,
} from 'nerve-agents/session'
import { conversationHeads } from 'nerve-agents/testing'
import {
  copySessions,
  exportStore,
  importStore,
  sqliteStore,
  type SqliteStore,
} from 'nerve-agents/store'

const base = mkdtempSync(join(tmpdir(), 'nerve-transfer-'))
let n = 0
const freshDir = (): string => join(base, `case-${n++}`)
afterAll(() => {
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

const wire = (c: Conversation) => encodeConversation({ heads: [c], metadata: {} })

/** Everything a store holds, as plain data (conversations by their wire form). */
const contents = async (store: SqliteStore) => {
  const sessions = await store.load()
  return {
    sessions,
    perSession: sessions.map((s) => ({
      nodes: store.nodes(s.id).map((x) => ({
        ...x,
        conversation: x.head === undefined ? undefined : wire(store.conversation(x.head)!),
      })),
      history: store.historyNodes(s.id).map((node) => store.history(s.id, node)),
      traces: store.traces(s.id),
      artifacts: store.artifacts(s.id),
    })),
    envelopes: store.networks().map((net) => store.envelopes(net).map((e) => e.envelope)),
  }
}

interface World {
  readonly sessions: readonly {
    readonly record: SessionRecord
    readonly heads: readonly Conversation[]
    readonly history: number
  }[]
  readonly envelopes: number
}

const worldArb: fc.Arbitrary<World> = fc.record({
  sessions: fc
    .uniqueArray(
      fc.record({
        id: fc.constantFrom('s1', 's2', 'with space', 'ünï'),
        name: fc.string({ maxLength: 8 }),
        heads: conversationHeads({ maxDepth: 6, withMeta: true }),
        history: fc.nat({ max: 3 }),
      }),
      { selector: (s) => s.id, maxLength: 3 },
    )
    .map((ss) =>
      ss.map((s) => ({
        record: record(s.id, { name: s.name }),
        heads: s.heads,
        history: s.history,
      })),
    ),
  envelopes: fc.nat({ max: 3 }),
})

/** Fills a store with a world: sessions with LLM nodes on the heads, histories, envelopes, artifacts. */
const fill = (store: SqliteStore, world: World): void => {
  store.batch((w) => {
    for (const s of world.sessions) {
      w.save(s.record)
      w.saveNodes(
        s.record.id,
        s.heads.map((head, i) => ({
          name: `dev${i}`,
          node: llm(`dev${i}`),
          state: 'ready',
          live: { head },
        })),
      )
      const records: HistoryRecord[] = Array.from({ length: s.history }, (_, i) => ({
        seq: i + 1,
        op: 'run',
        time: AT,
        node: 'sh',
        exitCode: i,
      }))
      if (records.length > 0) w.appendHistory(s.record.id, 'sh', records)
      w.putArtifact({
        id: `${s.record.id}-a`,
        name: 'a.txt',
        location: '/tmp/a.txt',
        session_id: s.record.id,
      })
    }
    const sid = world.sessions[0]?.record.id
    for (let i = 0; i < world.envelopes; i++) {
      w.appendEnvelopes('net', [{ id: `e${i}`, from: 'a', to: 'b', payload: { i } }], sid)
    }
  })
}

describe('export to files and import back', () => {
  it('gives a store with the same contents, whatever it held', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, async (world) => {
        const a = sqliteStore(':memory:')
        fill(a, world)
        const dir = freshDir()
        await exportStore(a, dir)
        const b = sqliteStore(':memory:')
        await importStore(dir, b)
        expect(await contents(b)).toEqual(await contents(a))
        await a.close()
        await b.close()
      }),
      { numRuns: 25 },
    )
  })

  it('writes conversations nano-agent reads, and reads them back in that format', async () => {
    const a = sqliteStore(':memory:')
    const world: World = {
      sessions: [
        {
          record: record('s1'),
          heads: fc.sample(conversationHeads({ maxDepth: 8, maxBranches: 1 }), {
            numRuns: 1,
            seed: 3,
          })[0]!,
          history: 1,
        },
      ],
      envelopes: 0,
    }
    fill(a, world)
    const dir = freshDir()
    await exportStore(a, dir, { conversations: 'nano' })
    const b = sqliteStore(':memory:')
    await importStore(dir, b)
    for (const [i, head] of world.sessions[0]!.heads.entries()) {
      const stored = b.nodes('s1')[i]!
      expect(messages(b.conversation(stored.head!)!)).toEqual(messages(head))
    }
  })

  it('carries chats, their branches, current head and metadata, and counts them', async () => {
    const a = sqliteStore(':memory:')
    const [heads] = fc.sample(conversationHeads({ maxDepth: 6, maxBranches: 3 }), {
      numRuns: 1,
      seed: 5,
    })
    a.saveChat({
      id: 'chat-1',
      createdAt: '2026-01-02T03:04:05.000Z',
      heads: heads!,
      current: heads![heads!.length - 1]!,
      metadata: { title: 'first' },
    })
    a.saveChat({
      id: 'chat 2/empty',
      createdAt: '2026-01-03T00:00:00.000Z',
      heads: [],
      metadata: {},
    })
    const dir = freshDir()
    expect((await exportStore(a, dir)).chats).toBe(2)
    const b = sqliteStore(':memory:')
    expect((await importStore(dir, b)).chats).toBe(2)
    expect(b.chats()).toEqual(a.chats())
    const back = b.loadChat('chat-1')!
    expect(back.heads.map(wire)).toEqual(heads!.map(wire))
    expect(back.current?.id).toBe(heads![heads!.length - 1]!.id)
    await a.close()
    await b.close()
  })

  it('writes files the files store and loadConversation read', async () => {
    const a = sqliteStore(':memory:')
    const [heads] = fc.sample(conversationHeads({ maxDepth: 5 }), { numRuns: 1, seed: 9 })
    fill(a, { sessions: [{ record: record('s1'), heads: heads!, history: 0 }], envelopes: 0 })
    const dir = freshDir()
    const summary = await exportStore(a, dir)
    expect(summary.sessions).toBe(1)
    expect(await sessionStore({ path: join(dir, 'sessions.json') }).load()).toEqual([record('s1')])
    const head = a.nodes('s1')[0]!.head!
    const s = createSession()
    s.register(llm('dev'))
    const loaded = await loadConversation(s, 'dev', join(dir, 'conversations', `${head}.json`))
    expect(wire(loaded)).toEqual(wire(a.conversation(head)!))
    await s.close()
  })

  it('imports a files store’s sessions.json on its own, and refuses a bad file importing nothing', async () => {
    const dir = freshDir()
    const files = sessionStore({ path: join(dir, 'sessions.json') })
    await files.save(record('a', { tags: ['x'] }))
    await files.save(record('b'))
    const db = sqliteStore(':memory:')
    expect((await importStore(dir, db)).sessions).toBe(2)
    expect(await db.load()).toEqual(await files.load())

    const bad = freshDir()
    await sessionStore({ path: join(bad, 'sessions.json') }).save(record('c'))
    await exportStore(db, bad) // a whole export, then one file spoilt
    writeFileSync(join(bad, 'artifacts.json'), '[{"id": 1}]')
    const target = sqliteStore(':memory:')
    const error: unknown = await importStore(bad, target).catch((e: unknown) => e)
    expect(isStoreCorrupt(error)).toBe(true)
    expect(error).toMatchObject({ path: join(bad, 'artifacts.json'), pointer: '/0/id' })
    expect(await target.load()).toEqual([])
  })
})

describe('copySessions', () => {
  it('copies the records of either kind of store into the other, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 4 }),
        async (ids) => {
          const files = sessionStore({ path: join(freshDir(), 'sessions.json') })
          for (const id of ids) await files.save(record(id, { tags: [id] }))
          const db = sqliteStore(':memory:')
          expect(await copySessions(files, db)).toBe(ids.length)
          const back = sessionStore({ path: join(freshDir(), 'sessions.json') })
          await copySessions(db, back)
          expect(await back.load()).toEqual(await files.load())
          await db.close()
        },
      ),
      { numRuns: 15 },
    )
  })
})
