import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { appendFile, mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import type {
  CorruptLine,
  HistoryFields,
  HistoryOp,
  HistoryRecord,
  HistoryWriteError,
  OpenHistoryOptions,
} from '../../src/session/history.js'
import {
  HistoryRecordCodec,
  filterHistory,
  historyOps,
  historyPath,
  nerveHome,
  openHistory,
  readHistory,
  streamHistory,
} from '../../src/session/history.js'

let root = ''
let counter = 0

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'nerve-history-'))
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

/** A fresh location under the test root, and a clock that ticks one second per reading. */
const fresh = (extra?: Partial<OpenHistoryOptions>): OpenHistoryOptions => {
  let tick = Date.parse('2026-01-01T00:00:00.000Z')
  return {
    root,
    server: 'local',
    session: `s${++counter}`,
    node: 'shell',
    clock: { now: () => (tick += 1000) - 1000 },
    ...extra,
  }
}

const lines = async (path: string): Promise<string[]> =>
  (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '')

describe('openHistory', () => {
  it('writes one JSON line per append at <root>/.nerve/history/<server>/<session>/<node>.jsonl', async () => {
    const where = fresh()
    const history = openHistory(where)
    expect(history.path).toBe(join(root, '.nerve/history/local', where.session, 'shell.jsonl'))
    await history.append('send', {
      input: 'echo hi',
      response: {
        sections: [{ type: 'text', content: 'hi', metadata: {} }],
        text: 'hi',
        tokens: 3,
      },
      parser: 'none',
      durationMs: 12,
    })
    await history.append('read', { buffer: '$ echo hi\nhi\n$ ' })
    await history.close()
    const written = (await lines(history.path)).map((l) => JSON.parse(l) as unknown)
    expect(written).toEqual([
      {
        seq: 1,
        op: 'send',
        time: '2026-01-01T00:00:00.000Z',
        node: 'shell',
        input: 'echo hi',
        response: {
          sections: [{ type: 'text', content: 'hi', metadata: {} }],
          text: 'hi',
          tokens: 3,
        },
        parser: 'none',
        durationMs: 12,
      },
      {
        seq: 2,
        op: 'read',
        time: '2026-01-01T00:00:01.000Z',
        node: 'shell',
        buffer: '$ echo hi\nhi\n$ ',
      },
    ])
  })

  it('carries seq on from the last record when the file is reopened', async () => {
    const where = fresh()
    const first = openHistory(where)
    await first.append('write', { input: 'a' })
    await first.append('write', { input: 'b' })
    await first.close()
    const second = openHistory(where)
    await second.append('interrupt')
    await second.append('close')
    await second.close()
    const { records } = await readHistory(where)
    expect(records.map((r) => [r.seq, r.op])).toEqual([
      [1, 'write'],
      [2, 'write'],
      [3, 'interrupt'],
      [4, 'close'],
    ])
  })

  it('recovers seq from a last record longer than the 64 KiB read-back block', async () => {
    const where = fresh()
    const first = openHistory(where)
    await first.append('send', { input: 'x' })
    await first.append('read', { buffer: 'é'.repeat(100_000) })
    await first.close()
    const second = openHistory(where)
    await second.append('close')
    await second.close()
    const { records, problems } = await readHistory(where)
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3])
    expect(records[1]?.buffer).toBe('é'.repeat(100_000))
    expect(problems).toEqual([])
  })

  it('carries seq on from the last record that decodes when the file ends in a corrupt line', async () => {
    const where = fresh()
    const first = openHistory(where)
    await first.append('write', { input: 'a' })
    await first.close()
    await appendFile(first.path, 'garbage\n')
    const second = openHistory(where)
    await second.append('write', { input: 'b' })
    await second.close()
    const { records, problems } = await readHistory(where)
    expect(records.map((r) => [r.seq, r.input])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ])
    expect(problems.map((p) => p.line)).toEqual([2])
  })

  it('keeps the order of appends made without waiting', async () => {
    const where = fresh()
    const history = openHistory(where)
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => history.append('write', { input: `${i}` })),
    )
    await history.close()
    const { records } = await readHistory(where)
    expect(records.map((r) => [r.seq, r.input])).toEqual(
      Array.from({ length: 200 }, (_, i) => [i + 1, `${i}`]),
    )
  })

  it('keeps the header its own: fields cannot override seq, op, time or node', async () => {
    const where = fresh()
    const history = openHistory(where)
    await history.append('run', { seq: 99, op: 'close', node: 'other', exitCode: 0 } as never)
    await history.close()
    const { records } = await readHistory(where)
    expect(records).toEqual([
      { seq: 1, op: 'run', time: '2026-01-01T00:00:00.000Z', node: 'shell', exitCode: 0 },
    ])
  })

  it('rejects names that would climb out of the root', () => {
    for (const bad of [
      { server: '..', session: 's', node: 'n' },
      { server: 'a', session: '../..', node: 'n' },
      { server: 'a', session: 's', node: '../../etc/passwd' },
      { server: 'a/b', session: 's', node: 'n' },
      { server: 'a', session: 's', node: '' },
      { server: 'a', session: '.hidden', node: 'n' },
      { server: 'a', session: 's', node: 'a\\b' },
    ]) {
      expect(() => openHistory({ root, ...bad })).toThrow(UsageError)
      expect(() => historyPath({ root, ...bad })).toThrow(UsageError)
    }
  })

  it('names the api and the bad name in the error', () => {
    expect(() => openHistory({ root, server: 'a', session: '..', node: 'n' })).toThrow(
      /^openHistory\(\): session: "\.\." is not a valid name/,
    )
  })
})

