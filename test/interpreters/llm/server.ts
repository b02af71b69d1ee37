import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, onTestFinished } from 'vitest'
import type {
  ModelDelta,
  ModelRequest,
  ModelResponse,
  Provider,
} from '../../../src/interpreters/llm/Provider.js'

// A local HTTP server for the provider tests: how it answers (JSON, or
// server-sent events), one per test, and a provider's call against it.

/** One request the test server received: method, path, headers and parsed JSON body. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingMessage['headers']
  readonly body: unknown
}

/** A local HTTP server on loopback that answers with `handle`, recording every request. */
export interface TestServer {
  readonly url: string
  readonly received: Received[]
  close(): Promise<void>
}

/**
 * Starts a server on 127.0.0.1 (a free port). `handle` gets the parsed
 * request and the response to write; it may answer late or never (stalls).
 */
export const startServer = async (
  handle: (req: Received, res: ServerResponse) => void | Promise<void>,
): Promise<TestServer> => {
  const received: Received[] = []
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
      }
      received.push(r)
      void handle(r, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => {
          resolve()
        })
      }),
  }
}

/** One server-sent event to send: its `event:` name, if any, and its data (JSON, or a raw string). */
export interface StreamEvent {
  readonly event?: string
  readonly data: unknown
}

/** The text of `events` on the wire (`event:` line when named), each line ended by `eol`. */
export const sseText = (events: readonly StreamEvent[], eol = '\n'): string =>
  events
    .map((e) => {
      const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data)
      return `${e.event === undefined ? '' : `event: ${e.event}${eol}`}data: ${data}${eol}${eol}`
    })
    .join('')

/** Writes `events` as server-sent events, then ends — or, when `cut`, breaks the connection once they are sent. */
export const sse = (res: ServerResponse, events: readonly StreamEvent[], cut = false): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  const text = sseText(events)
  if (cut) res.write(text, () => res.destroy())
  else res.end(text)
}

/** Answers with JSON and a status. */
export const json = (
  res: ServerResponse,
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

/** How the test server answers one request. */
export type Handler = (req: Received, res: ServerResponse) => void | Promise<void>

/** Starts a server on loopback for the running test; it is closed when the test finishes. */
export const serve = async (handle: Handler): Promise<TestServer> => {
  const s = await startServer(handle)
  onTestFinished(() => s.close())
  return s
}

/** Answers with `body` as JSON. */
export const answering =
  (body: unknown, status = 200, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    json(res, body, status, headers)
  }

/** Answers with `events` as server-sent events, then ends. */
export const streaming =
  (events: readonly StreamEvent[]): Handler =>
  (_req, res) => {
    sse(res, events)
  }

/** A signal nobody aborts. */
export const signal = (): AbortSignal => new AbortController().signal

/** What `work` rejects with; the test fails if it succeeds. */
export const failureOf = (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => expect.fail('the call succeeded'),
    (e: unknown) => e,
  )

/**
 * Serves `handle` for the running test, and calls the provider `make` makes
 * for the server's URL with `request` (and `onDelta`): the response, and the
 * request the server received.
 */
export const callAt = async (
  handle: Handler,
  make: (baseUrl: string) => Provider,
  request: ModelRequest,
  onDelta?: (d: ModelDelta) => void,
): Promise<{ readonly response: ModelResponse; readonly sent: Received }> => {
  const s = await serve(handle)
  const response = await make(s.url).call(request, {
    signal: signal(),
    ...(onDelta && { onDelta }),
  })
  return { response, sent: s.received[0]! }
}
