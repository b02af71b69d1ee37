import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { Queue, type Job } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addStep, fn, graph, retry, run, type RunEvent } from 'nerve-agents'
import { remoteInterpreters, startWorker, type RemoteInterpreters } from 'nerve-agents/distributed'
import { freePort, hasRedisServer, startRedisServer, type RedisServer } from './redisServer.js'
import { spawnWorker, type WorkerChild } from './workers.js'

// The worker processes know these functions by name; here they are never called.
const named = (id: string): ReturnType<typeof fn> =>
  fn(id, (): never => {
    throw new Error(`${id} ran locally`)
  })
const timed = named('timed')
const spell = named('spell')
const sum = named('sum')
const failing = named('fail')
const chatty = named('chatty')

/** Rejects when the worker process exits (with what it wrote to stderr). */
const exited = (w: WorkerChild, stderr: () => string): Promise<never> =>
  new Promise((_, reject) => {
    w.child.once('exit', (code, signal) => {
      reject(new Error(`worker ${w.pid} exited (${String(code ?? signal)}): ${stderr()}`))
    })
  })

const lines = (file: string): string[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : []

const until = async (
  check: () => boolean,
  ms = 15_000,
  refresh?: () => Promise<void>,
): Promise<void> => {
  const deadline = Date.now() + ms
  for (;;) {
    await refresh?.()
    if (check()) return
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 25))
  }
}

interface Timed {
  readonly pid: number
  readonly start: number
  readonly end: number
}

const mostAtOnce = (spans: readonly Timed[]): number =>
  Math.max(...spans.map((s) => spans.filter((o) => o.start <= s.start && s.start < o.end).length))

