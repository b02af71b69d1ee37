import { Worker, type Job } from 'bullmq'
import { Redis } from 'ioredis'
import { taggedError, UsageError } from '../errors.js'
import { defaultInterpreters } from '../interpreters/index.js'
import { MissingInterpreter, UnknownLinkHandle } from '../runtime/index.js'
import {
  fn,
  makeNode,
  nodeRegistry,
  type InterpreterRegistry,
  type Node,
  type NodeContext,
  type NodeFunction,
  type UsageReport,
} from '../node/index.js'
import {
  cancelChannel,
  cancelKey,
  DEFAULT_CONNECT_TIMEOUT_MS,
  redisOptions,
  requireTimeout,
  within,
  type RedisConnection,
} from './connection.js'
import { decodeOrThrow, requireJson, StepJobCodec, type BudgetShare, type StepJob } from './wire.js'

/**
 * What {@link startWorker} needs: where Redis is, the queue, and what it
 * can run — its own interpreters and the functions function nodes name.
 *
 * @category distributed
 */
export interface WorkerOptions {
  readonly connection: RedisConnection
  readonly queue: string
  /** Default: `defaultInterpreters` (function, graph, bash). */
  readonly interpreters?: InterpreterRegistry
  /** The functions function nodes are sent by, under the names the executor uses. */
  readonly functions?: Readonly<Record<string, NodeFunction>>
  /** Steps run at once by this worker. Default 1. */
  readonly concurrency?: number
  /** How long a worker holds a job without renewing its lock before it counts as stalled. Default 30000 ms. */
  readonly lockDuration?: number
  /** How often stalled jobs are looked for. Default 30000 ms. */
  readonly stalledInterval?: number
  /** How many times a stalled step is re-delivered before it fails. Default 1. */
  readonly maxStalledCount?: number
  /** How long to wait for Redis at start. Default 5000 ms. */
  readonly connectTimeoutMs?: number
  /** BullMQ's key prefix. Default `bull`. */
  readonly prefix?: string
}

/**
 * A running worker. `close` lets the steps it runs finish (or, with
 * `force`, abandons them to be re-delivered) and disconnects.
 *
 * @category distributed
 */
export interface NerveWorker {
  readonly queue: string
  close(force?: boolean): Promise<void>
}

/**
 * A step's node calls a function the worker was not given (`functions` of
 * `startWorker`).
 *
 * @category distributed
 */
export class UnknownFunction extends taggedError('UnknownFunction', 'notFound')<{
  readonly functionName: string
}> {
  constructor(functionName: string) {
    super(`this worker has no function named "${functionName}"`, { functionName })
  }
}

/** How a step's failure goes back through BullMQ: its message is the `{ name, message }` JSON the executor reads. */
class JobFailure extends taggedError('JobFailure', 'failed') {
  constructor(name: string, message: string) {
    super(JSON.stringify({ name, message }))
  }
}

class StepCancelled extends taggedError('Cancelled', 'cancelled') {}

class OverBudgetShare extends taggedError('BudgetExceeded', 'failed') {}

const nodeOf = (job: StepJob, functions: Readonly<Record<string, NodeFunction>>): Node => {
  const d = job.node
  if (d.kind === 'function') {
    const name = d.function ?? d.id
    const f = Object.hasOwn(functions, name) ? functions[name] : undefined
    if (f === undefined) throw new UnknownFunction(name)
    return fn(d.id, f, { metadata: d.metadata })
  }
  return makeNode(d as unknown as Node, 'startWorker')
}

const overShare = (share: BudgetShare, used: Required<UsageReport>): string | undefined =>
  share.maxTokens !== undefined && used.tokens > share.maxTokens
    ? `maxTokens ${share.maxTokens}`
    : share.maxApiCalls !== undefined && used.apiCalls > share.maxApiCalls
      ? `maxApiCalls ${share.maxApiCalls}`
      : share.maxCost !== undefined && used.cost > share.maxCost
        ? `maxCost ${share.maxCost}`
        : undefined

