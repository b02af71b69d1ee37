/**
 * Why a provider call failed. Every provider throws one of these subclasses
 * (or the abort reason when its signal is aborted); `retryable` says whether
 * the agent loop may try the same call again.
 *
 * @category providers
 */
export abstract class ProviderError extends Error {
  abstract readonly _tag: string
  /** The provider's name. */
  readonly provider: string
  readonly retryable: boolean
  constructor(provider: string, message: string, retryable: boolean, options?: ErrorOptions) {
    super(`${provider}: ${message}`, options)
    this.provider = provider
    this.retryable = retryable
  }
}

const RETRYABLE_STATUS: ReadonlySet<number> = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529])

/**
 * The server answered with an error status. 408, 409, 425, 429, 5xx-overload
 * statuses are retryable; `retryAfterMs` is the server's `Retry-After`, when
 * it sent one.
 *
 * @category providers
 */
export class ProviderHttpError extends ProviderError {
  readonly _tag = 'ProviderHttpError'
  readonly status: number
  /** The start of the response body, as text (at most 2 000 characters). */
  readonly body: string
  readonly retryAfterMs: number | undefined
  constructor(provider: string, status: number, body: string, retryAfterMs?: number) {
    const text = body.slice(0, 2000)
    super(
      provider,
      `HTTP ${status}${text === '' ? '' : `: ${text.slice(0, 200)}`}`,
      RETRYABLE_STATUS.has(status) || status >= 500,
    )
    this.name = 'ProviderHttpError'
    this.status = status
    this.body = text
    this.retryAfterMs = retryAfterMs
  }
}

/**
 * No answer, or no new bytes of a streamed answer, within the time allowed. Retryable.
 *
 * @category providers
 */
export class ProviderTimeout extends ProviderError {
  readonly _tag = 'ProviderTimeout'
  readonly timeoutMs: number
  constructor(provider: string, timeoutMs: number) {
    super(provider, `no response within ${timeoutMs} ms`, true)
    this.name = 'ProviderTimeout'
    this.timeoutMs = timeoutMs
  }
}

/**
 * The connection failed or broke (refused, reset, DNS). Retryable.
 *
 * @category providers
 */
export class ProviderNetworkError extends ProviderError {
  readonly _tag = 'ProviderNetworkError'
  constructor(provider: string, cause: unknown) {
    super(
      provider,
      `network error: ${cause instanceof Error ? cause.message : String(cause)}`,
      true,
      {
        cause,
      },
    )
    this.name = 'ProviderNetworkError'
  }
}

/**
 * A streamed answer ended before the protocol's end event. Retryable: the
 * partial answer was never recorded.
 *
 * @category providers
 */
export class ProviderStreamCut extends ProviderError {
  readonly _tag = 'ProviderStreamCut'
  constructor(provider: string, detail: string) {
    super(provider, `the stream ended early: ${detail}`, true)
    this.name = 'ProviderStreamCut'
  }
}

/**
 * The body (or an event of the stream) is not what the protocol promises:
 * not JSON, or a field missing or of the wrong type. `path` is a JSON
 * pointer into the body. Not retryable.
 *
 * @category providers
 */
export class ProviderMalformed extends ProviderError {
  readonly _tag = 'ProviderMalformed'
  readonly path: string
  constructor(provider: string, path: string, detail: string) {
    super(provider, `malformed response at ${path === '' ? '/' : path}: ${detail}`, false)
    this.name = 'ProviderMalformed'
    this.path = path
  }
}
