import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { bash, type BashNode, UsageError } from '../../src/index.js'
import { type NodeContext } from '../../src/core.js'
import {
  type BashChunk,
  BashFailed,
  bashInterpreterWith,
  type BashResult,
  BashSpawnFailed,
} from '../../src/interpreters/index.js'
import {
  bashHistory,
  type BashHistoryOptions,
  type HistoryRecord,
  type HistoryWriteError,
  readHistory,
} from '../../src/session/index.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const tmp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'nerve-bash-history-'))
  dirs.push(dir)
  return dir
}

const ctxOf = (signal = new AbortController().signal): NodeContext =>
  ({ input: undefined, signal }) as NodeContext

const setup = (options: Partial<BashHistoryOptions> = {}) => {
  const root = tmp()
  const interpreter = bashInterpreterWith({
    onRun: bashHistory({ root, server: 'local', session: 'dev', ...options }),
  })
  const execute = (node: BashNode, signal?: AbortSignal): Promise<BashResult> =>
    interpreter.execute!(node, ctxOf(signal)) as Promise<BashResult>
  const records = async (node: string): Promise<readonly HistoryRecord[]> =>
    (await readHistory(join(root, '.nerve/history/local/dev', `${node}.jsonl`))).records
  return { interpreter, execute, records }
}

const rejection = (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => expect.fail('expected the run to fail'),
    (e: unknown) => e,
  )

describe('bashHistory', () => {
  it('records each run of a node as a run record, numbered from 1', async () => {
    const { execute, records } = setup()
    await execute(bash('sh', { command: 'echo one' }))
    await execute(bash('sh', { command: 'echo two >&2; exit 3', allowFailure: true }))
    const recorded = await records('sh')
    expect(recorded.map((r) => [r.seq, r.op, r.input, r.exitCode])).toEqual([
      [1, 'run', 'echo one', 0],
      [2, 'run', 'echo two >&2; exit 3', 3],
    ])
    expect(recorded[0]).toMatchObject({
      node: 'sh',
      stdout: 'one\n',
      stderr: '',
      signal: null,
      interrupted: false,
      timedOut: false,
    })
    expect(recorded[1]).toMatchObject({ stdout: '', stderr: 'two\n' })
    expect(recorded.every((r) => typeof r.durationMs === 'number' && r.durationMs >= 0)).toBe(true)
  })

  it('keeps one file per node', async () => {
    const { execute, records } = setup()
    await execute(bash('a', { command: 'true' }))
    await execute(bash('b', { command: 'true' }))
    await execute(bash('a', { command: 'echo again' }))
    expect((await records('a')).map((r) => [r.seq, r.input])).toEqual([
      [1, 'true'],
      [2, 'echo again'],
    ])
    expect((await records('b')).map((r) => [r.seq, r.input])).toEqual([[1, 'true']])
  })

  it('numbers the runs of a node that end together in order', async () => {
    const { execute, records } = setup()
    const node = bash('many', { command: 'true' })
    await Promise.all([execute(node), execute(node), execute(node)])
    await execute(node)
    expect((await records('many')).map((r) => r.seq)).toEqual([1, 2, 3, 4])
  })

  it('records a failing command before the step fails with BashFailed', async () => {
    const { execute, records } = setup()
    const error = await rejection(execute(bash('fail', { command: 'echo bad >&2; exit 2' })))
    expect(error).toBeInstanceOf(BashFailed)
    expect(await records('fail')).toMatchObject([
      { seq: 1, op: 'run', exitCode: 2, stderr: 'bad\n', interrupted: false },
    ])
  })

  it('records an interrupted run after an interrupt record', async () => {
    const { interpreter, records } = setup()
    const controller = new AbortController()
    const node = bash('wait', { command: 'echo started; sleep 30' })
    const it = interpreter.executeStream!(node, ctxOf(controller.signal)) as AsyncGenerator<
      BashChunk,
      BashResult
    >
    expect((await it.next()).value).toEqual({ stream: 'stdout', data: 'started\n' })
    controller.abort()
    const error = await rejection(
      (async () => {
        while ((await it.next()).done !== true);
      })(),
    )
    expect(error).toBeInstanceOf(BashFailed)
    const recorded = await records('wait')
    expect(recorded.map((r) => [r.seq, r.op])).toEqual([
      [1, 'interrupt'],
      [2, 'run'],
    ])
    expect(recorded[1]).toMatchObject({ interrupted: true, stdout: 'started\n' })
  })

  it('keeps only the last 4000 characters of each stream', async () => {
    const { execute, records } = setup()
    await execute(bash('big', { command: "printf 'a%.0s' {1..5000}; printf z" }))
    const [record] = await records('big')
    expect(record?.stdout).toBe(`${'a'.repeat(3999)}z`)
  })

  it('records the error when bash could not start', async () => {
    const { execute, records } = setup()
    const node = bash('lost', { command: 'true', cwd: join(tmp(), 'missing') })
    expect(await rejection(execute(node))).toBeInstanceOf(BashSpawnFailed)
    const [record] = await records('lost')
    expect(record).toMatchObject({ seq: 1, op: 'run', input: 'true' })
    expect(record?.error).toMatch(/could not start bash/)
  })

  it('does not fail the run when the history root is a file', async () => {
    const root = join(tmp(), 'file')
    writeFileSync(root, 'not a directory')
    const errors: HistoryWriteError[] = []
    const interpreter = bashInterpreterWith({
      onRun: bashHistory({ root, server: 'local', session: 'dev', onError: (e) => errors.push(e) }),
    })
    const result = (await interpreter.execute!(
      bash('sh', { command: 'echo fine' }),
      ctxOf(),
    )) as BashResult
    expect(result.stdout).toBe('fine\n')
    expect(errors.map((e) => [e._tag, e.op])).toEqual([['HistoryWriteError', 'run']])
  })

  it('throws a UsageError for a bad session name', () => {
    expect(() => bashHistory({ server: 'local', session: '..' })).toThrow(UsageError)
  })
})

describe('the onRun hook of bashInterpreterWith', () => {
  it('does not fail the run when it throws or rejects', async () => {
    const node = bash('sh', { command: 'echo ok' })
    for (const onRun of [
      () => {
        throw new Error('sync')
      },
      () => Promise.reject(new Error('async')),
    ]) {
      const result = (await bashInterpreterWith({ onRun }).execute!(node, ctxOf())) as BashResult
      expect(result.stdout).toBe('ok\n')
    }
  })
})
