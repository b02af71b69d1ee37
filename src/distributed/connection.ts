import { UsageError } from '../errors.js'
import { RedisUnreachable } from './DistError.js'

/**
 * Where Redis is: a `redis://` URL, or host and port (and optionally
 * credentials and a database number).
 *
 * @category distributed
 */
export type RedisConnection =
  | string
  | {
      readonly host?: string
      readonly port?: number
      readonly username?: string
      readonly password?: string
      readonly db?: number
    }

/** ioredis options as BullMQ takes them. @internal */
export interface RedisOptions {
  readonly host: string
  readonly port: number
  readonly username?: string
  readonly password?: string
  readonly db?: number
}

/** The default wait for Redis to answer: 5 s. @internal */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000

/** Options for ioredis from a {@link RedisConnection}, and the address to name in errors. @internal */
export const redisOptions = (
  api: string,
  connection: RedisConnection,
): { readonly options: RedisOptions; readonly address: string } => {
  if (typeof connection === 'string') {
    let url: URL
    try {
      url = new URL(connection)
    } catch {
      throw new UsageError(api, `connection "${connection}" is not a URL`)
    }
    if (url.protocol !== 'redis:') {
      throw new UsageError(api, `connection "${connection}" is not a redis:// URL`)
    }
    const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined
    if (db !== undefined && !Number.isInteger(db)) {
      throw new UsageError(api, `connection "${connection}": the database must be a number`)
    }
    const options: RedisOptions = {
      host: url.hostname || '127.0.0.1',
      port: url.port === '' ? 6379 : Number(url.port),
      ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
      ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
      ...(db === undefined ? {} : { db }),
    }
    return { options, address: `${options.host}:${options.port}` }
  }
  if (typeof connection !== 'object' || (connection as unknown) === null) {
    throw new UsageError(api, 'connection must be a redis:// URL or { host, port }')
  }
  const options: RedisOptions = {
    ...connection,
    host: connection.host ?? '127.0.0.1',
    port: connection.port ?? 6379,
  }
  return { options, address: `${options.host}:${options.port}` }
}

/** Checks a timeout option: a positive number of milliseconds. @internal */
export const requireTimeout = (api: string, name: string, v: unknown, fallback: number): number => {
  if (v === undefined) return fallback
  if (typeof v !== 'number' || !(v > 0)) {
    throw new UsageError(
      api,
      `${name} must be a number of milliseconds > 0, got ${typeof v === 'number' ? v : typeof v}`,
    )
  }
  return v
}

/**
 * `work`, or a {@link RedisUnreachable} when it does not settle within
 * `timeoutMs` (the work itself is not stopped: its owner closes it).
 *
 * @internal
 */
export const within = <A>(work: Promise<A>, address: string, timeoutMs: number): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new RedisUnreachable(address, timeoutMs))
    }, timeoutMs)
    work.then(
      (a) => {
        clearTimeout(timer)
        resolve(a)
      },
      (e: unknown) => {
        clearTimeout(timer)
        reject(new RedisUnreachable(address, timeoutMs, e))
      },
    )
  })

/** The Redis key a cancelled job is marked with, and the channel cancellations go out on. @internal */
export const cancelKey = (prefix: string, queue: string, jobId: string): string =>
  `${prefix}:${queue}:nerve-cancel:${jobId}`

/** @internal */
export const cancelChannel = (prefix: string, queue: string): string =>
  `${prefix}:${queue}:nerve-cancel`
