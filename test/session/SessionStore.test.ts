import { spawn } from 'node:child_process'
import { watch } from 'node:fs'
import type { FSWatcher } from 'node:fs'
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { nodeStates } from '../../src/node/NodeState.js'
import type { SessionRecord, SessionStore } from '../../src/session/SessionStore.js'
import {
  isStoreCorrupt,
  SESSIONS_FORMAT,
  sessionStore,
  StoreCorrupt,
} from '../../src/session/SessionStore.js'
import { bigStore } from './fixtures/bigStore.js'

let base: string
let n = 0
const freshPath = async (): Promise<string> => {
  const dir = join(base, `case-${n++}`)
  await mkdir(dir)
  return join(dir, 'sessions.json')
}
const freshStore = async (): Promise<SessionStore> => sessionStore({ path: await freshPath() })

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'nerve-store-'))
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
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

const isDeepFrozen = (u: unknown): boolean =>
  typeof u !== 'object' ||
  u === null ||
  (Object.isFrozen(u) && Object.values(u).every((v) => isDeepFrozen(v)))

const corruptionOf = async (p: Promise<unknown>): Promise<StoreCorrupt> => {
  const error: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isStoreCorrupt(error)) throw new Error(`expected a StoreCorrupt, got ${String(error)}`)
  return error
}

