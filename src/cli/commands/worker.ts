/**
 * `nerve worker --redis URL --queue NAME`: runs the steps a graph run sends
 * to a BullMQ queue (see `nerve-agents/distributed`), with the built-in
 * interpreters (function, graph, bash) and the functions of `--functions
 * MODULE`: every function the module exports, under its export name (a
 * default export that is an object of functions counts too). SIGINT or
 * SIGTERM lets the running steps finish, then leaves. An unhandled
 * rejection (a promise a step's function left unawaited) is one line on
 * stderr, never the end of the worker.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { startWorker } from '../../distributed/index.js'
import type { NodeFunction } from '../../node/index.js'
import { CliError, listening, type GlobalOptions } from '../context.js'

export interface WorkerCommandOptions extends GlobalOptions {
  readonly redis?: string
  readonly queue: string
  readonly functions?: string
  readonly concurrency?: string
}

type Functions = Record<string, NodeFunction>

const functionsIn = (exports: Record<string, unknown>): Functions => {
  const out: Functions = {}
  const take = (o: Record<string, unknown>): void => {
    for (const [name, f] of Object.entries(o))
      if (typeof f === 'function') out[name] = f as NodeFunction
  }
  const d = exports.default
  if (typeof d === 'object' && d !== null) take(d as Record<string, unknown>)
  take(exports)
  delete out.default
  return out
}

/** The functions a module exports, by name; a module that will not load is a `FunctionsUnloadable`. */
export const loadFunctions = async (file: string): Promise<Functions> => {
  let exports: Record<string, unknown>
  try {
    exports = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>
  } catch (e) {
    throw new CliError(
      'FunctionsUnloadable',
      `cannot load ${file}: ${(e as Error).message}`,
      '--functions',
      existsSync(resolve(file)) ? 'invalidInput' : 'notFound',
    )
  }
  const found = functionsIn(exports)
  if (Object.keys(found).length === 0) {
    throw new CliError('NoFunctions', `${file} exports no function`, '--functions', 'invalidInput')
  }
  return found
}

/** A Redis that refuses the connection is said at once, not after the worker's wait for an answer. */
const reachable = async (redis: string): Promise<void> => {
  let url: URL
  try {
    url = new URL(redis)
  } catch {
    throw new CliError(
      'BadOption',
      `--redis takes redis://host:port, got ${redis}`,
      '--redis',
      'invalidInput',
    )
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return
  const host = url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1'
  const port = url.port === '' ? 6379 : Number(url.port)
  if ((await listening(host, port)) === false) {
    throw new CliError(
      'RedisUnreachable',
      `nothing listens at ${host}:${port}: the connection was refused (is redis-server running?)`,
      '--redis',
      'unavailable',
    )
  }
}

export const worker = async (o: WorkerCommandOptions): Promise<void> => {
  const fromEnv = process.env.NERVE_REDIS_URL
  const redis = o.redis ?? (fromEnv === '' ? undefined : fromEnv)
  if (redis === undefined) {
    throw new CliError(
      'NoRedis',
      'name the Redis server: --redis redis://host:port (or NERVE_REDIS_URL)',
      '--redis',
      'invalidInput',
    )
  }
  const concurrency = o.concurrency === undefined ? 1 : Number(o.concurrency)
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new CliError(
      'BadOption',
      `--concurrency takes a positive integer, got ${o.concurrency}`,
      '--concurrency',
      'invalidInput',
    )
  }
  await reachable(redis)
  const functions = o.functions === undefined ? {} : await loadFunctions(o.functions)
  // A promise a step's function left unawaited must not take the other steps down with it.
  const stray = (e: unknown): void => {
    const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e)
    process.stderr.write(`nerve worker: an unhandled rejection (the worker goes on): ${text}\n`)
  }
  process.on('unhandledRejection', stray)
  const w = await startWorker({ connection: redis, queue: o.queue, functions, concurrency })
  const names = Object.keys(functions)
  process.stderr.write(
    `nerve worker: ready on queue ${o.queue} (${redis}), concurrency ${concurrency}, functions: ${names.length === 0 ? 'none' : names.join(', ')}\n`,
  )
  await new Promise<void>((done) => {
    process.once('SIGINT', () => {
      done()
    })
    process.once('SIGTERM', () => {
      done()
    })
  })
  await w.close()
  process.off('unhandledRejection', stray)
  process.stderr.write('nerve worker: stopped\n')
}
