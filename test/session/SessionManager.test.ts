import { describe, expect, it } from 'vitest'
import { defaultInterpreters, fn } from '../../src/index.js'
import { interpreters } from '../../src/core.js'
import { fakeClock } from '../../src/testing/index.js'
import { sessionManager, type SessionRecord, type SessionRecordSink } from 'nerve-agents/session'
import { counter, counterInterpreter } from './kit.js'

/** A store in memory that remembers what it was asked. */
const memoryStore = (failSave = false) => {
  const records = new Map<string, SessionRecord>()
  const calls: string[] = []
  const store: SessionRecordSink = {
    save(record) {
      calls.push(`save ${record.id}`)
      if (failSave) return Promise.reject(new Error('disk full'))
      records.set(record.id, record)
      return Promise.resolve()
    },
    remove(id) {
      calls.push(`remove ${id}`)
      return Promise.resolve(records.delete(id))
    },
  }
  return { store, records, calls }
}

describe('sessionManager', () => {
  it('creates sessions it can get, find by name and list', async () => {
    const manager = sessionManager()
    const a = await manager.create({ id: 'a', name: 'review' })
    const b = await manager.create({ id: 'b', name: 'review' })
    const c = await manager.create({ id: 'c', name: 'other' })
    expect(manager.get('a')).toBe(a)
    expect(manager.get('zzz')).toBeUndefined()
    expect(manager.findByName('review')).toEqual([a, b])
    expect(manager.list().map((i) => i.id)).toEqual(['a', 'b', 'c'])
    expect(manager.list()[2]).toEqual(c.info())
  })

  it('gives its sessions its interpreters and clock unless told otherwise', async () => {
    const counters = counterInterpreter()
    const manager = sessionManager({
      interpreters: interpreters(...defaultInterpreters.values(), counters),
      clock: fakeClock({ start: 0 }),
    })
    const s = await manager.create()
    expect(s.info().created_at).toBe('1970-01-01T00:00:00.000Z')
    s.register(counter('c'))
    await s.start()
    expect(counters.log).toEqual(['start c'])
    const other = await manager.create({ clock: fakeClock({ start: 1000 }) })
    expect(other.info().created_at).toBe('1970-01-01T00:00:01.000Z')
  })

  it('refuses a second open session with the same id', async () => {
    const manager = sessionManager()
    await manager.create({ id: 'a' })
    await expect(manager.create({ id: 'a' })).rejects.toThrow(/"a" is open/)
  })

  it('closes one session, stopping its nodes, or all of them', async () => {
    const counters = counterInterpreter()
    const manager = sessionManager({
      interpreters: interpreters(...defaultInterpreters.values(), counters),
    })
    const a = await manager.create({ id: 'a' })
    const b = await manager.create({ id: 'b' })
    a.register(counter('ca'))
    b.register(counter('cb'))
    await Promise.all([a.start(), b.start()])
    expect(await manager.close('a')).toBe(true)
    expect(await manager.close('a')).toBe(false)
    expect(a.closed).toBe(true)
    expect(manager.get('a')).toBeUndefined()
    await manager.closeAll()
    expect(b.closed).toBe(true)
    expect(manager.list()).toEqual([])
    expect(counters.log.filter((l) => l.startsWith('stop')).sort()).toEqual(['stop ca', 'stop cb'])
  })

  it('saves the record of a session it creates and removes it when it closes', async () => {
    const { store, records, calls } = memoryStore()
    const manager = sessionManager({ store, clock: fakeClock({ start: 0 }) })
    const s = await manager.create({ id: 's', name: 'work', tags: ['t'], metadata: { k: 1 } })
    expect(records.get('s')).toEqual({
      id: 's',
      name: 'work',
      tags: ['t'],
      created_at: '1970-01-01T00:00:00.000Z',
      updated_at: '1970-01-01T00:00:00.000Z',
      metadata: { k: 1 },
      nodes: [],
    })
    s.register(fn('f', () => 1))
    await manager.close('s')
    expect(calls).toEqual(['save s', 'remove s'])
    expect(records.size).toBe(0)
  })

  it('writes a session’s record again on save, with its nodes as they are now', async () => {
    const { store, records } = memoryStore()
    const clock = fakeClock({ start: 0 })
    const manager = sessionManager({ store, clock })
    const s = await manager.create({ id: 's' })
    s.register(fn('f', () => 1))
    await clock.advance(1000)
    expect(await manager.save('s')).toBe(true)
    expect(records.get('s')).toMatchObject({
      updated_at: '1970-01-01T00:00:01.000Z',
      nodes: [{ id: 'f', type: 'function', state: 'created' }],
    })
    expect(await manager.save('nope')).toBe(false)
    await expect(sessionManager().save('s')).rejects.toThrow(/has no store/)
    await manager.closeAll()
  })

  it('closes the session and rejects when its record cannot be saved', async () => {
    const { store } = memoryStore(true)
    const manager = sessionManager({ store })
    await expect(manager.create({ id: 's' })).rejects.toThrow(/disk full/)
    expect(manager.get('s')).toBeUndefined()
  })

  it('drops a session closed directly from its answers, and still removes its record on close', async () => {
    const { store, calls } = memoryStore()
    const manager = sessionManager({ store })
    const s = await manager.create({ id: 's', name: 'n' })
    await s.close()
    expect(manager.get('s')).toBeUndefined()
    expect(manager.findByName('n')).toEqual([])
    expect(await manager.close('s')).toBe(true)
    expect(calls).toEqual(['save s', 'remove s'])
  })
})
