/**
 * The client's side of a transport: a line goes out, lines come in, and the
 * end of the connection is reported once. One kind per transport: a stream
 * socket (Unix, TCP), a WebSocket, HTTP `POST /rpc` (no events); the wire to
 * an engine in the same process is the server's (`nerve-agents/server`).
 */
import { connect as netConnect, type Socket } from 'node:net'
import { LineReader } from './LineReader.js'
import { ConnectionError } from './ConnectionError.js'

/**
 * What a wire reports to the client.
 *
 * @category client
 */
export interface WireHandlers {
  /** One JSON-RPC message from the daemon. */
  readonly line: (line: string) => void
  /** The connection ended; called once. */
  readonly closed: (error: ConnectionError) => void
}

/**
 * An open connection to the daemon.
 *
 * @category client
 */
export interface Wire {
  /** Where it goes: a socket path, `host:port`, a URL, `in-process`. */
  readonly address: string
  /** Whether events reach this wire (false for `POST /rpc`). */
  readonly events: boolean
  send(line: string): void
  close(): void
}

/**
 * Opens a wire that reports to `handlers`.
 *
 * @category client
 */
export type WireOpener = (handlers: WireHandlers) => Promise<Wire>

/** Lines from the daemon are trusted to be sane; this only stops a runaway. */
const CLIENT_MAX_LINE = 1 << 30

const authLine = (token: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 'auth', method: 'AUTH', params: { token } })

/** The message of an error reply, or `undefined` when the line is a success. */
const authFailure = (line: string): string | undefined => {
  try {
    const msg = JSON.parse(line) as { result?: unknown; error?: { message?: unknown } }
    if (msg.result !== undefined) return undefined
    return typeof msg.error?.message === 'string' ? msg.error.message : 'refused'
  } catch {
    return 'the daemon answered AUTH with something that is not JSON'
  }
}

/**
 * A wire over a stream socket: a Unix socket path, or TCP `{ host, port }`
 * with the `AUTH` line first when there is a token.
 *
 * @category client
 */
export const streamWire =
  (
    where: { readonly path: string } | { readonly host: string; readonly port: number },
    token?: string,
  ): WireOpener =>
  (handlers) =>
    new Promise((resolve, reject) => {
      const address = 'path' in where ? where.path : `${where.host}:${where.port}`
      const socket: Socket =
        'path' in where ? netConnect(where.path) : netConnect(where.port, where.host)
      socket.setNoDelay(true)
      let opened = false
      let authorising = token !== undefined
      let lastError: Error | undefined
      const wire: Wire = {
        address,
        events: true,
        send: (line) => {
          socket.write(`${line}\n`)
        },
        close: () => {
          socket.end()
          socket.destroySoon()
        },
      }
      const reader = new LineReader(CLIENT_MAX_LINE, {
        line: (line) => {
          if (!authorising) {
            handlers.line(line)
            return
          }
          authorising = false
          const failure = authFailure(line)
          if (failure === undefined) {
            opened = true
            resolve(wire)
          } else {
            socket.destroy()
            reject(new ConnectionError(address, `the daemon refused the token: ${failure}`))
          }
        },
        oversize: () => undefined,
      })
      socket.on('data', (chunk: Buffer) => {
        reader.push(chunk)
      })
      socket.on('error', (e) => {
        lastError = e
      })
      socket.once('connect', () => {
        if (token !== undefined) socket.write(`${authLine(token)}\n`)
        else {
          opened = true
          resolve(wire)
        }
      })
      socket.on('close', () => {
        const why = lastError?.message ?? 'the daemon closed the connection'
        if (opened)
          handlers.closed(
            new ConnectionError(address, `connection lost: ${why}`, { cause: lastError }),
          )
        else reject(new ConnectionError(address, `cannot connect: ${why}`, { cause: lastError }))
      })
    })

/**
 * A wire over the daemon's WebSocket `/ws`, with the token as a bearer header.
 * The `ws` package loads when such a wire opens, not with the client.
 *
 * @category client
 */
export const webSocketWire =
  (url: string, token?: string): WireOpener =>
  async (handlers) => {
    const { WebSocket } = await import('ws')
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, {
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        perMessageDeflate: false,
      })
      let opened = false
      let failure: string | undefined
      ws.on('unexpected-response', (_req, res) => {
        failure =
          res.statusCode === 401
            ? 'the daemon refused the token (401)'
            : `the daemon answered the upgrade with ${res.statusCode}`
        ws.terminate()
      })
      ws.on('error', (e) => {
        failure ??= e.message
      })
      ws.on('open', () => {
        opened = true
        resolve({
          address: url,
          events: true,
          send: (line) => {
            ws.send(line)
          },
          close: () => {
            ws.close()
          },
        })
      })
      ws.on('message', (data: Buffer) => {
        const text = data.toString('utf8')
        if (!text.includes('\n')) handlers.line(text)
        else for (const line of text.split('\n')) if (line !== '') handlers.line(line)
      })
      ws.on('close', (code, reason) => {
        const why = failure ?? `closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`
        if (opened) handlers.closed(new ConnectionError(url, `connection lost: ${why}`))
        else reject(new ConnectionError(url, `cannot connect: ${why}`))
      })
    })
  }

/**
 * A wire that sends each request as its own `POST /rpc`. It carries no
 * events; cancelling a request aborts its HTTP request, which the daemon
 * takes as the peer going away.
 *
 * @category client
 */
export const postWire =
  (url: string, token?: string): WireOpener =>
  (handlers) => {
    const inFlight = new Map<unknown, AbortController>()
    let closed = false
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (token !== undefined) headers.authorization = `Bearer ${token}`
    const end = (error: ConnectionError): void => {
      if (closed) return
      closed = true
      for (const c of inFlight.values()) c.abort()
      handlers.closed(error)
    }
    const send = (line: string): void => {
      let msg: { id?: unknown; method?: unknown; params?: { id?: unknown } }
      try {
        msg = JSON.parse(line) as typeof msg
      } catch {
        msg = {}
      }
      if (msg.method === 'CANCEL_REQUEST') {
        inFlight.get(msg.params?.id)?.abort()
        return
      }
      const controller = new AbortController()
      inFlight.set(msg.id, controller)
      fetch(url, { method: 'POST', body: line, headers, signal: controller.signal })
        .then(async (res) => {
          const text = await res.text()
          if (res.status === 401)
            end(new ConnectionError(url, 'the daemon refused the token (401)'))
          else if (text !== '') handlers.line(text)
        })
        .catch((e: unknown) => {
          if (!controller.signal.aborted) {
            end(
              new ConnectionError(
                url,
                `connection lost: ${e instanceof Error ? e.message : String(e)}`,
                { cause: e },
              ),
            )
          }
        })
        .finally(() => {
          inFlight.delete(msg.id)
        })
    }
    return Promise.resolve({
      address: url,
      events: false,
      send,
      close: () => {
        end(new ConnectionError(url, 'closed'))
      },
    })
  }