describe('a failing history write', () => {
  const collect = (): { errors: HistoryWriteError[]; onError: (e: HistoryWriteError) => void } => {
    const errors: HistoryWriteError[] = []
    return { errors, onError: (e) => errors.push(e) }
  }

  it('resolves and is reported when the directory cannot be made', async () => {
    const blocker = join(root, `blocker${++counter}`)
    await writeFile(blocker, 'a file where the history directory should go')
    const { errors, onError } = collect()
    const history = openHistory({ root: blocker, server: 'a', session: 'b', node: 'c', onError })
    await expect(history.append('send', { input: 'x' })).resolves.toBeUndefined()
    await history.close()
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ _tag: 'HistoryWriteError', op: 'send', path: history.path })
    expect((errors[0]?.error as NodeJS.ErrnoException).code).toBe('ENOTDIR')
  })

  it('resolves when the file system fails, and the next append succeeds once it recovers', async () => {
    let failing = true
    const { errors, onError } = collect()
    const where = fresh({
      onError,
      fs: {
        mkdir,
        open: (path, flags) =>
          failing ? Promise.reject(new Error('disk full')) : open(path, flags),
      },
    })
    const history = openHistory(where)
    await expect(history.append('send', { input: 'lost' })).resolves.toBeUndefined()
    failing = false
    await history.append('send', { input: 'kept' })
    await history.close()
    expect(errors.map((e) => (e.error as Error).message)).toEqual(['disk full'])
    const { records } = await readHistory(where)
    expect(records.map((r) => [r.seq, r.input])).toEqual([[1, 'kept']])
  })

  it('resolves when a write fails halfway, and the next record starts on a new line', async () => {
    const { errors, onError } = collect()
    let breakNext = false
    const where = fresh({
      onError,
      fs: {
        mkdir,
        open: async (path, flags) => {
          const handle = await open(path, flags)
          const write = handle.write.bind(handle) as (
            data: Buffer,
            offset: number,
            length: number,
          ) => Promise<unknown>
          return Object.assign(Object.create(handle) as typeof handle, {
            write: async (data: Buffer, offset: number, length: number) => {
              if (!breakNext) return write(data, offset, length)
              breakNext = false
              await write(data, offset, Math.floor(length / 2))
              throw new Error('device gone')
            },
            read: handle.read.bind(handle),
            stat: handle.stat.bind(handle),
            close: handle.close.bind(handle),
          })
        },
      },
    })
    const history = openHistory(where)
    await history.append('write', { input: 'one' })
    breakNext = true
    await expect(history.append('write', { input: 'two' })).resolves.toBeUndefined()
    await history.append('write', { input: 'three' })
    await history.close()
    expect(errors).toHaveLength(1)
    const read = await readHistory(where)
    expect(read.records.map((r) => [r.seq, r.input])).toEqual([
      [1, 'one'],
      [2, 'three'],
    ])
    expect(read.problems.map((p) => p.line)).toEqual([2])
  })

  it('resolves when a field is not JSON or would not read back', async () => {
    const { errors, onError } = collect()
    const where = fresh({ onError })
    const history = openHistory(where)
    await expect(history.append('run', { big: 1n })).resolves.toBeUndefined()
    await expect(history.append('run', { exitCode: 'zero' } as never)).resolves.toBeUndefined()
    await expect(history.append('jump' as HistoryOp)).resolves.toBeUndefined()
    await history.append('run', { exitCode: 0 })
    await history.close()
    expect(errors.map((e) => e.op)).toEqual(['run', 'run', 'jump'])
    const { records } = await readHistory(where)
    expect(records.map((r) => [r.seq, r.exitCode])).toEqual([[1, 0]])
  })

  it('resolves when onError itself throws, and after close', async () => {
    const seen: string[] = []
    const history = openHistory({
      root,
      server: 'a',
      session: 'b',
      node: 'c',
      onError: (e) => {
        seen.push(String(e.error))
        throw new Error('onError broke')
      },
    })
    await history.close()
    await expect(history.append('send')).resolves.toBeUndefined()
    await expect(history.close()).resolves.toBeUndefined()
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatch(/is closed/)
  })
})

