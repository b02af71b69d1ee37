/**
 * The HTTP face of the daemon: `POST /rpc` takes one JSON-RPC request as the
 * body and answers with its response (a notification gets `204`), and
 * `GET /ws` upgrades to a WebSocket that carries the NDJSON stream, one
 * message per line, events included. A `Host` that is not a loopback name
 * or the bound address, or a browser `Origin` that is not the daemon's own,
 * is answered `403`; then both need `Authorization: Bearer <token>`, a
 * wrong or missing one answered `401`, before anything reaches the engine.
 * The dashboard (`GET /`, its files, `GET /login`) and a one-time handover
 * to it (`POST /dashboard/handover`, bearer token) are served here too; a
 * dashboard session cookie opens the WebSocket as the token does.
 *
 * A connection that has not yet presented the token (or a session cookie)
 * is a stranger: it waits in the same bounded pool as TCP peers before
 * `AUTH`, has a few seconds to send its headers and a deadline for its
 * whole request, and a refusal (`401`, `403`, `413`, …) closes it without
 * reading the rest of its body.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import type { ConnectionSet } from './ConnectionSet.js'
import type { Engine } from '../engine/index.js'
import { refusalLine, TransportCodes } from './ServerError.js'
import { dashboardDir, serveDashboard, type DashboardAccess } from './dashboard.js'
import { browserRefusal } from './origin.js'
import { bearerToken, tokenMatches } from './token.js'

/** How the HTTP transport behaves. */
export interface HttpOptions {
  readonly maxLineBytes: number
  readonly token?: string | undefined
  readonly connections: ConnectionSet
  /** Connections that have not yet presented the token or a session cookie (shared with TCP before `AUTH`). */
  readonly strangers: ConnectionSet
  /** Host names the `Host` header may carry beside the loopback names: the bound address, and names allowed. */
  readonly hosts: readonly string[]
  /** Milliseconds a client has to send its request headers. */
  readonly headersTimeoutMs: number
  /** Milliseconds a client has to send a whole request, headers and body. */
  readonly requestTimeoutMs: number
  /** The dashboard's handovers and sessions; a session cookie also opens the WebSocket. */
  readonly access: DashboardAccess
  /** Where the built dashboard is ({@link dashboardDir} by default). */
  readonly dashboardDir?: string | undefined
}

/** Bytes queued on a WebSocket past which the engine is told to hold events. */
const HIGH_WATER = 1024 * 1024

const authorised = (req: IncomingMessage, token: string | undefined): boolean =>
  token === undefined || tokenMatches(token, bearerToken(req.headers.authorization))

const reply = (res: ServerResponse, status: number, body?: string): void => {
  if (body === undefined) res.writeHead(status).end()
  else
    res
      .writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      })
      .end(body)
}

/** The connection ends once this answer is written (`Connection: close`); what is left of the body is not read. */
const lastAnswer = (res: ServerResponse): void => {
  res.shouldKeepAlive = false
  res.setHeader('connection', 'close')
}

/** Answers with an error and hangs up. */
const refuse = (res: ServerResponse, status: number, body: string): void => {
  lastAnswer(res)
  reply(res, status, body)
}

const unauthorised = (res: ServerResponse): void => {
  refuse(
    res,
    401,
    refusalLine(TransportCodes.unauthorized, 'Unauthorized', 'missing or wrong bearer token'),
  )
}

/** Whether a body is a JSON-RPC notification (an object without `id`): it gets no response. */
const isNotification = (body: string): boolean => {
  try {
    const msg: unknown = JSON.parse(body)
    return typeof msg === 'object' && msg !== null && !Array.isArray(msg) && !('id' in msg)
  } catch {
    return false
  }
}

/** Whether a line the engine sent is the response to a request (not an event). */
const isResponse = (line: string): boolean => {
  try {
    const msg: unknown = JSON.parse(line)
    return typeof msg === 'object' && msg !== null && 'id' in msg
  } catch {
    return false
  }
}

