/**
 * What every HTTP provider shares: its common options and their checks, the
 * API key from the environment, pricing, and the call itself (one POST,
 * answered whole or streamed as server-sent events).
 *
 * @internal
 */
import { deepFreeze } from '../../dag/freeze.js'
import { UsageError } from '../../errors.js'
import { postJson, postSse, type SseEvent } from './http.js'
import type { ModelDelta, ModelRequest, ModelResponse, Provider } from './Provider.js'

/**
 * Prices per million tokens, in the currency the response's `cost` is then in.
 *
 * @category providers
 */
export interface Pricing {
  readonly inputPerMTok: number
  readonly outputPerMTok: number
}

/**
 * The options every model provider takes; each provider's own options extend
 * them, and its doc gives its defaults. Every field is optional.
 *
 * @category providers
 */
export interface ProviderOptions {
  /**
   * The API key. Default: the provider's environment variable, read when the
   * provider is made; with neither, making the provider throws a `UsageError`
   * naming the variable.
   */
  readonly apiKey?: string
  /** Where the API is (a proxy or a compatible server). Default: the provider's own API. */
  readonly baseUrl?: string
  /** The model when the request names none (a request's own `model` wins). */
  readonly model?: string
  /** The most output tokens when the request sets none. */
  readonly maxTokens?: number
  /**
   * Stream the answer (server-sent events), report text, thinking and tool use
   * starts to `onDelta`, and give the response a whole answer gives. Default `false`.
   */
  readonly stream?: boolean
  /** Milliseconds to wait for the headers, then for each chunk (an idle timeout). Default 60 000. */
  readonly timeoutMs?: number
  /** Extra headers; they win over the provider's own. */
  readonly headers?: Readonly<Record<string, string>>
  /** Prices per million tokens: the response then has a `cost`. */
  readonly pricing?: Pricing
}

const DEFAULT_TIMEOUT_MS = 60_000

const show = (u: unknown): string => (u === undefined ? 'undefined' : JSON.stringify(u))

/**
 * The error for an option that breaks its rule, naming the factory, the
 * option and its value.
 *
 * @internal
 */
export const optionError = (api: string, name: string, rule: string, value: unknown): UsageError =>
  new UsageError(api, `options.${name} must be ${rule}, got ${show(value)}`)

/** Whether `n` is a count of tokens that may be asked for. @internal */
export const isPositiveInteger = (n: number): boolean => Number.isInteger(n) && n > 0

/**
 * Checks the common options a provider factory (`api`) was given; throws a
 * UsageError naming the first bad one and its value.
 *
 * @internal
 */
export const checkProviderOptions = (api: string, options: ProviderOptions): void => {
  const { baseUrl, maxTokens, timeoutMs, pricing } = options
  if (baseUrl !== undefined && !URL.canParse(baseUrl))
    throw optionError(api, 'baseUrl', 'a URL', baseUrl)
  if (maxTokens !== undefined && !isPositiveInteger(maxTokens))
    throw optionError(api, 'maxTokens', 'a positive integer', maxTokens)
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0))
    throw optionError(api, 'timeoutMs', 'a positive number of milliseconds', timeoutMs)
  if (pricing === undefined) return
  for (const k of ['inputPerMTok', 'outputPerMTok'] as const) {
    const v = pricing[k]
    if (!(Number.isFinite(v) && v >= 0)) throw optionError(api, `pricing.${k}`, 'a number ≥ 0', v)
  }
}

/**
 * The key given, or else the first of the environment `variables` that is
 * set and not empty (read now). None, and `required` → a UsageError naming
 * the variables; not `required` → undefined.
 *
 * @internal
 */
export const apiKeyFrom = (
  api: string,
  given: string | undefined,
  variables: readonly string[],
  required = true,
): string | undefined => {
  const key = given ?? variables.map((v) => process.env[v]).find((v) => v !== undefined && v !== '')
  if (key !== undefined && key !== '') return key
  if (!required) return undefined
  throw new UsageError(
    api,
    `no API key: pass options.apiKey or set the environment variable ${variables.join(' or ')}`,
  )
}

/** `baseUrl` (or the API's own) without trailing slashes, so that paths join with one. @internal */
export const baseUrlOf = (options: ProviderOptions, own: string): string =>
  (options.baseUrl ?? own).replace(/\/+$/, '')

/**
 * What cache writes and reads cost, as a multiple of the input price.
 *
 * @internal
 */
export interface CacheRates {
  readonly write: number
  readonly read: number
}

/** Cached tokens at the input price. @internal */
export const FLAT_RATES: CacheRates = { write: 1, read: 1 }

/**
 * The response, frozen, with its `cost` when there is a pricing: every input
 * token (cache writes and reads at `rates` times the input price) and every
 * output token.
 *
 * @internal
 */
export const withCost = (
  response: ModelResponse,
  pricing: Pricing | undefined,
  rates: CacheRates = FLAT_RATES,
): ModelResponse => {
  if (pricing === undefined) return deepFreeze(response)
  const u = response.usage
  const input =
    u.input_tokens +
    rates.write * u.cache_creation_input_tokens +
    rates.read * u.cache_read_input_tokens
  const cost = (input * pricing.inputPerMTok + u.output_tokens * pricing.outputPerMTok) / 1e6
  return deepFreeze({ ...response, cost })
}

/**
 * Reads the events of one streamed answer: `onEvent` for each, in order (it
 * throws on a malformed or error event), then `result` for the response (it
 * throws a ProviderStreamCut when the stream ended before its end event).
 *
 * @internal
 */
export interface StreamReader {
  readonly onEvent: (event: SseEvent) => void
  readonly result: () => ModelResponse
}

/**
 * One protocol over HTTP, as {@link httpProvider} runs it.
 *
 * @internal
 */
export interface Protocol {
  /** The provider's name, in its errors and traces. */
  readonly name: string
  /** Where to POST the request. */
  readonly url: (request: ModelRequest) => string
  /** The protocol's own headers (the key, a version); `options.headers` win over them. */
  readonly headers: Readonly<Record<string, string>>
  /** The body of the request. */
  readonly body: (request: ModelRequest) => unknown
  /** The response of a whole answer (JSON as received). */
  readonly answer: (json: unknown, request: ModelRequest) => ModelResponse
  /** A reader for the events of a streamed answer, reporting deltas to `onDelta`. */
  readonly stream: (
    request: ModelRequest,
    onDelta: ((delta: ModelDelta) => void) | undefined,
  ) => StreamReader
  /** How cached tokens are priced. Default {@link FLAT_RATES}. */
  readonly cacheRates?: CacheRates
}

/**
 * The {@link Provider} that speaks `protocol` with the common `options`: each
 * call POSTs the body (with the idle timeout and the call's signal), reads
 * the answer whole or, with `stream`, event by event, and prices it. It never
 * retries.
 *
 * @internal
 */
export const httpProvider = (protocol: Protocol, options: ProviderOptions): Provider => {
  const headers = { ...protocol.headers, ...options.headers }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  return Object.freeze({
    name: protocol.name,
    call: async (request, { signal, onDelta }) => {
      const post = {
        provider: protocol.name,
        url: protocol.url(request),
        headers,
        body: protocol.body(request),
        signal,
        timeoutMs,
      }
      let response: ModelResponse
      if (options.stream === true) {
        const reader = protocol.stream(request, onDelta)
        await postSse(post, reader.onEvent)
        response = reader.result()
      } else {
        response = protocol.answer(await postJson(post), request)
      }
      return withCost(response, options.pricing, protocol.cacheRates)
    },
  } satisfies Provider)
}