describe('readHistory', () => {
  const sample = async (): Promise<OpenHistoryOptions> => {
    const where = fresh()
    const history = openHistory(where)
    const ops: HistoryOp[] = ['send', 'read', 'send_stream', 'write', 'run', 'interrupt', 'close']
    for (const op of ops) await history.append(op, { input: op })
    await history.close()
    return where
  }

  it('filters by one op or several', async () => {
    const where = await sample()
    const ops = async (filter: Parameters<typeof readHistory>[1]): Promise<string[]> =>
      (await readHistory(where, filter)).records.map((r) => r.op)
    expect(await ops({ op: 'send' })).toEqual(['send'])
    expect(await ops({ op: ['send', 'send_stream', 'close'] })).toEqual([
      'send',
      'send_stream',
      'close',
    ])
    expect(await ops({ op: [] })).toEqual([])
  })

  it('filters by seq, both bounds inclusive', async () => {
    const where = await sample()
    const { records } = await readHistory(where, { fromSeq: 3, toSeq: 5 })
    expect(records.map((r) => r.seq)).toEqual([3, 4, 5])
  })

  it('filters by time, from a Date or an ISO string, both bounds inclusive', async () => {
    const where = await sample() // one record per second from 2026-01-01T00:00:00Z
    const { records } = await readHistory(where, {
      since: new Date('2026-01-01T00:00:02.000Z'),
      until: '2026-01-01T01:00:04+01:00',
    })
    expect(records.map((r) => r.seq)).toEqual([3, 4, 5])
    const both = await readHistory(where, {
      op: ['write', 'run', 'send'],
      since: '2026-01-01T00:00:04Z',
    })
    expect(both.records.map((r) => r.op)).toEqual(['run'])
  })

  it('throws a UsageError on a date that is not one', async () => {
    const where = await sample()
    await expect(readHistory(where, { since: 'yesterday' })).rejects.toThrow(UsageError)
    expect(() => filterHistory({ until: new Date(Number.NaN) })).toThrow(/filterHistory\(\): until/)
    expect(() => filterHistory({ op: 'jump' as HistoryOp })).toThrow(UsageError)
  })

  it('reads a missing file as empty', async () => {
    expect(await readHistory(join(root, 'nowhere.jsonl'))).toEqual({ records: [], problems: [] })
  })

  it('skips a torn last line, and the next append starts a new line that parses', async () => {
    const where = fresh()
    const first = openHistory(where)
    await first.append('send', { input: 'one' })
    await first.append('send', { input: 'two' })
    await first.close()
    await appendFile(first.path, '{"seq":3,"op":"send","time":"2026-01-0')
    const torn = await readHistory(where)
    expect(torn.records.map((r) => r.seq)).toEqual([1, 2])
    expect(torn.problems).toEqual([])
    expect(torn.tornLine).toBe(3)

    const second = openHistory(where)
    await second.append('send', { input: 'three' })
    await second.close()
    const after = await readHistory(where)
    expect(after.records.map((r) => [r.seq, r.input])).toEqual([
      [1, 'one'],
      [2, 'two'],
      [3, 'three'],
    ])
    expect(after.tornLine).toBeUndefined()
    expect(after.problems.map((p) => [p.line, p.reason.startsWith('not JSON')])).toEqual([
      [3, true],
    ])
  })

  it('reports a corrupt line in the middle with its number and skips it', async () => {
    const path = join(root, `corrupt${++counter}.jsonl`)
    const good = (seq: number): string =>
      JSON.stringify({ seq, op: 'write', time: '2026-01-01T00:00:00Z', node: 'n' })
    await writeFile(
      path,
      [
        good(1),
        'garbage',
        JSON.stringify({ seq: 'two', op: 'write', time: 'x', node: 'n' }),
        '',
        good(4),
      ]
        .map((l) => `${l}\n`)
        .join(''),
    )
    const { records, problems, tornLine } = await readHistory(path)
    expect(records.map((r) => r.seq)).toEqual([1, 4])
    expect(tornLine).toBeUndefined()
    expect(problems.map((p) => [p._tag, p.path, p.line])).toEqual([
      ['CorruptLine', path, 2],
      ['CorruptLine', path, 3],
    ])
    expect(problems[0]?.text).toBe('garbage')
    expect(problems[1]?.reason).toBe('/seq: a whole number from 1; /time: an ISO 8601 date-time')
  })

  it('rejects a location with a bad name', async () => {
    await expect(readHistory({ root, server: 'a', session: '..', node: 'n' })).rejects.toThrow(
      /^readHistory\(\): session/,
    )
  })
})