const serveRpc = (
  req: IncomingMessage,
  res: ServerResponse,
  engine: Engine,
  options: HttpOptions,
): void => {
  const tooLong = (): void => {
    refuse(
      res,
      413,
      refusalLine(
        TransportCodes.invalidRequest,
        'LineTooLong',
        `a body of more than ${options.maxLineBytes} bytes is over the limit`,
      ),
    )
  }
  // A body declared, or found, over the bound is neither kept nor read further: the answer ends the connection.
  if (Number(req.headers['content-length'] ?? 0) > options.maxLineBytes) {
    tooLong()
    return
  }
  const chunks: Buffer[] = []
  let bytes = 0
  const onData = (chunk: Buffer): void => {
    bytes += chunk.length
    if (bytes <= options.maxLineBytes) {
      chunks.push(chunk)
      return
    }
    req.off('data', onData)
    req.off('end', onEnd)
    req.pause()
    tooLong()
  }
  req.on('data', onData)
  req.on('end', onEnd)
  function onEnd(): void {
    const body = Buffer.concat(chunks).toString('utf8').trim()
    let done = false
    const release = options.connections.admit(() => {
      finish(503, refusalLine(TransportCodes.tooManyConnections, 'ShuttingDown', 'shutting down'))
    })
    if (release === undefined) {
      reply(
        res,
        503,
        refusalLine(
          TransportCodes.tooManyConnections,
          'TooManyConnections',
          'too many connections',
        ),
      )
      return
    }
    const connection = engine.connect(
      {
        send: (line) => {
          if (!done && isResponse(line)) finish(200, line)
          return true
        },
      },
      { transport: 'http' },
    )
    function finish(status: number, line?: string): void {
      if (done) return
      done = true
      release!()
      reply(res, status, line)
      connection.close()
    }
    res.on('close', () => {
      // The client left before its answer: the engine aborts the request.
      if (!done) {
        done = true
        release()
        connection.close()
      }
    })
    const notification = isNotification(body)
    connection.receive(body)
    if (notification) finish(204)
  }
}

const serveSocket = (ws: WebSocket, engine: Engine, options: HttpOptions): void => {
  let congested = false
  const release = options.connections.admit(() => {
    ws.close(1001, 'server shutting down')
  })
  if (release === undefined) {
    ws.close(1013, 'too many connections')
    return
  }
  const afterSend = (): void => {
    if (congested && ws.bufferedAmount < HIGH_WATER / 2) {
      congested = false
      connection.drained()
    }
  }
  const connection = engine.connect(
    {
      send: (line) => {
        if (ws.readyState !== ws.OPEN) return true
        ws.send(line, afterSend)
        if (ws.bufferedAmount >= HIGH_WATER) congested = true
        return !congested
      },
    },
    { transport: 'websocket' },
  )
  ws.on('message', (data: Buffer, isBinary) => {
    if (data.length > options.maxLineBytes) {
      ws.send(
        refusalLine(
          TransportCodes.invalidRequest,
          'LineTooLong',
          `a message of ${data.length} bytes is over the limit of ${options.maxLineBytes} bytes`,
        ),
      )
      return
    }
    const text = data.toString('utf8')
    if (isBinary || text.includes('\n')) {
      for (const line of text.split('\n')) if (line.trim() !== '') connection.receive(line)
    } else connection.receive(text)
  })
  ws.on('close', () => {
    release()
    connection.close()
  })
  ws.on('error', () => {
    // A broken peer closes; 'close' follows.
  })
}

