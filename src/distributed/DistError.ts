import { taggedError } from '../errors.js'
import type * as t from 'io-ts'
import { errorPath, expectedOf } from '../codec/index.js'

/**
 * Redis did not answer within the bounded time: the executor could not
 * enqueue a step, or a worker could not start. `address` names the server
 * tried, `timeoutMs` how long it waited.
 *
 * @category distributed
 */
export class RedisUnreachable extends taggedError('RedisUnreachable', 'unavailable')<{
  readonly address: string
  readonly timeoutMs: number
}> {
  constructor(address: string, timeoutMs: number, cause?: unknown) {
    super(
      `Redis at ${address} did not answer within ${timeoutMs} ms`,
      { address, timeoutMs },
      { cause },
    )
  }
}

/**
 * No worker listened on `queue` for `timeoutMs` while a step waited for
 * one (none was started, or the last one died): the step fails instead of
 * waiting for ever, and its job is withdrawn.
 *
 * @category distributed
 */
export class NoLiveWorker extends taggedError('NoLiveWorker', 'unavailable')<{
  readonly queue: string
  readonly path: readonly string[]
  readonly timeoutMs: number
}> {
  constructor(queue: string, path: readonly string[], timeoutMs: number) {
    super(`step "${path.join('/')}": no worker listened on queue "${queue}" for ${timeoutMs} ms`, {
      queue,
      path: Object.freeze([...path]),
      timeoutMs,
    })
  }
}

/**
 * A step sent to a worker failed there (its interpreter threw, the worker
 * knew no interpreter or function for it, or the job stalled more often than
 * allowed). `path` names the step, `jobId` the BullMQ job, `remoteName` the
 * name of the error on the worker.
 *
 * @category distributed
 */
export class RemoteStepFailed extends taggedError('RemoteStepFailed', 'failed')<{
  readonly path: readonly string[]
  readonly jobId: string
  readonly remoteName: string
}> {
  constructor(path: readonly string[], jobId: string, remoteName: string, message: string) {
    super(`step "${path.join('/')}" failed on a worker (job ${jobId}): ${message}`, {
      path: Object.freeze([...path]),
      jobId,
      remoteName,
    })
  }
}

/**
 * A message read from Redis did not decode: `path` is a JSON pointer into
 * the message, `problems` what did not match there.
 *
 * @category distributed
 */
export class WireDecodeError extends taggedError('WireDecodeError', 'failed')<{
  readonly what: string
  readonly problems: readonly { readonly path: string; readonly expected: string }[]
}> {
  constructor(
    what: string,
    problems: readonly { readonly path: string; readonly expected: string }[],
  ) {
    const first = problems[0]
    super(
      `${what} does not decode` +
        (first === undefined ? '' : `: at ${first.path || '/'} expected ${first.expected}`),
      { what, problems: Object.freeze(problems.map((p) => Object.freeze({ ...p }))) },
    )
  }
}

/** The problems of an io-ts decode as JSON pointers. @internal */
export const problemsOf = (
  errors: t.Errors,
): { readonly path: string; readonly expected: string }[] =>
  errors.map((e) => ({ path: errorPath(e), expected: expectedOf(e) }))