describe('streamHistory', () => {
  it('yields the filtered records in order, across read chunks, and reports corrupt lines', async () => {
    const where = fresh()
    const history = openHistory(where)
    for (let i = 1; i <= 40; i++)
      await history.append(i % 2 === 0 ? 'send' : 'read', { buffer: `${i}`.repeat(5000) })
    await history.close()
    const text = await readFile(history.path, 'utf8')
    const at = text.indexOf('\n', 100_000) + 1
    await writeFile(history.path, `${text.slice(0, at)}{"torn\n${text.slice(at)}`)
    const problems: CorruptLine[] = []
    const seen: HistoryRecord[] = []
    for await (const r of streamHistory(
      history.path,
      { op: 'send', toSeq: 30 },
      { onProblem: (p) => problems.push(p) },
    )) {
      seen.push(r)
    }
    expect(seen.map((r) => r.seq)).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30])
    expect(seen.every((r) => r.buffer === `${r.seq}`.repeat(5000))).toBe(true)
    expect(problems).toHaveLength(1)
  })

  it('checks its filter and names at once', () => {
    expect(() => streamHistory('x.jsonl', { fromSeq: Number.NaN })).toThrow(UsageError)
    expect(() => streamHistory({ root, server: 'a', session: 'b', node: '..' })).toThrow(UsageError)
  })
})

describe('HistoryRecordCodec', () => {
  it('rejects an unknown op, a seq below 1 and a time that is not ISO', () => {
    const ok = { seq: 1, op: 'send', time: '2026-01-01T00:00:00.000Z', node: 'n' }
    expect(E.isRight(HistoryRecordCodec.decode(ok))).toBe(true)
    for (const bad of [
      { ...ok, op: 'jump' },
      { ...ok, seq: 0 },
      { ...ok, seq: 1.5 },
      { ...ok, time: 'Jan 1 2026' },
      { ...ok, time: '2026-13-45T00:00:00Z' },
      { ...ok, response: { text: 'x' } },
      { ...ok, exitCode: '0' },
    ]) {
      expect(E.isLeft(HistoryRecordCodec.decode(bad))).toBe(true)
    }
  })
})