describe('steps on workers over BullMQ', () => {
  let redis: RedisServer
  let dir: string
  const started: WorkerChild[] = []
  const remotes: RemoteInterpreters[] = []

  const workers = async (queue: string, n: number, env?: Record<string, string>) => {
    const ws = await Promise.all(
      Array.from({ length: n }, () => spawnWorker(redis.url, queue, dir, env)),
    )
    started.push(...ws)
    return ws
  }
  const remote = (queue: string) => {
    const r = remoteInterpreters({ connection: redis.url, queue, kinds: ['function'] })
    remotes.push(r)
    return r
  }

  beforeAll(async () => {
    if (!hasRedisServer()) {
      throw new Error('redis-server is not installed (not on PATH): apt-get install redis-server')
    }
    redis = await startRedisServer()
    dir = mkdtempSync(join(tmpdir(), 'nerve-dist-'))
  })
  afterAll(async () => {
    await Promise.all(remotes.map((r) => r.close()))
    await Promise.all(started.map((w) => w.stop()))
    await redis.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('fans a graph out over three worker processes, keeping maxParallel across them', async () => {
    await workers('fanout', 3)
    const { interpreters } = remote('fanout')
    const ids = ['a', 'b', 'c', 'd', 'e', 'f']
    const g = ids.reduce(
      (acc, id) => addStep({ id, node: timed, input: { ms: 300 } })(acc),
      graph('fan'),
    )
    const wide = addStep({ id: 'total', node: sum, dependsOn: ids })(g)
    const three = await run(wide, { interpreters, maxParallel: 3 })
    const spans3 = ids.map((id) => three.results[id] as Timed)
    expect(new Set(spans3.map((s) => s.pid)).size).toBe(3)
    expect(mostAtOnce(spans3)).toBeLessThanOrEqual(3)
    expect(three.results.total).toBe(6)
    expect(three.trace.records.map((r) => r.data.status)).toEqual(Array(7).fill('completed'))

    const two = await run(wide, { interpreters, maxParallel: 2 })
    expect(mostAtOnce(ids.map((id) => two.results[id] as Timed))).toBeLessThanOrEqual(2)
  }, 60_000)

  it('brings chunks and usage back as the events of a local run, and the budget holds', async () => {
    await workers('spell', 2)
    const { interpreters } = remote('spell')
    const events: RunEvent[] = []
    const g = pipe(graph('words'), addStep({ id: 'w', node: spell, input: 'abc' }))
    const { results, trace } = await run(g, { interpreters, onEvent: (e) => events.push(e) })
    expect(results.w).toBe('ABC')
    expect(events.filter((e) => e.type === 'step_chunk').map((e) => e.chunk)).toEqual([
      'a',
      'b',
      'c',
    ])
    expect(trace.records[0]!.data).toMatchObject({ tokens: 3, status: 'completed' })

    const chain = pipe(
      graph('chain'),
      addStep({ id: 's1', node: spell, input: 'ab' }),
      addStep({ id: 's2', node: spell, input: 'cd', dependsOn: ['s1'] }),
      addStep({ id: 's3', node: spell, input: 'ef', dependsOn: ['s2'] }),
    )
    await expect(run(chain, { interpreters, budget: { maxTokens: 3 } })).rejects.toMatchObject({
      _tag: 'BudgetExceeded',
      limit: 'maxTokens',
      path: ['s2'],
    })
  }, 60_000)

  it("fails a step that failed on its worker, after the step's error policy", async () => {
    await workers('failing', 1)
    const { interpreters } = remote('failing')
    const g = pipe(graph('bad'), addStep({ id: 'x', node: failing, onError: retry({ count: 1 }) }))
    const error: unknown = await run(g, { interpreters }).catch((e: unknown) => e)
    expect(error).toMatchObject({ _tag: 'StepFailed', attempts: 2, path: ['x'] })
    expect((error as Error).cause).toMatchObject({
      _tag: 'RemoteStepFailed',
      remoteName: 'RangeError',
      path: ['x'],
    })
    expect((error as Error).message).toContain('no such thing')
  }, 60_000)

  it('re-delivers the step of a killed worker to another one', async () => {
    const [w1, w2] = await workers('killed', 2)
    const { interpreters } = remote('killed')
    const g = pipe(graph('long'), addStep({ id: 'slow', node: timed, input: { ms: 2500 } }))
    const startedFile = join(dir, 'started')
    const before = lines(startedFile).length
    const done = run(g, { interpreters })
    await until(() => lines(startedFile).length > before)
    const victim = Number(lines(startedFile)[before]!.split(' ')[1])
    const other = [w1!, w2!].find((w) => w.pid !== victim)!
    process.kill(victim, 'SIGKILL')
    const { results, trace } = await done
    expect((results.slow as Timed).pid).toBe(other.pid)
    expect(trace.records[0]!.data).toMatchObject({ status: 'completed', attempts: 1 })
  }, 60_000)

  it('applies the error policy when a killed step may not be re-delivered', async () => {
    const [w1, w2] = await workers('stalled', 2, { MAX_STALLED: '0' })
    const { interpreters } = remote('stalled')
    const g = pipe(
      graph('long'),
      addStep({ id: 'slow', node: timed, input: { ms: 2500 }, onError: retry({ count: 1 }) }),
    )
    const startedFile = join(dir, 'started')
    const before = lines(startedFile).length
    const done = run(g, { interpreters })
    await until(() => lines(startedFile).length > before)
    const victim = Number(lines(startedFile)[before]!.split(' ')[1])
    const other = [w1!, w2!].find((w) => w.pid !== victim)!
    process.kill(victim, 'SIGKILL')
    const { results, trace } = await done
    expect((results.slow as Timed).pid).toBe(other.pid)
    expect(trace.records[0]!.data).toMatchObject({ status: 'completed', attempts: 2 })
  }, 60_000)

  it("cancels a run: the step's signal fires on its worker", async () => {
    const [w] = await workers('cancel', 1)
    const { interpreters } = remote('cancel')
    const g = pipe(graph('long'), addStep({ id: 'slow', node: timed, input: { ms: 20_000 } }))
    const startedFile = join(dir, 'started')
    const before = lines(startedFile).length
    const abort = new AbortController()
    const done = run(g, { interpreters, signal: abort.signal })
    await until(() => lines(startedFile).length > before)
    const t0 = Date.now()
    abort.abort('enough')
    await expect(done).rejects.toMatchObject({ _tag: 'Cancelled' })
    await until(() => lines(join(dir, 'aborted')).includes(String(w!.pid)), 5_000)
    expect(Date.now() - t0).toBeLessThan(5_000)
  }, 60_000)

  it('keeps a worker alive when a budget cuts its step short while its progress is still going out', async () => {
    const [w] = await workers('chatty', 1)
    let stderr = ''
    w!.child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    const died = exited(w!, () => stderr)
    died.catch(() => undefined)
    const { interpreters } = remote('chatty')
    const g = pipe(
      graph('g'),
      addStep({ id: 'talk', node: chatty, input: { n: 20_000, ms: 20_000 } }),
    )
    await expect(
      Promise.race([run(g, { interpreters, budget: { maxTokens: 3 } }), died]),
    ).rejects.toMatchObject({ _tag: 'BudgetExceeded', path: ['talk'] })
    // The run's cancel removes the job; when the job has failed by then, the removal succeeds
    // while the step's progress reports are still going out. Done here without the race:
    const queue = new Queue('chatty', { connection: redis.connection })
    try {
      let failed: Job[] = []
      await until(
        () => failed.length > 0,
        5_000,
        async () => {
          failed = await queue.getFailed()
        },
      )
      await Promise.all(failed.map((j) => j.remove()))
    } finally {
      await queue.close()
    }
    // the same worker (concurrency 1) takes the next step, and is still there after it
    const next = pipe(graph('next'), addStep({ id: 'w', node: spell, input: 'ok' }))
    const { results } = await Promise.race([run(next, { interpreters }), died])
    expect(results.w).toBe('OK')
    const again = await Promise.race([run(next, { interpreters }), died])
    expect(again.results.w).toBe('OK')
    expect(w!.child.exitCode).toBeNull()
  }, 60_000)

  it('never starts a waiting step of a cancelled run', async () => {
    await workers('race', 1)
    const { interpreters } = remote('race')
    const startedFile = join(dir, 'started')
    for (let i = 0; i < 12; i++) {
      const g = pipe(
        graph('race'),
        addStep({ id: `slow${i}`, node: timed, input: { ms: 20_000 } }),
        addStep({ id: `waiting${i}`, node: timed, input: { ms: 1 } }),
      )
      const abort = new AbortController()
      const done = run(g, { interpreters, signal: abort.signal })
      await until(() => lines(startedFile).some((l) => l.startsWith(`slow${i} `)))
      abort.abort('enough')
      await expect(done).rejects.toMatchObject({ _tag: 'Cancelled' })
      // one worker, first in first out: once a later step ran, the waiting one was passed
      const after = pipe(graph('after'), addStep({ id: 'w', node: spell, input: 'x' }))
      expect((await run(after, { interpreters })).results.w).toBe('X')
      expect(lines(startedFile).filter((l) => l.startsWith(`waiting${i} `))).toEqual([])
    }
  }, 120_000)

  it('fails a step with NoLiveWorker within the bound once no worker is alive for its queue', async () => {
    const r = remoteInterpreters({
      connection: redis.url,
      queue: 'orphan',
      kinds: ['function'],
      noWorkerTimeoutMs: 1000,
    })
    remotes.push(r)
    const g = pipe(graph('g'), addStep({ id: 'long', node: timed, input: { ms: 20_000 } }))
    let t0 = Date.now()
    let error: unknown = await run(g, { interpreters: r.interpreters }).catch((e: unknown) => e)
    expect(Date.now() - t0).toBeLessThan(3_500)
    expect((error as Error).cause).toMatchObject({
      _tag: 'NoLiveWorker',
      queue: 'orphan',
      timeoutMs: 1000,
    })
    const [w] = await workers('orphan', 1)
    const startedFile = join(dir, 'started')
    const before = lines(startedFile).length
    const done = run(g, { interpreters: r.interpreters }).catch((e: unknown) => e)
    await until(() => lines(startedFile).length > before)
    t0 = Date.now()
    process.kill(w!.pid, 'SIGKILL')
    error = await done
    expect(Date.now() - t0).toBeLessThan(3_500)
    expect(error).toMatchObject({ _tag: 'StepFailed', path: ['long'] })
    expect((error as Error).cause).toMatchObject({ _tag: 'NoLiveWorker', queue: 'orphan' })
  }, 60_000)

  it('stops a step on its worker once it goes past its budget share', async () => {
    await workers('share', 1)
    const shared = remoteInterpreters({
      connection: redis.url,
      queue: 'share',
      kinds: ['function'],
      budgetShare: { maxTimeMs: 300, maxTokens: 2 },
    })
    remotes.push(shared)
    const { interpreters } = shared
    const slow = pipe(graph('slow'), addStep({ id: 's', node: timed, input: { ms: 20_000 } }))
    const t0 = Date.now()
    await expect(run(slow, { interpreters })).rejects.toMatchObject({
      _tag: 'StepFailed',
      cause: { _tag: 'RemoteStepFailed', remoteName: 'TimeoutError' },
    })
    expect(Date.now() - t0).toBeLessThan(5_000)
    const wordy = pipe(graph('wordy'), addStep({ id: 'w', node: spell, input: 'abc' }))
    await expect(run(wordy, { interpreters })).rejects.toMatchObject({
      cause: { _tag: 'RemoteStepFailed', remoteName: 'BudgetExceeded' },
    })
    expect(
      (
        await run(pipe(graph('short'), addStep({ id: 'w', node: spell, input: 'ab' })), {
          interpreters,
        })
      ).results.w,
    ).toBe('AB')
  }, 60_000)

  it('fails with RedisUnreachable within the bounded time when Redis does not answer', async () => {
    const port = await freePort()
    const nowhere = remoteInterpreters({
      connection: { host: '127.0.0.1', port },
      queue: 'nowhere',
      kinds: ['function'],
      connectTimeoutMs: 500,
    })
    remotes.push(nowhere)
    const t0 = Date.now()
    const error: unknown = await run(pipe(graph('g'), addStep({ id: 'x', node: timed })), {
      interpreters: nowhere.interpreters,
    }).catch((e: unknown) => e)
    expect(Date.now() - t0).toBeLessThan(3_000)
    expect(error).toMatchObject({ _tag: 'StepFailed', path: ['x'] })
    expect((error as Error).cause).toMatchObject({
      _tag: 'RedisUnreachable',
      address: `127.0.0.1:${port}`,
      timeoutMs: 500,
    })
    await expect(
      startWorker({
        connection: `redis://127.0.0.1:${port}`,
        queue: 'nowhere',
        connectTimeoutMs: 500,
      }),
    ).rejects.toMatchObject({ _tag: 'RedisUnreachable' })
  }, 20_000)

  it('fails a step that is out with RedisUnreachable when Redis is lost, within the bound', async () => {
    const own = await startRedisServer()
    const w = await spawnWorker(own.url, 'lost', dir)
    const r = remoteInterpreters({
      connection: own.url,
      queue: 'lost',
      kinds: ['function'],
      connectTimeoutMs: 1000,
    })
    remotes.push(r)
    try {
      const before = lines(join(dir, 'started')).length
      const done = run(
        pipe(graph('g'), addStep({ id: 'long', node: timed, input: { ms: 20_000 } })),
        {
          interpreters: r.interpreters,
        },
      ).catch((e: unknown) => e)
      await until(() => lines(join(dir, 'started')).length > before)
      const t0 = Date.now()
      await own.stop()
      const error = await done
      expect(Date.now() - t0).toBeLessThan(5_000)
      expect(error).toMatchObject({ _tag: 'StepFailed', path: ['long'] })
      expect((error as Error).cause).toMatchObject({
        _tag: 'RedisUnreachable',
        address: `127.0.0.1:${own.port}`,
        timeoutMs: 1000,
      })
    } finally {
      w.child.kill('SIGKILL')
    }
  }, 30_000)
})