describe('sessionStore', () => {
  it('loads what it saved, frozen', async () => {
    const store = await freshStore()
    const a = record('a', {
      tags: ['x', 'y'],
      metadata: { cwd: '/w', n: 1.5, deep: [{ k: null }] },
      nodes: [{ id: 'sh', type: 'bash', state: 'ready', metadata: { pid: 3 } }],
    })
    await store.save(a)
    await store.save(record('b'))
    const loaded = await store.load()
    expect(loaded).toEqual([a, record('b')])
    expect(isDeepFrozen(loaded)).toBe(true)
  })

  it('writes the nerve/sessions format, indented, with mode 0o600', async () => {
    const store = await freshStore()
    await store.save(record('a'))
    const text = await readFile(store.path, 'utf8')
    expect(JSON.parse(text)).toEqual({
      format: 'nerve/sessions',
      version: 1,
      sessions: [record('a')],
    })
    expect(SESSIONS_FORMAT).toBe('nerve/sessions')
    expect(text).toContain('\n  "sessions": [\n')
    expect((await stat(store.path)).mode & 0o777).toBe(0o600)
  })

  it('makes a file it rewrites mode 0o600 again', async () => {
    const store = await freshStore()
    await store.save(record('a'))
    await chmod(store.path, 0o644)
    await store.save(record('b'))
    expect((await stat(store.path)).mode & 0o777).toBe(0o600)
  })

  it('replaces the record with the same id in place', async () => {
    const store = await freshStore()
    await store.save(record('a'))
    await store.save(record('b'))
    await store.save(record('a', { name: 'renamed' }))
    expect((await store.load()).map((r) => [r.id, r.name])).toEqual([
      ['a', 'renamed'],
      ['b', 'session b'],
    ])
  })

  it('removes a record and says whether there was one', async () => {
    const store = await freshStore()
    await store.save(record('a'))
    await store.save(record('b'))
    expect(await store.remove('a')).toBe(true)
    expect(await store.remove('a')).toBe(false)
    expect(await store.load()).toEqual([record('b')])
  })

  it('creates no file to remove from a store that does not exist', async () => {
    const store = await freshStore()
    expect(await store.remove('a')).toBe(false)
    await expect(stat(store.path)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('gets a record by id', async () => {
    const store = await freshStore()
    await store.save(record('a'))
    expect(await store.get('a')).toEqual(record('a'))
    expect(await store.get('nope')).toBeUndefined()
  })

  it('finds records by name and by tag, in file order', async () => {
    const store = await freshStore()
    await store.save(record('a', { name: 'build', tags: ['ci', 'night'] }))
    await store.save(record('b', { name: 'review', tags: ['ci'] }))
    await store.save(record('c', { name: 'build', tags: [] }))
    expect((await store.findByName('build')).map((r) => r.id)).toEqual(['a', 'c'])
    expect((await store.findByName('deploy')).map((r) => r.id)).toEqual([])
    expect((await store.findByTag('ci')).map((r) => r.id)).toEqual(['a', 'b'])
    expect((await store.findByTag('night')).map((r) => r.id)).toEqual(['a'])
  })

  it('loads nothing from a missing file and creates neither file nor directory', async () => {
    const path = join(base, 'never', 'made', 'sessions.json')
    const store = sessionStore({ path })
    expect(await store.load()).toEqual([])
    expect(await store.findByTag('x')).toEqual([])
    await expect(stat(join(base, 'never'))).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('keeps both records of two overlapping saves, and every one of many', async () => {
    const store = await freshStore()
    await Promise.all([store.save(record('a')), store.save(record('b'))])
    expect((await store.load()).map((r) => r.id)).toEqual(['a', 'b'])
    const ids = Array.from({ length: 20 }, (_, i) => `s${i}`)
    await Promise.all(ids.map((id) => store.save(record(id))))
    expect((await store.load()).map((r) => r.id)).toEqual(['a', 'b', ...ids])
  })

  it('runs overlapping calls in call order', async () => {
    const store = await freshStore()
    const results = await Promise.all([
      store.save(record('a')),
      store.get('a'),
      store.remove('a'),
      store.get('a'),
      store.save(record('b')),
      store.load(),
    ])
    expect(results).toEqual([undefined, record('a'), true, undefined, undefined, [record('b')]])
  })

  it('goes on with later calls after one failed', async () => {
    const store = await freshStore()
    await mkdir(store.path) // a directory where the file should be: reads and writes fail
    await expect(store.save(record('a'))).rejects.toMatchObject({ code: 'EISDIR' })
    await rm(store.path, { recursive: true })
    await store.save(record('b'))
    expect(await store.load()).toEqual([record('b')])
  })

  it('lives at ~/.nerve/sessions.json by default and resolves a relative path', () => {
    expect(sessionStore().path).toBe(join(homedir(), '.nerve', 'sessions.json'))
    expect(sessionStore({ path: 'x/s.json' }).path).toBe(resolve('x/s.json'))
  })

  it('throws a UsageError for a bad path or argument', async () => {
    expect(() => sessionStore({ path: '' })).toThrow(UsageError)
    const store = await freshStore()
    await expect(store.get(3 as never)).rejects.toThrow(
      'SessionStore.get(): the id must be a string',
    )
    await expect(store.findByTag(undefined as never)).rejects.toThrow(UsageError)
  })
})

describe('saving a record that would not read back', () => {
  const cases: readonly [string, unknown, string][] = [
    ['an empty id', record(''), '/id: expected NonEmptyString'],
    ['a time that is not ISO 8601', record('a', { updated_at: 'yesterday' }), '/updated_at'],
    [
      'a node in no lifecycle state',
      record('a', { nodes: [{ id: 'n', type: 'bash', state: 'asleep' as never, metadata: {} }] }),
      '/nodes/0/state',
    ],
    ['undefined in metadata', record('a', { metadata: { 'a/b': undefined } }), '/metadata/a~1b'],
    ['a Date in metadata', record('a', { metadata: { when: new Date(0) } }), '/metadata/when'],
    [
      'a function in metadata',
      record('a', { metadata: { f: () => 1 } }),
      '/metadata/f: a function',
    ],
    ['NaN in metadata', record('a', { metadata: { x: [1, Number.NaN] } }), '/metadata/x/1: NaN'],
  ]
  for (const [what, bad, where] of cases) {
    it(`is refused with a UsageError naming the place: ${what}`, async () => {
      const store = await freshStore()
      await store.save(record('kept'))
      const before = await readFile(store.path, 'utf8')
      const error: unknown = await store.save(bad as SessionRecord).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UsageError)
      expect((error as Error).message).toContain(
        `SessionStore.save(): not a SessionRecord at ${where}`,
      )
      expect(await readFile(store.path, 'utf8')).toBe(before)
    })
  }

  it('is refused when the record contains itself', async () => {
    const metadata: Record<string, unknown> = {}
    metadata['self'] = metadata
    const store = await freshStore()
    await expect(store.save(record('a', { metadata }))).rejects.toThrow(
      /\/metadata\/self: the value contains itself/,
    )
  })
})

describe('a store file that cannot be read', () => {
  const valid = { format: 'nerve/sessions', version: 1, sessions: [record('a'), record('b')] }
  const cases: readonly [string, string, string][] = [
    ['not JSON', '{"format": "nerve/sess', ''],
    ['empty', '', ''],
    ['another format', JSON.stringify({ ...valid, format: 'nerve/conversation' }), '/format'],
    ['a newer version', JSON.stringify({ ...valid, version: 2 }), '/version'],
    ['without sessions', JSON.stringify({ format: 'nerve/sessions', version: 1 }), '/sessions'],
    [
      'a record with a bad time',
      JSON.stringify({ ...valid, sessions: [record('a'), { ...record('b'), created_at: 'now' }] }),
      '/sessions/1/created_at',
    ],
    [
      'a node without metadata',
      JSON.stringify({
        ...valid,
        sessions: [record('a', { nodes: [{ id: 'n', type: 'bash', state: 'ready' } as never] })],
      }),
      '/sessions/0/nodes/0/metadata',
    ],
    [
      'an id used twice',
      JSON.stringify({ ...valid, sessions: [record('a'), record('b'), record('a')] }),
      '/sessions/2/id',
    ],
  ]
  for (const [what, text, pointer] of cases) {
    it(`makes every call reject with a StoreCorrupt at ${pointer || 'the top'} and is left untouched: ${what}`, async () => {
      const store = await freshStore()
      await writeFile(store.path, text)
      const error = await corruptionOf(store.load())
      expect(error).toBeInstanceOf(StoreCorrupt)
      expect(error).toMatchObject({ _tag: 'StoreCorrupt', path: store.path, pointer })
      expect(error.problems[0]?.pointer).toBe(pointer)
      expect(error.message).toContain(store.path)
      await corruptionOf(store.save(record('c')))
      await corruptionOf(store.remove('a'))
      await corruptionOf(store.get('a'))
      await corruptionOf(store.findByName('a'))
      expect(await readFile(store.path, 'utf8')).toBe(text)
      expect(await readdir(join(store.path, '..'))).toEqual(['sessions.json'])
    })
  }

  it('lists every problem with its pointer', async () => {
    const store = await freshStore()
    const bad = { ...record('a'), id: 7, tags: ['ok', 3] }
    await writeFile(store.path, JSON.stringify({ ...valid, sessions: [bad] }))
    const error = await corruptionOf(store.load())
    expect(error.problems.map((p) => p.pointer)).toEqual(['/sessions/0/id', '/sessions/0/tags/1'])
    expect(error.message).toMatch(
      /at \/sessions\/0\/id: expected NonEmptyString, found 7 \(and 1 more\)/,
    )
  })
})

const isoTime = fc
  .integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2100-01-01T00:00:00Z') })
  .map((ms) => new Date(ms).toISOString())
// JSON has no -0: it writes it as 0. Round-tripping the generated value makes it plain JSON data.
const jsonObject = fc
  .dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4, noNullPrototype: true })
  .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>)
const nodeInfoArb = fc.record({
  id: fc.string({ minLength: 1 }),
  type: fc.constantFrom('function', 'bash', 'pty', 'llm', 'graph'),
  state: fc.constantFrom(...nodeStates),
  metadata: jsonObject,
})
const recordArb = (id: fc.Arbitrary<string>): fc.Arbitrary<SessionRecord> =>
  fc.record({
    id,
    name: fc.string(),
    tags: fc.array(fc.string(), { maxLength: 3 }),
    created_at: isoTime,
    updated_at: isoTime,
    metadata: jsonObject,
    nodes: fc.array(nodeInfoArb, { maxLength: 2 }),
  })

describe('laws', () => {
  it('load after saving records with distinct ids gives back those records, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(recordArb(fc.string({ minLength: 1 })), {
          selector: (r) => r.id,
          maxLength: 4,
        }),
        async (records) => {
          const store = await freshStore()
          for (const r of records) await store.save(r)
          expect(await store.load()).toEqual(records)
        },
      ),
      { numRuns: 40 },
    )
  })

  it('overlapping saves and removes act like an insertion-ordered map updated in call order', async () => {
    const id = fc.constantFrom('a', 'b', 'c')
    const op = fc.oneof(
      recordArb(id).map((r) => ({ save: r }) as const),
      id.map((remove) => ({ remove }) as const),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 8 }), async (ops) => {
        const store = await freshStore()
        const model = new Map<string, SessionRecord>()
        const expected = ops.map((o) => {
          if ('save' in o) return void model.set(o.save.id, o.save)
          return model.delete(o.remove)
        })
        const results = await Promise.all(
          ops.map((o) => ('save' in o ? store.save(o.save) : store.remove(o.remove))),
        )
        expect(results).toEqual(expected)
        expect(await store.load()).toEqual([...model.values()])
      }),
      { numRuns: 30 },
    )
  })
})

