import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, describe, expect, it } from 'vitest'
import { assistant, type Conversation, empty, llm, user } from 'nerve-agents'
import { encodeConversation } from 'nerve-agents/core'
import { sqliteStore } from 'nerve-agents/store'

const dir = mkdtempSync(join(tmpdir(), 'nerve-gc-'))
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const wire = (c: Conversation) => encodeConversation({ heads: [c], metadata: {} })
const AT = '2025-03-01T12:00:00.000Z'

describe('SqliteStore.gc', () => {
  it('removes the vertices no node head reaches and keeps every vertex one does', () => {
    const store = sqliteStore(join(dir, 'a.db'))
    const asked = pipe(empty, user('shared question'))
    const kept = pipe(asked, assistant('kept answer'))
    const dropped = pipe(asked, assistant('dropped answer'), user('and more'))
    store.batch((w) => {
      w.save({
        id: 's',
        name: 's',
        tags: [],
        created_at: AT,
        updated_at: AT,
        metadata: {},
        nodes: [],
      })
      w.saveNodes('s', [{ name: 'dev', node: llm('dev'), state: 'ready', live: { head: kept } }])
      w.putConversation(dropped)
    })
    const before = store.vertexCount()
    const r = store.gc()
    // the two vertices only `dropped` has go; the shared question and the kept answer stay
    expect(r.vertices).toBe(2)
    expect(store.vertexCount()).toBe(before - 2)
    expect(wire(store.conversation(store.nodes('s')[0]!.head!)!)).toEqual(wire(kept))
    expect(store.conversation(dropped.id)).toBeUndefined()
    expect(store.gc().vertices).toBe(0)
    void store.close()
  })

  it('keeps only the newest recordings when asked, and refuses a count that is not whole', () => {
    const store = sqliteStore(join(dir, 'b.db'))
    const rec = (runId: string) => ({
      format: 'nerve/recording',
      version: 1,
      runId,
      graphId: 'g',
      input: null,
      failed: false,
      calls: [],
      clock: [],
      random: [],
    })
    for (const id of ['r1', 'r2', 'r3']) store.saveRecording(rec(id) as never)
    expect(store.gc({ keepRecordings: 1 }).recordings).toBe(2)
    expect(store.recordings().map((r) => r.runId)).toEqual(['r3'])
    expect(() => store.gc({ keepRecordings: -1 })).toThrow(
      /SqliteStore\.gc\(\): keepRecordings must be a whole number/,
    )
    void store.close()
  })
})
