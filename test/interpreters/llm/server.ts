import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

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

/** Writes `events` as server-sent events (`event:` line when named), then ends — or, when `cut`, breaks the connection once they are sent. */
export const sse = (
  res: ServerResponse,
  events: readonly { readonly event?: string; readonly data: unknown }[],
  cut = false,
): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  const text = events
    .map((e) => {
      const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data)
      return `${e.event === undefined ? '' : `event: ${e.event}\n`}data: ${data}\n\n`
    })
    .join('')
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
