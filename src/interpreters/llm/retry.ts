import { UsageError } from '../../errors.js'
import { systemClock, type Clock } from '../../runtime/Clock.js'
import type { CallOptions, ModelRequest, ModelResponse, Provider } from './Provider.js'
import { ProviderError, ProviderHttpError } from './ProviderError.js'

/**
 * How the agent loop retries a failed model call: up to `maxRetries` more
 * times when the error is retryable (429, 5xx, timeouts, broken
 * connections), waiting the server's `Retry-After` when it sent one, else
 * `baseDelayMs · 2^(retry − 1)`, never more than `maxDelayMs`. A server
 * that asks to wait longer than `maxDelayMs` is not retried: its error is
 * thrown at once, so no call waits unboundedly.
 *
 * @category agent
 */
export interface ModelRetryOptions {
  /** Default: 3. */
  readonly maxRetries?: number
  /** Default: 500. */
  readonly baseDelayMs?: number
  /** Default: 30 000. */
  readonly maxDelayMs?: number
}

/**
 * What the loop reports before it waits to retry a call.
 *
 * @category agent
 */
export interface RetryNotice {
  readonly retry: number
  readonly delayMs: number
  readonly error: ProviderError
}

const count = (api: string, what: string, v: unknown, fallback: number): number => {
  if (v === undefined) return fallback
  if (typeof v !== 'number' || !(v >= 0) || v === Infinity) {
    throw new UsageError(
      api,
      `retry.${what} must be a finite number ≥ 0, got ${typeof v === 'number' ? v : typeof v}`,
    )
  }
  return v
}

/**
 * The delay before retry number `retry` (1-based) after `error`, or
 * undefined when the error is not to be retried.
 *
 * @internal
 */
export const retryDelay = (
  retry: number,
  error: unknown,
  options: ModelRetryOptions = {},
): number | undefined => {
  const maxRetries = count('retry', 'maxRetries', options.maxRetries, 3)
  const base = count('retry', 'baseDelayMs', options.baseDelayMs, 500)
  const max = count('retry', 'maxDelayMs', options.maxDelayMs, 30_000)
  if (!(error instanceof ProviderError) || !error.retryable || retry > maxRetries) return undefined
  const asked = error instanceof ProviderHttpError ? error.retryAfterMs : undefined
  if (asked !== undefined) return asked <= max ? asked : undefined
  return Math.min(max, base * 2 ** (retry - 1))
}

/**
 * Retries a provider call that failed with `first`, as
 * {@link ModelRetryOptions} says: the loop a call enters only after a
 * failure, so one that succeeds at once costs nothing more. The signal cuts a
 * call or a wait short at once: it rejects with the signal's reason.
 *
 * @internal
 */
export const retryModelCall = async (
  first: unknown,
  provider: Provider,
  request: ModelRequest,
  call: CallOptions,
  options: {
    readonly retry?: ModelRetryOptions | undefined
    readonly clock?: Pick<Clock, 'sleep'> | undefined
    readonly onRetry?: ((notice: RetryNotice) => void) | undefined
  },
): Promise<ModelResponse> => {
  const clock = options.clock ?? systemClock
  let error = first
  for (let retry = 1; ; retry++) {
    if (call.signal.aborted) throw call.signal.reason
    const delayMs = retryDelay(retry, error, options.retry)
    if (delayMs === undefined) throw error
    options.onRetry?.({ retry, delayMs, error: error as ProviderError })
    await clock.sleep(delayMs, call.signal)
    try {
      return await provider.call(request, call)
    } catch (e) {
      error = e
    }
  }
}