const refuseSocket = (socket: Duplex, status: string, body: string): void => {
  socket.end(
    `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    () => socket.destroy(),
  )
}

/**
 * An HTTP server (not yet listening) serving `POST /rpc` and the WebSocket
 * `/ws` for `engine`. `close()` of the result also ends the WebSockets.
 *
 * @category server
 */
export const httpServer = (engine: Engine, options: HttpOptions): Server => {
  // A message may carry one line over the bound, which is answered with an error;
  // past twice the bound the socket is closed (1009) rather than buffered.
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxLineBytes * 2 })
  const dir = options.dashboardDir ?? dashboardDir()
  // The strangers' pool entry of each connection that has not yet shown the token or a session.
  const strangers = new WeakMap<Duplex, () => void>()
  /** The connection of `req` leaves the strangers' pool when `req` shows the token or a session. */
  const greet = (req: IncomingMessage): { token: boolean; session: boolean } => {
    const shown = {
      token: authorised(req, options.token),
      session: options.access.admits(req.headers.cookie),
    }
    if (shown.token || shown.session) {
      strangers.get(req.socket)?.()
      strangers.delete(req.socket)
    }
    return shown
  }
  const server = createServer(
    {
      // A client that has not sent its headers yet is a stranger: it gets little time.
      headersTimeout: Math.min(options.headersTimeoutMs, options.requestTimeoutMs),
      requestTimeout: options.requestTimeoutMs,
      // How often those deadlines are checked (Node's default is every 30 s).
      connectionsCheckingInterval: Math.max(
        10,
        Math.min(1000, options.headersTimeoutMs / 2, options.requestTimeoutMs / 2),
      ),
    },
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/'
      const forbidden = browserRefusal(req.headers, options.hosts)
      if (forbidden !== undefined) {
        refuse(res, 403, refusalLine(TransportCodes.unauthorized, forbidden.tag, forbidden.message))
        return
      }
      const shown = greet(req)
      // A stranger gets one answer per connection.
      if (!shown.token && !shown.session) lastAnswer(res)
      if (serveDashboard(req, res, path, options.access, dir)) {
        // served
      } else if (path === '/dashboard/handover' && req.method === 'POST') {
        if (!shown.token) unauthorised(res)
        else {
          req.resume()
          reply(
            res,
            200,
            JSON.stringify({
              url: `http://${req.headers.host}/login?handover=${options.access.handover()}`,
            }),
          )
        }
      } else if (path !== '/rpc')
        refuse(res, 404, refusalLine(-32601, 'NotFound', `no ${path}: use POST /rpc or GET /ws`))
      else if (req.method !== 'POST') {
        res.setHeader('allow', 'POST')
        refuse(res, 405, refusalLine(-32600, 'MethodNotAllowed', `${req.method} /rpc: use POST`))
      } else if (!shown.token) unauthorised(res)
      else serveRpc(req, res, engine, options)
    },
  )
  server.on('connection', (socket: Socket) => {
    const release = options.strangers.admit(() => socket.destroy())
    if (release === undefined) {
      socket.on('error', () => undefined)
      const body = refusalLine(
        TransportCodes.tooManyConnections,
        'TooManyConnections',
        'the daemon takes no more unauthenticated connections now',
      )
      refuseSocket(socket, '503 Service Unavailable', body)
      return
    }
    strangers.set(socket, release)
    socket.once('close', release)
  })
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => {
      // A peer that vanishes during the handshake.
    })
    const path = (req.url ?? '/').split('?')[0]
    const forbidden = browserRefusal(req.headers, options.hosts)
    const shown = greet(req)
    if (forbidden !== undefined)
      refuseSocket(
        socket,
        '403 Forbidden',
        refusalLine(TransportCodes.unauthorized, forbidden.tag, forbidden.message),
      )
    else if (path !== '/ws')
      refuseSocket(
        socket,
        '404 Not Found',
        refusalLine(-32601, 'NotFound', `no WebSocket at ${path}`),
      )
    else if (!shown.token && !shown.session)
      refuseSocket(
        socket,
        '401 Unauthorized',
        refusalLine(TransportCodes.unauthorized, 'Unauthorized', 'missing or wrong bearer token'),
      )
    else
      wss.handleUpgrade(req, socket, head, (ws) => {
        serveSocket(ws, engine, options)
      })
  })
  server.on('close', () => {
    wss.close()
  })
  return server
}
