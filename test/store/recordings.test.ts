import fc from 'fast-check'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import * as E from 'fp-ts/lib/Either.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createSession, defaultInterpreters, UsageError } from 'nerve-agents'
import { decodeGraph, encodeGraph, interpreters } from 'nerve-agents/core'
import { graph, hashNode, hashStep, scripted } from 'nerve-agents/testing'
import {
  migrations,
  SCHEMA_VERSION,
  record,
  replay,
  sqliteStore,
  traceJson,
  type SqliteStore,
} from 'nerve-agents/store'

const opened: SqliteStore[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()))
})
const open = (path = ':memory:'): SqliteStore => {
  const s = sqliteStore(path)
  opened.push(s)
  return s
}

const registry = (salt: number) =>
  interpreters(
    defaultInterpreters.get('graph')!,
    scripted({
      kind: 'function',
      otherwise: (_node, ctx) => hashStep(ctx.stepId, ctx.input, ctx.upstream) ^ salt,
    }),
  )

describe('recordings in the store', () => {
  it('replay from the store what was recorded, with the graph file saved beside them (law)', async () => {
    const store = open()
    // The generated steps run a function node, which a file names: decoding finds it here.
    const nodes = createSession()
    nodes.register(hashNode)
    await fc.assert(
      fc.asyncProperty(graph({ maxSteps: 6 }), fc.nat(), async (g, salt) => {
        const { result, recording } = await record(g, { interpreters: registry(salt), input: 1 })
        const id = store.saveRecording(recording, { graph: encodeGraph(g) })
        expect(id).toBe(recording.runId)
        const stored = store.recording(id)!
        expect(stored).toMatchObject({ runId: recording.runId, graphId: g.id })
        expect(stored.recording).toEqual(recording)
        const again = decodeGraph(stored.graph, { nodes })
        if (E.isLeft(again)) throw new Error('the saved graph does not decode')
        const replayed = await replay(stored.recording, again.right)
        expect(E.isRight(replayed)).toBe(E.isRight(result))
        if (E.isRight(result) && E.isRight(replayed)) {
          expect(replayed.right.results).toEqual(result.right.results)
          expect(traceJson(replayed.right.trace)).toEqual(traceJson(result.right.trace))
        }
      }),
      { numRuns: 40 },
    )
  })

  it('list by run, replace under the same id, and refuse what is not a recording', async () => {
    const store = open()
    const g = fc.sample(graph({ minSteps: 2, maxSteps: 4 }), { numRuns: 1, seed: 7 })[0]!
    const { recording } = await record(g, { interpreters: registry(1) })
    store.saveRecording(recording)
    store.saveRecording(recording, { id: 'second' })
    store.saveRecording({ ...recording, input: 'changed' }, { id: 'second' })
    expect(store.recordings(recording.runId).map((r) => r.id)).toEqual([recording.runId, 'second'])
    expect(store.recording('second')?.recording.input).toBe('changed')
    expect(store.recording('second')?.graph).toBeUndefined()
    expect(store.recording('ghost')).toBeUndefined()
    expect(store.recordings('another-run')).toEqual([])
    expect(() => store.saveRecording({ ...recording, calls: 'none' } as never)).toThrow(UsageError)
    expect(() => store.saveRecording({ ...recording, calls: 'none' } as never)).toThrow(
      /not a recording at \/calls/,
    )
    expect(store.recordings()).toHaveLength(2)
  })

  it('come to a version 1 database by migration, its data kept', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'nerve-rec-')), 'old.db')
    const db = new Database(path)
    db.exec(migrations[0]!.sql)
    db.pragma('user_version = 1')
    db.prepare("INSERT INTO artifacts (id, artifact) VALUES ('a1', '{}')").run()
    db.close()
    const store = open(path)
    const g = fc.sample(graph({ minSteps: 1, maxSteps: 2 }), { numRuns: 1, seed: 3 })[0]!
    const { recording } = await record(g, { interpreters: registry(2) })
    expect(store.saveRecording(recording)).toBe(recording.runId)
    const check = new Database(path, { readonly: true })
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(check.prepare('SELECT id FROM artifacts').pluck().all()).toEqual(['a1'])
    check.close()
  })
})