interface Round {
  /** The generation the child read before its first save. */
  readonly start: number
  /** The generation of its last save that returned before the kill. */
  readonly last: number
}

const saveLoop = join(import.meta.dirname, 'fixtures', 'saveLoop.ts')
const repoRoot = join(import.meta.dirname, '..', '..')

/**
 * When to kill the save loop: `delayMs` after the first change in the
 * store's directory (the start of a write, so the kill lands in or near
 * one), or after its first save has returned.
 */
interface Moment {
  readonly after: 'write' | 'save'
  readonly delayMs: number
}

/** Runs the save loop on `path`, once it has read the store SIGKILLs it at `moment`. */
const killedRun = (path: string, moment: Moment): Promise<Round> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', saveLoop, path], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const kill = (): void => void setTimeout(() => child.kill('SIGKILL'), moment.delayMs)
    let watcher: FSWatcher | undefined
    let out = ''
    let err = ''
    let start: number | undefined
    let armed = false
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      out += chunk
      if (start === undefined) {
        const ready = /^ready (\d+)$/m.exec(out)
        if (ready === null) return
        start = Number(ready[1])
        if (moment.after === 'write') {
          armed = true
          watcher = watch(dirname(path), () => {
            watcher?.close()
            kill()
          })
        }
      }
      if (!armed && /^saved /m.test(out)) {
        armed = true
        kill()
      }
    })
    child.stderr.on('data', (chunk: string) => (err += chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      watcher?.close()
      if (signal !== 'SIGKILL' || start === undefined) {
        reject(new Error(`save loop ended with ${code ?? signal}: ${err}`))
        return
      }
      const saved = [...out.matchAll(/^saved (\d+)$/gm)].map((m) => Number(m[1]))
      resolvePromise({ start, last: saved.at(-1) ?? start })
    })
  })