const aborted = (signal: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    const fail = (): void => {
      reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)))
    }
    if (signal.aborted) fail()
    else signal.addEventListener('abort', fail, { once: true })
  })

const runStep = async (
  job: Job,
  bullSignal: AbortSignal | undefined,
  registry: InterpreterRegistry,
  functions: Readonly<Record<string, NodeFunction>>,
  isCancelled: (job: Job) => boolean | Promise<boolean>,
): Promise<{ readonly result: unknown }> => {
  const data = decodeOrThrow(StepJobCodec, `job ${job.id ?? ''}`, job.data)
  const jobId = job.id ?? ''
  if (await isCancelled(job)) throw new StepCancelled(`job ${jobId} was cancelled`)
  const node = nodeOf(data, functions)
  const interpreter = registry.get(node.kind)
  if (interpreter === undefined) {
    throw new MissingInterpreter(data.path, node.kind, 'this worker has no interpreter')
  }
  // One controller for the step: BullMQ's cancel and the time share abort it
  // (forwarded by hand: AbortSignal.any costs more than the rest of a job).
  const own = new AbortController()
  const signal = own.signal
  const forward = (): void => {
    own.abort(bullSignal?.reason)
  }
  if (bullSignal?.aborted === true) forward()
  else bullSignal?.addEventListener('abort', forward, { once: true })
  const share = data.budget ?? {}
  const timer =
    share.maxTimeMs === undefined
      ? undefined
      : setTimeout(() => {
          own.abort(new DOMException('the step went past its time share', 'TimeoutError'))
        }, share.maxTimeMs)
  // Progress goes out in order, one report after the other. The chain never rejects: a step
  // cut short leaves without waiting for it, and its job may be gone (removed by the run's
  // cancel) before the last reports are out — a rejection nobody awaits would end the worker.
  // The first failure stops the reports; a step that completes fails with it.
  let seq = 0
  let lost: unknown
  let reported: Promise<void> = Promise.resolve()
  const report = (message: object): void => {
    const next = { ...message, seq: seq++ }
    reported = reported
      .then(async () => {
        if (lost === undefined) await job.updateProgress(next)
      })
      .catch((e: unknown) => {
        lost ??= e
      })
  }
  const used = { tokens: 0, apiCalls: 0, cost: 0 }
  const ctx: NodeContext = {
    input: data.input,
    upstream: data.upstream,
    signal,
    runId: data.runId,
    runStartedAt: data.runStartedAt,
    stepId: data.stepId,
    path: data.path,
    attempt: data.attempt,
    ...(data.parser === undefined ? {} : { parser: data.parser }),
    session: nodeRegistry(),
    interpreters: registry,
    reportUsage(usage) {
      used.tokens += usage.tokens ?? 0
      used.apiCalls += usage.apiCalls ?? 0
      used.cost += usage.cost ?? 0
      report({ type: 'usage', usage })
      const over = overShare(share, used)
      if (over !== undefined)
        own.abort(new OverBudgetShare(`the step went past its budget share: ${over}`))
    },
    emit(chunk) {
      requireJson('emit', 'a chunk', chunk)
      report({ type: 'chunk', chunk })
    },
    // Links are not sent to a worker: a step run there has none (an agent, only its own tools).
    resolveLinks: (handle) => Promise.reject(new UnknownLinkHandle(data.path, handle)),
  }
  const work = async (): Promise<unknown> => {
    if (interpreter.executeStream !== undefined) {
      const it = interpreter.executeStream(node, ctx)[Symbol.asyncIterator]()
      for (;;) {
        const r = await it.next()
        if (r.done === true) return r.value
        ctx.emit(r.value)
      }
    }
    if (interpreter.execute !== undefined) return await interpreter.execute(node, ctx)
    throw new MissingInterpreter(data.path, node.kind, 'its interpreter cannot execute')
  }
  try {
    const result = await Promise.race([work(), aborted(signal)])
    requireJson('startWorker', `the result of step "${data.path.join('/')}"`, result)
    await reported
    if (lost !== undefined) throw lost instanceof Error ? lost : new Error(JSON.stringify(lost))
    return { result }
  } finally {
    clearTimeout(timer)
    bullSignal?.removeEventListener('abort', forward)
  }
}

