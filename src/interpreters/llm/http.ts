import {
  ProviderHttpError,
  ProviderMalformed,
  ProviderNetworkError,
  ProviderStreamCut,
  ProviderTimeout,
} from './ProviderError.js'

/**
 * One HTTP POST of a provider: where, with which headers and body, how long
 * to wait for each part of the answer, and the call's signal.
 *
 * @internal
 */
export interface Post {
  readonly provider: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  readonly signal: AbortSignal
  /** Milliseconds to wait for the headers, and then for each chunk of the body. */
  readonly timeoutMs: number
}

/** One server-sent event: its `event:` name (`''` when none) and its joined `data:` lines. @internal */
export interface SseEvent {
  readonly event: string
  readonly data: string
}

/**
 * The milliseconds a `Retry-After` (seconds or an HTTP date) or
 * `retry-after-ms` header asks to wait, if either is there and readable.
 *
 * @internal
 */
export const retryAfterMs = (headers: Headers, now = Date.now()): number | undefined => {
  const ms = Number(headers.get('retry-after-ms') ?? NaN)
  if (Number.isFinite(ms) && ms >= 0) return ms
  const value = headers.get('retry-after')
  if (value === null || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * Sends the POST and reads the body through `read`, with a timer that
 * restarts on each chunk: a silent server is a {@link ProviderTimeout}, an
 * aborted signal rejects with its reason, a failed connection is a
 * {@link ProviderNetworkError}, an error status a {@link ProviderHttpError}.
 */
const exchange = async <T>(
  post: Post,
  read: (chunks: AsyncIterable<Uint8Array>) => Promise<T>,
): Promise<T> => {
  post.signal.throwIfAborted()
  const inner = new AbortController()
  const onAbort = () => {
    inner.abort(post.signal.reason)
  }
  post.signal.addEventListener('abort', onAbort, { once: true })
  let timer: NodeJS.Timeout | undefined
  const arm = () => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      inner.abort(new ProviderTimeout(post.provider, post.timeoutMs))
    }, post.timeoutMs)
  }
  const failure = (e: unknown): unknown => {
    if (post.signal.aborted) return post.signal.reason
    if (inner.signal.reason instanceof ProviderTimeout) return inner.signal.reason
    return e
  }
  try {
    arm()
    let response: Response
    try {
      response = await fetch(post.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...post.headers },
        body: JSON.stringify(post.body),
        signal: inner.signal,
      })
    } catch (e) {
      throw failure(new ProviderNetworkError(post.provider, e))
    }
    const chunks = async function* (): AsyncGenerator<Uint8Array> {
      if (response.body === null) return
      try {
        for await (const chunk of response.body) {
          arm()
          yield chunk
        }
      } catch (e) {
        throw failure(
          new ProviderStreamCut(post.provider, e instanceof Error ? e.message : String(e)),
        )
      }
    }
    if (!response.ok) {
      const decoder = new TextDecoder()
      let text = ''
      try {
        for await (const c of chunks())
          if (text.length < 4000) text += decoder.decode(c, { stream: true })
      } catch (e) {
        if (post.signal.aborted) throw e
      }
      throw new ProviderHttpError(
        post.provider,
        response.status,
        text,
        retryAfterMs(response.headers),
      )
    }
    return await read(chunks())
  } finally {
    clearTimeout(timer)
    post.signal.removeEventListener('abort', onAbort)
  }
}

/**
 * POSTs JSON and parses the JSON answer. A body that is not JSON is a
 * {@link ProviderMalformed} at the root.
 *
 * @internal
 */
export const postJson = (post: Post): Promise<unknown> =>
  exchange(post, async (chunks) => {
    const decoder = new TextDecoder()
    let text = ''
    for await (const c of chunks) text += decoder.decode(c, { stream: true })
    text += decoder.decode()
    try {
      return JSON.parse(text) as unknown
    } catch {
      throw new ProviderMalformed(post.provider, '', `not JSON: ${text.slice(0, 100)}`)
    }
  })

/**
 * POSTs JSON and hands each server-sent event of the answer to `onEvent`, in
 * order, then resolves. `onEvent` may throw (a malformed event) to end the
 * call. An event cut off by the end of the body is not delivered: the
 * provider sees no end event and throws {@link ProviderStreamCut}.
 *
 * @internal
 */
export const postSse = (post: Post, onEvent: (e: SseEvent) => void): Promise<void> =>
  exchange(post, async (chunks) => {
    const decoder = new TextDecoder()
    const parser = sseParser(onEvent)
    for await (const c of chunks) parser.push(decoder.decode(c, { stream: true }))
  })

/**
 * An incremental parser of server-sent events: `push` text as it comes (cut
 * anywhere), `onEvent` is called for each event once its blank line came.
 *
 * @internal
 */
export const sseParser = (onEvent: (e: SseEvent) => void): { push(text: string): void } => {
  let buffer = ''
  let event = ''
  let data: string[] = []
  const line = (l: string) => {
    if (l === '') {
      if (data.length > 0) onEvent({ event, data: data.join('\n') })
      event = ''
      data = []
      return
    }
    if (l.startsWith(':')) return
    const colon = l.indexOf(':')
    const field = colon === -1 ? l : l.slice(0, colon)
    let value = colon === -1 ? '' : l.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') event = value
    else if (field === 'data') data.push(value)
  }
  return {
    push(text: string) {
      buffer += text
      let nl: number
      while ((nl = buffer.search(/\r\n|\r|\n/)) !== -1) {
        if (nl === buffer.length - 1 && buffer[nl] === '\r') break // maybe half of a \r\n
        const len = buffer[nl] === '\r' && buffer[nl + 1] === '\n' ? 2 : 1
        line(buffer.slice(0, nl))
        buffer = buffer.slice(nl + len)
      }
    },
  }
}