describe('a process killed while saving', () => {
  it('leaves the old or a new complete store, never a torn one, and its temp files do not matter', async () => {
    const path = await freshPath()
    const store = sessionStore({ path })
    for (const r of bigStore(0)) await store.save(r)
    expect((await stat(path)).size).toBeGreaterThan(5_000_000)

    let generation = 0
    let saves = 0
    const moments: readonly Moment[] = [
      ...[0, 1, 2, 4, 7, 11, 17, 26, 40, 65, 110].map(
        (delayMs) => ({ after: 'write', delayMs }) as const,
      ),
      { after: 'save', delayMs: 0 },
      { after: 'save', delayMs: 30 },
    ]
    for (const moment of moments) {
      const round = await killedRun(path, moment)
      expect(round.start).toBe(generation)
      const text = await readFile(path, 'utf8')
      const sessions = (JSON.parse(text) as { sessions: SessionRecord[] }).sessions
      const found = sessions.find((s) => s.id === 'hot')?.metadata['generation']
      // The save in flight at the kill may or may not have replaced the file.
      expect([round.last, round.last + 1]).toContain(found)
      expect(await store.load()).toEqual(bigStore(found as number))
      saves += (found as number) - generation
      generation = found as number
    }
    expect(saves).toBeGreaterThanOrEqual(2) // the rounds killed after a save

    const dir = dirname(path)
    await writeFile(join(dir, '.sessions.json.99999.deadbeef0000.tmp'), '{"format": "nerve/sess')
    const leftovers = (await readdir(dir)).filter((f) => f.endsWith('.tmp'))
    expect(leftovers.length).toBeGreaterThan(0)
    const reopened = sessionStore({ path })
    expect(await reopened.load()).toEqual(bigStore(generation))
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([])
    await reopened.remove('seed-0')
    expect((await reopened.load()).length).toBe(bigStore(generation).length - 1)
  }, 300_000)
})

const saveMany = join(import.meta.dirname, 'fixtures', 'saveMany.ts')

/** Starts a process that saves `count` records named after `prefix` once it is let go. */
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
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => (err += chunk))
  const ready = new Promise<void>((resolveReady) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk
      if (out.startsWith('ready\n')) resolveReady()
    })
  })
  const done = new Promise<void>((resolveDone, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0 && out.includes('done\n')) resolveDone()
      else reject(new Error(`saver ${prefix} ended with ${code}: ${err}`))
    })
  })
  return { ready, done, go: () => child.stdin.write('go\n') }
}

describe('processes saving to one store at once', () => {
  it("never lose each other's records", async () => {
    const path = await freshPath()
    const prefixes = ['p', 'q', 'r', 's']
    const savers = prefixes.map((p) => saver(path, p, 12))
    await Promise.all(savers.map((s) => s.ready))
    for (const s of savers) s.go()
    await Promise.all(savers.map((s) => s.done))
    const ids = (await sessionStore({ path }).load()).map((r) => r.id)
    expect(ids).toHaveLength(48)
    for (const p of prefixes) {
      const own = ids.filter((id) => id.startsWith(`${p}-`))
      expect(own).toEqual(Array.from({ length: 12 }, (_, i) => `${p}-${i}`))
    }
    expect((await readdir(dirname(path))).sort()).toEqual(['sessions.json'])
  }, 60_000)

  it('take over the lock of a process that died holding it', async () => {
    const path = await freshPath()
    await mkdir(`${path}.lock`) // as a holder killed mid-save leaves it
    const old = new Date(Date.now() - 60_000)
    await utimes(`${path}.lock`, old, old)
    const store = sessionStore({ path })
    await store.save(record('a'))
    expect(await store.load()).toEqual([record('a')])
  })
})
