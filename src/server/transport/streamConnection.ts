/**
 * One stream socket (Unix or TCP) joined to an engine connection: NDJSON in
 * through a {@link LineReader}, lines out with a newline, back-pressure
 * reported through the sink's return value and `drained()`. With a token,
 * the first line must be an `AUTH` request carrying it; nothing reaches the
 * engine before that.
 */
import type { Socket } from 'node:net'
import type { Engine, EngineConnection } from '../engine/index.js'
import { LineReader } from '../../client/LineReader.js'
import { refusalLine, TransportCodes } from './ServerError.js'
import { authRequest, tokenMatches } from './token.js'

/** What a peer that has not authenticated may cost: a deadline and a short line. */
export interface PreAuthBounds {
  /** Milliseconds to send the `AUTH` line before the socket is closed. */
  readonly timeoutMs: number
  /** The longest line taken before `AUTH`. */
  readonly maxLineBytes: number
}

/** How {@link serveStream} treats one socket. */
export interface StreamOptions {
  readonly maxLineBytes: number
  /** Required as the first line (`AUTH`) when set. */
  readonly token?: string | undefined
  /** The bounds before `AUTH`; needed with `token`. */
  readonly preAuth?: PreAuthBounds | undefined
  /**
   * Called when the peer authenticated: moves it from the pool of peers
   * that have not to the pool of those that have; false when that pool is
   * full (the peer is then turned away).
   */
  readonly admit?: () => boolean
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
  /** Turned away: nothing more is read or answered. */
  let refused = false
  const write = (line: string): boolean => {
    if (closed || refused || socket.destroyed) return true
    return socket.write(`${line}\n`)
  }
  const open = (): EngineConnection =>
    engine.connect({ send: write }, { transport: options.transport })
  const refuse = (line: string): void => {
    if (refused) return
    write(line)
    refused = true
    clearTimeout(deadline)
    socket.end()
    // A peer that keeps its half open is not waited for.
    setTimeout(() => socket.destroy(), 1000).unref()
  }

  let deadline: NodeJS.Timeout | undefined
  if (options.token === undefined) connection = open()
  else if (options.preAuth !== undefined) {
    const { timeoutMs } = options.preAuth
    deadline = setTimeout(() => {
      refuse(
        refusalLine(
          TransportCodes.unauthorized,
          'AuthTimeout',
          `no AUTH within ${timeoutMs} ms: this transport needs a token first`,
        ),
      )
    }, timeoutMs)
    deadline.unref()
  }

  const onLine = (line: string): void => {
    if (refused) return
    if (connection !== undefined) {
      connection.receive(line)
      return
    }
    // Not yet authorised: only an AUTH line with the right token opens the connection.
    const auth = authRequest(line)
    if (auth !== undefined && tokenMatches(options.token!, auth.token)) {
      clearTimeout(deadline)
      if (options.admit !== undefined && !options.admit()) {
        refuse(
          refusalLine(
            TransportCodes.tooManyConnections,
            'TooManyConnections',
            'the daemon has as many connections as it takes',
            auth.id,
          ),
        )
        return
      }
      reader.limit = options.maxLineBytes
      write(JSON.stringify({ jsonrpc: '2.0', id: auth.id, result: { authenticated: true } }))
      connection = open()
      return
    }
    refuse(
      refusalLine(
        TransportCodes.unauthorized,
        'Unauthorized',
        auth === undefined
          ? 'this transport needs a token: send {"method":"AUTH","params":{"token":…}} first'
          : 'wrong token',
        auth?.id ?? null,
      ),
    )
  }
  const tooLong = (bytes: number, limit: number): string =>
    refusalLine(
      TransportCodes.invalidRequest,
      'LineTooLong',
      `a line of ${bytes} bytes is over the limit of ${limit} bytes`,
    )
  const reader = new LineReader(
    connection === undefined && options.preAuth !== undefined
      ? options.preAuth.maxLineBytes
      : options.maxLineBytes,
    {
      line: onLine,
      oversize: (bytes) => {
        write(tooLong(bytes, reader.limit))
      },
      overflowing: () => {
        // Before AUTH a long line is a reason to hang up, not to wait for its end.
        if (connection === undefined)
          refuse(
            refusalLine(
              TransportCodes.invalidRequest,
              'LineTooLong',
              `a line before AUTH is over the limit of ${reader.limit} bytes`,
            ),
          )
      },
    },
  )

  socket.on('data', (chunk: Buffer) => {
    if (!closed && !refused) reader.push(chunk)
  })
  socket.on('drain', () => {
    connection?.drained()
  })
  const close = (): void => {
    if (closed) return
    closed = true
    clearTimeout(deadline)
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
