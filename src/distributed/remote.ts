import { randomUUID } from 'node:crypto'
import { Queue, QueueEvents } from 'bullmq'
import { Redis } from 'ioredis'
import { UsageError } from '../errors.js'
import {
  interpreters as registryOf,
  type Interpreter,
  type InterpreterRegistry,
  type Node,
  type NodeContext,
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
import { NoLiveWorker, RedisUnreachable, RemoteStepFailed } from './DistError.js'
import {
  decodeOrThrow,
  describeNode,
  requireJson,
  StepFailureCodec,
  StepProgressCodec,
  StepReturnCodec,
  type BudgetShare,
  type StepJob,
} from './wire.js'

/**
 * What {@link remoteInterpreters} needs: where Redis is, the queue, and the
 * node kinds whose steps run on workers.
 *
 * @category distributed
 */
export interface RemoteOptions {
  readonly connection: RedisConnection
  /** The BullMQ queue name the workers listen on. */
  readonly queue: string
  /** Node kinds sent to workers, e.g. `['function', 'bash']`. */
  readonly kinds: readonly string[]
  /** Local interpreters for the other kinds (a kind in both runs remotely). */
  readonly local?: InterpreterRegistry
  /** The name a worker knows a function node's function by. Default: the node's id. */
  readonly functionName?: (node: Node) => string
  /** The budget share each remote step gets (the worker stops a step that goes past it). */
  readonly budgetShare?: BudgetShare
  /**
   * How long to wait for Redis before failing the step with
   * `RedisUnreachable`: to connect, and once connected, for the connection
   * to come back when it is lost while steps are out. Default 5000 ms.
   */
  readonly connectTimeoutMs?: number
  /**
   * How long a step waits while no worker listens on the queue (none was
   * started, or the last one died) before it fails with `NoLiveWorker`.
   * Checked about every second (a quarter of the bound when that is
   * shorter), by the client names BullMQ's workers give their connections
   * (`CLIENT LIST`); on a Redis without `CLIENT SETNAME`, pass `Infinity`
   * to turn the check off. Default 10000 ms.
   */
  readonly noWorkerTimeoutMs?: number
  /** BullMQ's key prefix. Default `bull`. */
  readonly prefix?: string
}

/** The default of {@link RemoteOptions.noWorkerTimeoutMs}. @internal */
export const DEFAULT_NO_WORKER_TIMEOUT_MS = 10_000

/**
 * An interpreter registry whose chosen kinds run on workers, and the Redis
 * connections behind it. Close it when the runs are over.
 *
 * @category distributed
 */
export interface RemoteInterpreters {
  readonly interpreters: InterpreterRegistry
  close(): Promise<void>
}

interface Pending {
  readonly path: readonly string[]
  readonly onProgress: (data: unknown) => void
  readonly onCompleted: (value: unknown) => void
  readonly onFailed: (reason: string) => void
  /** Redis was lost for longer than the bound: the step fails with this error. */
  readonly onLost: (error: Error) => void
}

interface Connected {
  readonly queue: Queue
  readonly events: QueueEvents
  readonly publisher: Redis
}

const quietly = async (work: () => Promise<unknown>): Promise<void> => {
  try {
    await work()
  } catch {
    // closing what never connected
  }
}

/** Drops the connections at once (they are lost: a graceful close would wait for them). */
const dropAll = async (c: Connected): Promise<void> => {
  c.publisher.disconnect()
  await Promise.all([quietly(() => c.queue.disconnect()), quietly(() => c.events.disconnect())])
}

const failureOf = (reason: string): { readonly name: string; readonly message: string } => {
  try {
    return decodeOrThrow(StepFailureCodec, 'a failed reason', JSON.parse(reason))
  } catch {
    return { name: 'Error', message: reason }
  }
}

/**
 * Interpreters that send the steps of the chosen node kinds to workers as
 * BullMQ jobs (see `startWorker`) and turn what comes back — chunks, usage,
 * the result or the failure — into the same step as a local run: the
 * runtime does not know where a step ran, so its trace, events, retries,
 * timeouts, `maxParallel` and budget are those of a local run.
 *
 * What crosses the wire is checked before sending (JSON only: a function
 * node goes by name) and decoded on both sides. Aborting the step's signal
 * cancels the job: a waiting job is removed, a running one's signal fires
 * on its worker. When Redis does not answer within `connectTimeoutMs` the
 * step fails with `RedisUnreachable`; when no worker listens on the queue
 * for `noWorkerTimeoutMs`, the steps out fail with `NoLiveWorker`.
 *
 * @category distributed
 */
export const remoteInterpreters = (options: RemoteOptions): RemoteInterpreters => {
  const api = 'remoteInterpreters'
  const { options: redis, address } = redisOptions(api, options.connection)
  if (typeof options.queue !== 'string' || options.queue === '') {
    throw new UsageError(api, 'queue must be a non-empty name')
  }
  if (!Array.isArray(options.kinds) || options.kinds.length === 0) {
    throw new UsageError(api, 'kinds must list at least one node kind')
  }
  const timeoutMs = requireTimeout(
    api,
    'connectTimeoutMs',
    options.connectTimeoutMs,
    DEFAULT_CONNECT_TIMEOUT_MS,
  )
  const noWorkerMs = requireTimeout(
    api,
    'noWorkerTimeoutMs',
    options.noWorkerTimeoutMs,
    DEFAULT_NO_WORKER_TIMEOUT_MS,
  )
  const prefix = options.prefix ?? 'bull'
  const functionName = options.functionName ?? ((n: Node) => n.id)
  const pending = new Map<string, Pending>()
  let connecting: Promise<Connected> | undefined
  let closed = false

  const connect = (): Promise<Connected> => {
    const connection = { ...redis, maxRetriesPerRequest: null }
    const queue = new Queue(options.queue, { connection, prefix })
    const publisher = new Redis({ ...redis, maxRetriesPerRequest: 1, lazyConnect: true })
    const ignore = (): void => undefined
    queue.on('error', ignore)
    publisher.on('error', ignore)
    let events: QueueEvents | undefined
    const listen = async (): Promise<QueueEvents> => {
      await Promise.all([queue.waitUntilReady(), publisher.connect()])
      // Read events from the stream's current end: jobs added from now on cannot finish unseen.
      const last = await publisher.xrevrange(
        `${prefix}:${options.queue}:events`,
        '+',
        '-',
        'COUNT',
        1,
      )
      const e = new QueueEvents(options.queue, {
        connection,
        prefix,
        lastEventId: last[0]?.[0] ?? '0-0',
      })
      events = e
      e.on('error', ignore)
      e.on('progress', ({ jobId, data }) => pending.get(jobId)?.onProgress(data))
      e.on('completed', ({ jobId, returnvalue }) => pending.get(jobId)?.onCompleted(returnvalue))
      e.on('failed', ({ jobId, failedReason }) => pending.get(jobId)?.onFailed(failedReason))
      await e.waitUntilReady()
      return e
    }
    const ready = listen()
    return within(ready, address, timeoutMs).then(
      (e) => {
        watch(publisher)
        return { queue, events: e, publisher }
      },
      (e: unknown) => {
        connecting = undefined
        // close() would wait for the connection it never got: drop the sockets instead
        void quietly(() => queue.disconnect())
        void quietly(async () => events?.disconnect())
        publisher.disconnect()
        throw e
      },
    )
  }

  /**
   * Fails the steps that are out when the connection is lost for longer
   * than `timeoutMs` (ioredis keeps reconnecting meanwhile; a step that
   * ends before the bound is not touched). The next step connects anew.
   */
  const watch = (client: Redis): void => {
    let lost: NodeJS.Timeout | undefined
    client.on('close', () => {
      if (closed || lost !== undefined) return
      lost = setTimeout(() => {
        const error = new RedisUnreachable(address, timeoutMs)
        for (const p of [...pending.values()]) p.onLost(error)
        const c = connecting
        connecting = undefined
        void c?.then((old) => dropAll(old)).catch(() => undefined)
      }, timeoutMs)
      lost.unref()
    })
    client.on('ready', () => {
      clearTimeout(lost)
      lost = undefined
    })
  }

  /**
   * While steps are out, asks Redis which workers listen on the queue (their
   * connections, by the name BullMQ gives them); when none has for
   * `noWorkerMs`, the steps out fail with {@link NoLiveWorker} and their
   * jobs are withdrawn. A failed look (Redis lost) counts as neither.
   */
  let census: NodeJS.Timeout | undefined
  const watchWorkers = (c: Connected): void => {
    if (census !== undefined) return
    let seen = Date.now()
    let asking = false
    census = setInterval(
      () => {
        if (pending.size === 0) {
          clearInterval(census)
          census = undefined
          return
        }
        if (asking) return
        asking = true
        c.queue.getWorkersCount().then(
          (n) => {
            asking = false
            if (n > 0) seen = Date.now()
            else if (Date.now() - seen >= noWorkerMs) {
              for (const [jobId, p] of [...pending]) {
                p.onLost(new NoLiveWorker(options.queue, p.path, noWorkerMs))
                void cancel(c, jobId)
              }
            }
          },
          () => {
            asking = false
          },
        )
      },
      Math.min(1000, Math.max(50, noWorkerMs / 4)),
    )
    census.unref()
  }

  const cancel = async (c: Connected, jobId: string): Promise<void> => {
    await quietly(() => c.publisher.set(cancelKey(prefix, options.queue, jobId), '1', 'EX', 3600))
    await quietly(() => c.publisher.publish(cancelChannel(prefix, options.queue), jobId))
    await quietly(() => c.queue.remove(jobId))
  }

  const send = async (node: Node, ctx: NodeContext): Promise<unknown> => {
    if (closed) throw new UsageError(api, 'the remote interpreters are closed')
    const data: StepJob = {
      runId: ctx.runId,
      runStartedAt: ctx.runStartedAt,
      stepId: ctx.stepId,
      path: [...ctx.path],
      attempt: ctx.attempt,
      node: describeNode(node, functionName),
      input: ctx.input,
      upstream: ctx.upstream,
      ...(ctx.parser === undefined ? {} : { parser: ctx.parser }),
      ...(options.budgetShare === undefined ? {} : { budget: options.budgetShare }),
    }
    requireJson(api, `the input of step "${ctx.path.join('/')}"`, data.input)
    requireJson(api, `the upstream of step "${ctx.path.join('/')}"`, data.upstream)
    ctx.signal.throwIfAborted()
    const c = await (connecting ??= connect())
    ctx.signal.throwIfAborted()
    const jobId = randomUUID()
    let lastSeq = -1
    const done = new Promise<unknown>((resolve, reject) => {
      const settle = (): void => {
        pending.delete(jobId)
        ctx.signal.removeEventListener('abort', onAbort)
      }
      const onAbort = (): void => {
        settle()
        void cancel(c, jobId)
        reject(
          ctx.signal.reason instanceof Error
            ? ctx.signal.reason
            : new Error(String(ctx.signal.reason)),
        )
      }
      ctx.signal.addEventListener('abort', onAbort, { once: true })
      pending.set(jobId, {
        path: ctx.path,
        onProgress: (raw) => {
          try {
            const p = decodeOrThrow(StepProgressCodec, 'a step progress message', raw)
            if (p.seq <= lastSeq) return // a re-delivered job reports again
            lastSeq = p.seq
            if (p.type === 'chunk') ctx.emit(p.chunk)
            else ctx.reportUsage(p.usage)
          } catch (e) {
            settle()
            void cancel(c, jobId)
            reject(e as Error) // eslint-disable-line @typescript-eslint/no-unnecessary-type-assertion
          }
        },
        onCompleted: (raw) => {
          settle()
          try {
            resolve(decodeOrThrow(StepReturnCodec, 'a step result', raw).result)
          } catch (e) {
            reject(e as Error) // eslint-disable-line @typescript-eslint/no-unnecessary-type-assertion
          }
        },
        onFailed: (reason) => {
          settle()
          const f = failureOf(reason)
          reject(new RemoteStepFailed(ctx.path, jobId, f.name, f.message))
        },
        onLost: (error) => {
          settle()
          reject(error)
        },
      })
    })
    try {
      await within(
        c.queue.add(node.kind, data, {
          jobId,
          attempts: 1,
          removeOnComplete: true,
          removeOnFail: 1000,
        }),
        address,
        timeoutMs,
      )
    } catch (e) {
      pending.delete(jobId)
      throw e
    }
    watchWorkers(c)
    return done
  }

  const remote = (kind: string): Interpreter =>
    Object.freeze({ kind, execute: (node: Node, ctx: NodeContext) => send(node, ctx) })
  const kinds = new Set(options.kinds)
  const locals = [...(options.local?.values() ?? [])].filter((i) => !kinds.has(i.kind))
  return Object.freeze({
    interpreters: registryOf(...locals, ...[...kinds].map(remote)),
    async close() {
      closed = true
      clearInterval(census)
      census = undefined
      const c = connecting
      connecting = undefined
      if (c === undefined) return
      let connected: Connected
      try {
        connected = await c
      } catch {
        return
      }
      await Promise.all([
        connected.queue.close(),
        connected.events.close(),
        quietly(() => connected.publisher.quit()),
      ])
    },
  })
}
