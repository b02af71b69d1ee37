import { pipe } from 'fp-ts/lib/function.js'
import { afterEach, describe, expect, it } from 'vitest'
import { addStep, bash, createSession, empty, fn, graph, llm, pty, user } from 'nerve-agents'
import { nodeSnapshots, sessionRecord } from 'nerve-agents/session'
import { restoreNodes, sqliteStore, type SqliteStore } from 'nerve-agents/store'

const opened: SqliteStore[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()))
})

describe('restoreNodes', () => {
  it('registers each saved node again, created, an LLM node with its conversation, and says what it skipped', async () => {
    const store = sqliteStore(':memory:')
    opened.push(store)
    const saved = createSession({ id: 'dev' })
    const head = pipe(empty, user('hello'))
    saved.register(llm('chat', { provider: 'echo' }))
    saved.cell('chat').set({ head })
    saved.register(bash('sh', { command: 'echo hi' }))
    saved.register(pty('term', { command: 'bash', args: ['--norc'] }))
    saved.register(fn('count', () => 1))
    saved.register(pipe(graph('flow'), addStep({ id: 'a', node: bash('a', { command: 'true' }) })))
    await store.saveSession(sessionRecord(saved), nodeSnapshots(saved))

    const again = createSession({ id: 'dev' })
    again.register(bash('sh', { command: 'echo other' }))
    const r = restoreNodes(store, again)
    expect(r.restored).toEqual(['chat', 'term', 'flow'])
    expect(r.skipped).toEqual([
      { name: 'sh', reason: 'the name is taken' },
      { name: 'count', reason: 'a function node: its function is not kept in a store' },
    ])
    expect(again.get('chat')).toEqual(saved.get('chat'))
    expect(again.get('term')).toEqual(saved.get('term'))
    expect(again.state('term')).toBe('created')
    expect((again.cell('chat').get() as { head: typeof head }).head.id).toBe(head.id)
    expect(again.get('flow')?.kind).toBe('graph')
    expect(restoreNodes(store, createSession({ id: 'other' }))).toEqual({
      restored: [],
      skipped: [],
    })
    // Another session's saved nodes, into this one.
    const into = createSession({ id: 'other' })
    expect(restoreNodes(store, into, undefined, 'dev').restored).toEqual([
      'chat',
      'sh',
      'term',
      'flow',
    ])
    expect((into.cell('chat').get() as { head: typeof head }).head.id).toBe(head.id)
  })
})
