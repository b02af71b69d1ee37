/**
 * A worker process for the distributed tests: `node --import tsx workerProcess.ts URL QUEUE DIR`.
 * Its functions record what they saw under DIR; it prints `ready` once it listens.
 */
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { startWorker } from '../../src/distributed/index.js'
import type { NodeContext } from '../../src/core.js'

const [url, queue, dir] = process.argv.slice(2) as [string, string, string]

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        appendFileSync(join(dir, 'aborted'), `${process.pid}\n`)
        reject(new Error('aborted'))
      },
      { once: true },
    )
  })

const functions = {
  /** Waits `input.ms`, then tells which process ran it and when. */
  timed: async (ctx: NodeContext) => {
    const { ms } = ctx.input as { ms: number }
    const start = Date.now()
    appendFileSync(join(dir, 'started'), `${ctx.stepId} ${process.pid}\n`)
    await sleep(ms, ctx.signal)
    return { pid: process.pid, start, end: Date.now(), step: ctx.stepId }
  },
  /** Emits its input's letters as chunks and reports one token a letter. */
  spell: (ctx: NodeContext) => {
    const word = String(ctx.input)
    for (const letter of word) ctx.emit(letter)
    ctx.reportUsage({ tokens: word.length })
    return word.toUpperCase()
  },
  /** Adds up its upstream. */
  sum: (ctx: NodeContext) =>
    Object.values(ctx.upstream).reduce(
      (a: number, r) => a + (r as { step: string }).step.length,
      0,
    ),
  /** Emits `input.n` chunks, one token each, without waiting for them to go out; then waits `input.ms`. */
  chatty: async (ctx: NodeContext) => {
    const { n, ms } = ctx.input as { n: number; ms: number }
    appendFileSync(join(dir, 'started'), `${ctx.stepId} ${process.pid}\n`)
    for (let i = 0; i < n; i++) {
      ctx.emit(`chunk ${i}`)
      ctx.reportUsage({ tokens: 1 })
    }
    await sleep(ms, ctx.signal)
    return n
  },
  fail: () => {
    appendFileSync(join(dir, 'failed'), 'x\n')
    throw new RangeError('no such thing')
  },
}

const worker = await startWorker({
  connection: url,
  queue,
  functions,
  concurrency: 1,
  lockDuration: 1000,
  stalledInterval: 500,
  maxStalledCount: Number(process.env.MAX_STALLED ?? '1'),
})
process.stdout.write('ready\n')
process.on('SIGTERM', () => {
  void worker.close().then(() => process.exit(0))
})
