import { taggedError } from '../../errors.js'

/**
 * Why a provider call failed. Every provider throws one of these subclasses
 * (or the abort reason when its signal is aborted); `retryable` says whether
 * the agent loop may try the same call again.
 *
 * @category providers
 */
export abstract class ProviderError extends Error {
  declare readonly _tag: string
  /** The provider's name. */
  declare readonly provider: string
  declare readonly retryable: boolean
}

const RETRYABLE_STATUS: ReadonlySet<number> = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529])

/**
 * The server answered with an error status. 408, 409, 425, 429, 5xx-overload
 * statuses are retryable; `retryAfterMs` is the server's `Retry-After`, when
 * it sent one.
 *
 * @category providers
 */
export class ProviderHttpError extends taggedError('ProviderHttpError', 'failed', ProviderError)<{
  readonly provider: string
  readonly retryable: boolean
  readonly status: number
  /** The start of the response body, as text (at most 2 000 characters). */
  readonly body: string
  readonly retryAfterMs: number | undefined
}> {
  constructor(provider: string, status: number, body: string, retryAfterMs?: number) {
    const text = body.slice(0, 2000)
    super(`${provider}: HTTP ${status}${text === '' ? '' : `: ${text.slice(0, 200)}`}`, {
      provider,
      retryable: RETRYABLE_STATUS.has(status) || status >= 500,
      status,
      body: text,
      retryAfterMs,
    })
  }
}

/**
 * No answer, or no new bytes of a streamed answer, within the time allowed. Retryable.
 *
 * @category providers
 */
export class ProviderTimeout extends taggedError('ProviderTimeout', 'timeout', ProviderError)<{
  readonly provider: string
  readonly retryable: boolean
  readonly timeoutMs: number
}> {
  constructor(provider: string, timeoutMs: number) {
    super(`${provider}: no response within ${timeoutMs} ms`, {
      provider,
      retryable: true,
      timeoutMs,
    })
  }
}

/**
 * The connection failed or broke (refused, reset, DNS). Retryable.
 *
 * @category providers
 */
export class ProviderNetworkError extends taggedError(
  'ProviderNetworkError',
  'failed',
  ProviderError,
)<{ readonly provider: string; readonly retryable: boolean }> {
  constructor(provider: string, cause: unknown) {
    super(
      `${provider}: network error: ${cause instanceof Error ? cause.message : String(cause)}`,
      { provider, retryable: true },
      { cause },
    )
  }
}

/**
 * A streamed answer ended before the protocol's end event. Retryable: the
 * partial answer was never recorded.
 *
 * @category providers
 */
export class ProviderStreamCut extends taggedError('ProviderStreamCut', 'failed', ProviderError)<{
  readonly provider: string
  readonly retryable: boolean
}> {
  constructor(provider: string, detail: string) {
    super(`${provider}: the stream ended early: ${detail}`, { provider, retryable: true })
  }
}

/**
 * The body (or an event of the stream) is not what the protocol promises:
 * not JSON, or a field missing or of the wrong type. `path` is a JSON
 * pointer into the body. Not retryable.
 *
 * @category providers
 */
export class ProviderMalformed extends taggedError('ProviderMalformed', 'failed', ProviderError)<{
  readonly provider: string
  readonly retryable: boolean
  readonly path: string
}> {
  constructor(provider: string, path: string, detail: string) {
    super(`${provider}: malformed response at ${path === '' ? '/' : path}: ${detail}`, {
      provider,
      retryable: false,
      path,
    })
  }
}