const key = fc.string({ maxLength: 8 }).map((k) => `x-${k}`)
const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)
const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x))
const fieldsArb: fc.Arbitrary<HistoryFields> = fc
  .tuple(
    fc.record(
      {
        input: fc.string(),
        response: fc.record(
          {
            sections: fc.array(
              fc.record({
                type: fc.constantFrom('text', 'thinking', 'tool_call'),
                content: fc.string(),
                metadata: fc.dictionary(key, fc.string(), { maxKeys: 2 }),
              }),
              { maxLength: 3 },
            ),
            text: fc.string(),
            tokens: fc.nat(),
          },
          { requiredKeys: ['sections', 'text'] },
        ),
        buffer: fc.string({ unit: 'binary' }),
        parser: fc.constantFrom('none', 'claude', 'gemini'),
        exitCode: fc.option(fc.integer(), { nil: null }),
        durationMs: finite,
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(key, json, { maxKeys: 3 }),
  )
  .map(([known, extra]) => ({ ...extra, ...known }))

describe('history laws', () => {
  it('reads back every sequence of appends as written, numbered from 1', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...historyOps), fieldsArb), { maxLength: 8 }),
        async (appends) => {
          const where = fresh()
          const history = openHistory({ ...where, onError: (e) => expect.fail(String(e.error)) })
          for (const [op, fields] of appends) await history.append(op, fields)
          await history.close()
          const { records, problems } = await readHistory(where)
          const start = Date.parse('2026-01-01T00:00:00.000Z')
          const expected = appends.map(([op, fields], i) => ({
            ...fields,
            seq: i + 1,
            op,
            time: new Date(start + i * 1000).toISOString(),
            node: 'shell',
          }))
          expect(problems).toEqual([])
          expect(records).toEqual(expected)
          for (const r of records)
            expect(HistoryRecordCodec.decode(HistoryRecordCodec.encode(r))).toEqual(E.right(r))
        },
      ),
      { numRuns: 40 },
    )
  })

  it('filterHistory keeps exactly the records that pass every bound', () => {
    const recordArb = fc.record({
      seq: fc.integer({ min: 1, max: 20 }),
      op: fc.constantFrom(...historyOps),
      time: fc.integer({ min: 0, max: 20 }).map((s) => new Date(s * 1000).toISOString()),
      node: fc.constant('n'),
    })
    fc.assert(
      fc.property(
        fc.array(recordArb),
        fc.subarray([...historyOps]),
        fc.integer({ min: 0, max: 21 }),
        fc.integer({ min: 0, max: 21 }),
        (records, ops, from, to) => {
          const kept = filterHistory({
            op: ops,
            fromSeq: from,
            toSeq: to,
            since: new Date(from * 1000),
            until: new Date(to * 1000),
          })(records)
          const at = (r: HistoryRecord): number => Date.parse(r.time) / 1000
          expect(kept).toEqual(
            records.filter(
              (r) =>
                ops.includes(r.op) && r.seq >= from && r.seq <= to && at(r) >= from && at(r) <= to,
            ),
          )
        },
      ),
    )
  })
})

describe('historyPath', () => {
  it("defaults to history in Nerve's home, never the working directory", () => {
    const path = historyPath({ server: 'a', session: 'b', node: 'c' })
    expect(path).toBe(join(nerveHome(), 'history/a/b/c.jsonl'))
    expect(path.startsWith(join(process.cwd(), '.nerve'))).toBe(false)
  })

  it('goes in <root>/.nerve/history only when a root is given, and in dir when one is', () => {
    expect(historyPath({ root: '/p', server: 'a', session: 'b', node: 'c' })).toBe(
      '/p/.nerve/history/a/b/c.jsonl',
    )
    expect(historyPath({ dir: '/h', root: '/p', server: 'a', session: 'b', node: 'c' })).toBe(
      '/h/a/b/c.jsonl',
    )
  })
})
