/**
 * One stream socket (Unix or TCP) joined to an engine connection: NDJSON in
 * through a {@link LineReader}, lines out with a newline, back-pressure
 * reported through the sink's return value and `drained()`. With a token,
 * the first line must be an `AUTH` request carrying it; nothing reaches the
 * engine before that.
 */
import type { Socket } from 'node:net'
import type { Engine, EngineConnection } from '../engine/index.js'
import { LineReader } from './LineReader.js'
import { refusalLine, TransportCodes } from './ServerError.js'
import { authRequest, tokenMatches } from './token.js'

/** How {@link serveStream} treats one socket. */
export interface StreamOptions {
  readonly maxLineBytes: number
  /** Required as the first line (`AUTH`) when set. */
  readonly token?: string | undefined
  /** `unix` or `tcp`, passed to the engine. */
  readonly transport: string
}

/**
 * Serves one socket until it closes; returns a function that ends it (after
 * what was written has been flushed).
 */
export const serveStream = (
  socket: Socket,
  engine: Engine,
  options: StreamOptions,
): { readonly end: () => void } => {
  socket.setNoDelay(true)
  let connection: EngineConnection | undefined
  let closed = false
  const write = (line: string): boolean => {
    if (closed || socket.destroyed) return true
    return socket.write(`${line}\n`)
  }
  const open = (): EngineConnection =>
    engine.connect({ send: write }, { transport: options.transport })

  let authorised = options.token === undefined
  if (authorised) connection = open()

  const onLine = (line: string): void => {
    if (connection !== undefined) {
      connection.receive(line)
      return
    }
    // Not yet authorised: only an AUTH line with the right token opens the connection.
    const auth = authRequest(line)
    if (auth !== undefined && tokenMatches(options.token!, auth.token)) {
      authorised = true
      write(JSON.stringify({ jsonrpc: '2.0', id: auth.id, result: { authenticated: true } }))
      connection = open()
      return
    }
    write(
      refusalLine(
        TransportCodes.unauthorized,
        'Unauthorized',
        auth === undefined
          ? 'this transport needs a token: send {"method":"AUTH","params":{"token":…}} first'
          : 'wrong token',
        auth?.id ?? null,
      ),
    )
    socket.end()
  }
  const reader = new LineReader(options.maxLineBytes, {
    line: onLine,
    oversize: (bytes) => {
      write(
        refusalLine(
          TransportCodes.invalidRequest,
          'LineTooLong',
          `a line of ${bytes} bytes is over the limit of ${options.maxLineBytes} bytes`,
        ),
      )
    },
  })

  socket.on('data', (chunk: Buffer) => {
    if (!closed) reader.push(chunk)
  })
  socket.on('drain', () => {
    connection?.drained()
  })
  const close = (): void => {
    if (closed) return
    closed = true
    connection?.close()
  }
  socket.on('close', close)
  socket.on('error', () => {
    // A reset peer is an ordinary end of a connection; 'close' follows.
    close()
  })
  return {
    end: () => {
      close()
      socket.end()
    },
  }
}