/**
 * Starts a worker that runs the steps `remoteInterpreters` sends to `queue`,
 * with its own interpreters and named functions. Each job is decoded, its
 * node rebuilt (a function node from `functions` by name), run with a
 * context whose chunks and usage go back as the job's progress, and its
 * result returned as the job's. A cancelled job's signal fires here. A
 * worker that dies mid-step leaves its job to BullMQ's stalled-job check,
 * which gives it to another worker (`maxStalledCount` times, then it fails).
 *
 * Rejects with `RedisUnreachable` when Redis does not answer within
 * `connectTimeoutMs`.
 *
 * @category distributed
 */
export const startWorker = async (options: WorkerOptions): Promise<NerveWorker> => {
  const api = 'startWorker'
  const { options: redis, address } = redisOptions(api, options.connection)
  if (typeof options.queue !== 'string' || options.queue === '') {
    throw new UsageError(api, 'queue must be a non-empty name')
  }
  const timeoutMs = requireTimeout(
    api,
    'connectTimeoutMs',
    options.connectTimeoutMs,
    DEFAULT_CONNECT_TIMEOUT_MS,
  )
  const prefix = options.prefix ?? 'bull'
  const registry = options.interpreters ?? defaultInterpreters
  const functions = options.functions ?? {}
  const subscriber = new Redis({ ...redis, maxRetriesPerRequest: 1, lazyConnect: true })
  const ignore = (): void => undefined
  subscriber.on('error', ignore)
  let worker: Worker | undefined
  const checker = new Redis({ ...redis, maxRetriesPerRequest: 1, lazyConnect: true })
  checker.on('error', ignore)
  // Cancels heard since this worker subscribed (the notice of a running job's cancel), and
  // before every step the cancel mark in Redis: the notice of a waiting job's cancel can
  // arrive after a freed slot took the job, but the run sets the mark before it sends the
  // notice and before it lets go of the step that freed the slot.
  const heard = new Set<string>()
  const cancelledBefore = async (job: Job): Promise<boolean> =>
    heard.has(job.id ?? '') ||
    (await checker.get(cancelKey(prefix, options.queue, job.id ?? ''))) !== null
  subscriber.on('message', (_channel: string, jobId: string) => {
    heard.add(jobId)
    if (heard.size > 10_000) heard.delete(heard.values().next().value!)
    worker?.cancelJob(jobId, 'cancelled by the run')
  })
  try {
    await within(Promise.all([subscriber.connect(), checker.connect()]), address, timeoutMs)
    await within(subscriber.subscribe(cancelChannel(prefix, options.queue)), address, timeoutMs)
    worker = new Worker(
      options.queue,
      (job, _token, signal) =>
        runStep(job, signal, registry, functions, cancelledBefore).catch((e: unknown) => {
          const name = e instanceof Error ? e.name : 'Error'
          const message = e instanceof Error ? e.message : String(e)
          throw new JobFailure(name, message)
        }),
      {
        connection: { ...redis, maxRetriesPerRequest: null },
        prefix,
        concurrency: options.concurrency ?? 1,
        ...(options.lockDuration === undefined ? {} : { lockDuration: options.lockDuration }),
        ...(options.stalledInterval === undefined
          ? {}
          : { stalledInterval: options.stalledInterval }),
        ...(options.maxStalledCount === undefined
          ? {}
          : { maxStalledCount: options.maxStalledCount }),
      },
    )
    worker.on('error', ignore)
    await within(worker.waitUntilReady(), address, timeoutMs)
  } catch (e) {
    await Promise.all([worker?.close(true).catch(ignore)])
    subscriber.disconnect()
    checker.disconnect()
    throw e
  }
  const w = worker
  return Object.freeze({
    queue: options.queue,
    async close(force = false) {
      await w.close(force)
      subscriber.disconnect()
      checker.disconnect()
    },
  })
}
