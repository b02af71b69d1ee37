/**
 * Scale-out benchmarks, against a redis-server of their own (a free
 * loopback port, a temp dir, nothing saved). Workers run in this process,
 * each on its own Redis connections, so the figures are the cost of the
 * protocol, not of process scheduling.
 *
 * `dist.step`: one graph step sent to a worker and its result back, through
 * `remoteInterpreters` and `startWorker` (the step's job decoded on both
 * sides, its node rebuilt, its cancel flag checked), against a raw BullMQ
 * round trip in the same run: `queue.add`, a raw `Worker` returning the
 * job's data, the `completed` event (one listener, jobs by id, as
 * `remoteInterpreters` waits). `dist.fanout`: 1000 independent
 * steps over 4 workers (concurrency 8 each), steps/s, against 1000 raw
 * BullMQ jobs over 4 raw workers.
 */
import { randomUUID } from 'node:crypto'
import { Queue, QueueEvents, Worker } from 'bullmq'
import { pipe } from 'fp-ts/lib/function.js'
import { remoteInterpreters, startWorker, type NerveWorker } from '../src/distributed/index.js'
import { addStep, fn, graph, run, type Graph } from '../src/index.js'
import { hasRedisServer, startRedisServer } from '../test/distributed/redisServer.js'
import { interleaveAsync, type Benchmark, type Result } from './harness.js'

const STEPS = 50
const FANOUT = 1000
const WORKERS = 4
const CONCURRENCY = 8

const echo = fn('echo', () => {
  throw new Error('echo runs on a worker')
})
const oneStep = pipe(graph('one'), addStep({ id: 'x', node: echo, input: { n: 1 } }))
const fanout = (): Graph => {
  let g = graph('fanout', { maxParallel: WORKERS * CONCURRENCY })
  for (let i = 0; i < FANOUT; i++) g = addStep({ id: `s${i}`, node: echo, input: { n: i } })(g)
  return g
}

const nowUs = (): number => Number(process.hrtime.bigint()) / 1e3

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'dist.step dist.fanout',
    run: async ({ rounds, log }): Promise<readonly Result[]> => {
      if (!hasRedisServer()) {
        throw new Error('redis-server is not installed (not on PATH): apt-get install redis-server')
      }
      const redis = await startRedisServer()
      const connection = { ...redis.connection, maxRetriesPerRequest: null }
      const functions = { echo: (ctx: { input: unknown }) => ctx.input }
      const ours: NerveWorker[] = []
      const raw: Worker[] = []
      const remote = remoteInterpreters({
        connection: redis.url,
        queue: 'ours',
        kinds: ['function'],
      })
      const queue = new Queue('raw', { connection })
      const events = new QueueEvents('raw', { connection })
      try {
        for (let i = 0; i < WORKERS; i++) {
          ours.push(
            await startWorker({
              connection: redis.url,
              queue: 'ours',
              functions,
              concurrency: CONCURRENCY,
            }),
          )
          raw.push(
            new Worker('raw', (job) => Promise.resolve(job.data as unknown), {
              connection,
              concurrency: CONCURRENCY,
            }),
          )
        }
        await Promise.all([...raw.map((w) => w.waitUntilReady()), events.waitUntilReady()])
        const viaNerve = async (g: Graph): Promise<void> => {
          await run(g, { interpreters: remote.interpreters })
        }
        // The baseline waits the way remoteInterpreters does: one listener, jobs by id.
        const waiting = new Map<string, () => void>()
        events.on('completed', ({ jobId }) => {
          waiting.get(jobId)?.()
          waiting.delete(jobId)
        })
        const viaBullmq = (n: number): Promise<unknown> =>
          Promise.all(
            Array.from({ length: n }, async (_, i) => {
              const jobId = randomUUID()
              const done = new Promise<void>((resolve) => waiting.set(jobId, resolve))
              await queue.add('echo', { n: i }, { jobId, removeOnComplete: true })
              await done
            }),
          )

        log('dist.step: one step at a time')
        const step = await interleaveAsync({
          rounds: rounds ?? 11,
          warmup: 2,
          ours: async () => {
            const t0 = nowUs()
            for (let i = 0; i < STEPS; i++) await viaNerve(oneStep)
            return { us: (nowUs() - t0) / STEPS }
          },
          baseline: async () => {
            const t0 = nowUs()
            for (let i = 0; i < STEPS; i++) await viaBullmq(1)
            return { us: (nowUs() - t0) / STEPS }
          },
        })
        log('dist.fanout: 1000 steps over 4 workers')
        const big = fanout()
        const spread = await interleaveAsync({
          rounds: rounds ?? 5,
          warmup: 1,
          ours: async () => {
            const t0 = nowUs()
            await viaNerve(big)
            return { perS: FANOUT / ((nowUs() - t0) / 1e6) }
          },
          baseline: async () => {
            const t0 = nowUs()
            await viaBullmq(FANOUT)
            return { perS: FANOUT / ((nowUs() - t0) / 1e6) }
          },
        })
        return [
          {
            name: 'dist.step',
            unit: 'µs/step',
            median: step.ours.us,
            baseline: 'raw BullMQ round trip',
            baselineMedian: step.baseline.us,
            target: { ratio: 1.5 },
          },
          {
            name: 'dist.fanout',
            unit: 'steps/s',
            median: spread.ours.perS,
            baseline: 'raw BullMQ, 4 workers',
            baselineMedian: spread.baseline.perS,
          },
        ]
      } finally {
        await remote.close()
        await Promise.all([...ours.map((w) => w.close()), ...raw.map((w) => w.close())])
        await Promise.all([queue.close(), events.close()])
        await redis.stop()
      }
    },
  },
]
