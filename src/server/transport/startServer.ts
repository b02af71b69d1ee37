/**
 * `startServer`: one engine behind any of a Unix socket (the default), TCP
 * and HTTP + WebSocket, with a pid file, a token for the network
 * transports, a bound on connections and lines, and one graceful close
 * (`SHUTDOWN`, SIGTERM, SIGINT or `close()`): the engine shuts down (it
 * cancels graphs, stops nodes, saves, tells subscribers), connections end,
 * the socket, pid and generated token files are removed.
 */
import { chmod, mkdir } from 'node:fs/promises'
import type { Server as HttpServer } from 'node:http'
import { createServer, type Server, type Socket } from 'node:net'
import { dirname, join } from 'node:path'
import { writeFileAtomic } from '../../interpreters/index.js'
import { ConnectionSet, DEFAULT_MAX_CONNECTIONS } from './ConnectionSet.js'
import { createEngine, type Engine, type EngineOptions } from '../engine/index.js'
import { DashboardAccess } from './dashboard.js'
import { httpServer } from './httpTransport.js'
import { boundNames, isLoopback } from './origin.js'
import { DEFAULT_MAX_LINE_BYTES } from '../../client/LineReader.js'
import { refusalLine, ServerStartError, TransportCodes } from './ServerError.js'
import {
  claimSocketPath,
  defaultDaemonDir,
  defaultSocketPath,
  ensureSocketDir,
  removeFile,
} from './socketFile.js'
import { serveStream } from './streamConnection.js'
import { checkToken, generateToken, writeTokenFile } from './token.js'

/**
 * Where a network transport binds: `host` defaults to `127.0.0.1`, `port` to
 * 0 (a free port, reported on the handle).
 *
 * @category server
 */
export interface BindOptions {
  readonly host?: string
  readonly port?: number
}

/**
 * What a TCP peer that has not yet sent its `AUTH` line, or an HTTP
 * connection that has not yet shown the token or a dashboard session, may
 * cost, apart from the pool of authenticated connections (so that strangers
 * cannot crowd out the owner).
 *
 * @category server
 */
export interface PreAuthOptions {
  /** TCP and HTTP connections that have not authenticated, at most (together); 32 by default. */
  readonly maxConnections?: number
  /** Milliseconds a peer has to authenticate (also the HTTP header deadline); 5000 by default. */
  readonly timeoutMs?: number
  /** The longest line taken before `AUTH`; 4 KiB by default. */
  readonly maxLineBytes?: number
}

/** A minute: how long an HTTP request may take to arrive by default. */
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000

const PRE_AUTH_DEFAULTS: Required<PreAuthOptions> = {
  maxConnections: 32,
  timeoutMs: 5000,
  maxLineBytes: 4096,
}

/**
 * Options of {@link startServer}.
 *
 * @category server
 */
export interface ServerOptions<E extends Engine = Engine> {
  /** The engine to serve; by default a new one made with `engineOptions` (and shut down on close). */
  readonly engine?: E
  /** Options of the engine made when `engine` is not given. */
  readonly engineOptions?: EngineOptions
  /** The Unix socket: a path, `true` for {@link defaultSocketPath} (the default), `false` for none. */
  readonly socket?: string | boolean
  /** NDJSON over TCP; `true` binds 127.0.0.1 on a free port. Off by default. */
  readonly tcp?: BindOptions | boolean
  /** `POST /rpc` and WebSocket `/ws`; `true` binds 127.0.0.1 on a free port. Off by default. */
  readonly http?: BindOptions | boolean
  /** The token TCP and HTTP clients must present (16 characters and about 80 bits at least: {@link checkToken}); generated when TCP or HTTP is on and none is given. */
  readonly token?: string
  /** Where a generated token is written (mode 0600); defaults beside the socket, or in {@link defaultDaemonDir}. */
  readonly tokenFile?: string
  /** The pid file; defaults beside the socket (`nerve.pid`); `false` for none. */
  readonly pidFile?: string | false
  /**
   * Live authenticated connections over TCP, HTTP and WebSocket together,
   * and, apart, over the Unix socket; 256 each by default.
   */
  readonly maxConnections?: number
  /** The bounds on TCP peers before `AUTH`. */
  readonly preAuth?: PreAuthOptions
  /**
   * More host names the HTTP `Host` header may carry, beside the loopback
   * names and the bound address (needed to reach a daemon bound to
   * `0.0.0.0` by a name).
   */
  readonly allowedHosts?: readonly string[]
  /** The longest line (or HTTP body, or WebSocket message) taken; 16 MiB by default. */
  readonly maxLineBytes?: number
  /**
   * Milliseconds an HTTP client has to send a whole request, headers and
   * body; 60 000 by default. Past it the request is answered `408` and its
   * connection closed.
   */
  readonly requestTimeoutMs?: number
  /** Where the built dashboard is served from; by default `dist/dashboard` of this package. */
  readonly dashboardDir?: string
  /** Close on SIGTERM and SIGINT. Off by default (a library does not take over signals unasked). */
  readonly signals?: boolean
}

/**
 * A running server: what it bound, and how to close it.
 *
 * @category server
 */
export interface ServerHandle<E extends Engine = Engine> {
  readonly engine: E
  /** The Unix socket path, if one is served. */
  readonly socket: string | undefined
  readonly tcp: { readonly host: string; readonly port: number } | undefined
  readonly http: { readonly host: string; readonly port: number; readonly url: string } | undefined
  /** The token TCP and HTTP clients present, if those transports are on. */
  readonly token: string | undefined
  /**
   * A URL that opens the dashboard once (a fresh one-time handover each
   * call); undefined without HTTP.
   */
  dashboardUrl(): string | undefined
  /** The file a generated token was written to. */
  readonly tokenFile: string | undefined
  readonly pidFile: string | undefined
  /** Graceful close; resolves when everything is closed and the files are removed. Idempotent. */
  close(): Promise<void>
  /** Resolves once the server closed, whatever closed it (`close()`, `SHUTDOWN`, a signal). */
  readonly closed: Promise<void>
}

const bindOf = (o: BindOptions | boolean | undefined): Required<BindOptions> | undefined =>
  o === undefined || o === false
    ? undefined
    : {
        host: (o === true ? undefined : o.host) ?? '127.0.0.1',
        port: (o === true ? undefined : o.port) ?? 0,
      }

const listen = (
  server: Server | HttpServer,
  where: { path: string } | Required<BindOptions>,
): Promise<void> =>
  new Promise((resolve, reject) => {
    const named = 'path' in where ? where.path : `${where.host}:${where.port}`
    const onError = (e: NodeJS.ErrnoException): void => {
      reject(
        e.code === 'EADDRINUSE'
          ? new ServerStartError('AddressInUse', named, `${named} is in use`, { cause: e })
          : e,
      )
    }
    server.once('error', onError)
    server.listen('path' in where ? where.path : { host: where.host, port: where.port }, () => {
      server.off('error', onError)
      resolve()
    })
  })

const closeServer = (server: Server | HttpServer): Promise<void> =>
  new Promise((resolve) => {
    if (!server.listening) resolve()
    else
      server.close(() => {
        resolve()
      })
  })

const portOf = (server: Server | HttpServer): number => {
  const a = server.address()
  return typeof a === 'object' && a !== null ? a.port : 0
}

/**
 * Starts serving `options.engine` (or a new engine). Rejects with a {@link ServerStartError}
 * when the socket is held by a live daemon, a non-loopback bind has no
 * token, or an address is in use; whatever it had opened is closed again.
 *
 * @category server
 */
export const startServer = async <E extends Engine>(
  options: ServerOptions<E>,
): Promise<ServerHandle<E>> => {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  const max = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS
  const preAuth = { ...PRE_AUTH_DEFAULTS, ...options.preAuth }
  // The owner's socket, authenticated network peers, and strangers each have their own pool.
  const owner = new ConnectionSet(max)
  const connections = new ConnectionSet(max)
  const strangers = new ConnectionSet(preAuth.maxConnections)
  const socketPath =
    options.socket === undefined || options.socket === true
      ? defaultSocketPath()
      : options.socket === false
        ? undefined
        : options.socket
  const tcp = bindOf(options.tcp)
  const http = bindOf(options.http)
  const base =
    socketPath !== undefined ? socketPath.replace(/\.sock$/, '') : join(defaultDaemonDir(), 'nerve')

  for (const [name, bind] of [
    ['tcp', tcp],
    ['http', http],
  ] as const) {
    if (
      bind !== undefined &&
      !isLoopback(bind.host) &&
      options.token === undefined &&
      options.tokenFile === undefined
    ) {
      throw new ServerStartError(
        'TokenRequired',
        `${bind.host}:${bind.port}`,
        `${name} on ${bind.host} is reachable from other machines: give a token (or a tokenFile to generate one into)`,
      )
    }
  }
  for (const [name, value] of [
    ['maxLineBytes', maxLineBytes],
    ['requestTimeoutMs', requestTimeoutMs],
    ['preAuth.maxConnections', preAuth.maxConnections],
    ['preAuth.timeoutMs', preAuth.timeoutMs],
    ['preAuth.maxLineBytes', preAuth.maxLineBytes],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new ServerStartError(
        'BadOption',
        name,
        `${name} must be a positive integer, got ${value}`,
      )
    }
  }
  if (options.token !== undefined) checkToken(options.token, 'startServer')

  const engine = options.engine ?? (createEngine(options.engineOptions) as E)
  const networked = tcp !== undefined || http !== undefined
  const token = networked ? (options.token ?? generateToken()) : undefined
  const tokenFile =
    networked && options.token === undefined ? (options.tokenFile ?? `${base}.token`) : undefined
  const pidFile =
    options.pidFile === false
      ? undefined
      : (options.pidFile ?? (socketPath !== undefined ? `${base}.pid` : undefined))

  const servers: (Server | HttpServer)[] = []
  const sockets = new Set<Socket>()
  const owned: string[] = [] // files to remove on close
  const streamServer = (transport: 'unix' | 'tcp'): Server => {
    const server = createServer((socket) => {
      sockets.add(socket)
      socket.on('close', () => {
        sockets.delete(socket)
      })
      const served = {
        end: (): void => {
          socket.destroy()
        },
      }
      const end = (): void => {
        served.end()
      }
      // A TCP peer waits in the strangers' pool until it authenticates.
      let release = (transport === 'unix' ? owner : strangers).admit(end)
      if (release === undefined) {
        socket.on('error', () => undefined)
        socket.end(
          `${refusalLine(TransportCodes.tooManyConnections, 'TooManyConnections', `the daemon takes no more ${transport === 'unix' ? '' : 'unauthenticated '}connections now`)}\n`,
        )
        return
      }
      socket.on('close', () => {
        release?.()
      })
      served.end = serveStream(socket, engine, {
        maxLineBytes,
        token: transport === 'unix' ? undefined : token,
        preAuth,
        admit: () => {
          release?.()
          release = connections.admit(end)
          return release !== undefined
        },
        transport,
      }).end
    })
    servers.push(server)
    return server
  }

  let unixServer: Server | undefined
  let tcpServer: Server | undefined
  let webServer: HttpServer | undefined
  const access = new DashboardAccess()
  try {
    if (socketPath !== undefined) {
      await ensureSocketDir(socketPath)
      await claimSocketPath(socketPath)
      unixServer = streamServer('unix')
      await listen(unixServer, { path: socketPath })
      owned.push(socketPath)
      await chmod(socketPath, 0o600)
    }
    if (tcp !== undefined) {
      tcpServer = streamServer('tcp')
      await listen(tcpServer, tcp)
    }
    if (http !== undefined) {
      webServer = httpServer(engine, {
        maxLineBytes,
        token,
        connections,
        strangers,
        hosts: [...boundNames(http.host), ...(options.allowedHosts ?? [])],
        headersTimeoutMs: preAuth.timeoutMs,
        requestTimeoutMs,
        access,
        dashboardDir: options.dashboardDir,
      })
      servers.push(webServer)
      await listen(webServer, http)
    }
    if (tokenFile !== undefined && token !== undefined) {
      if (options.tokenFile === undefined) await ensureSocketDir(tokenFile)
      else await mkdir(dirname(tokenFile), { recursive: true, mode: 0o700 })
      await writeTokenFile(tokenFile, token)
      owned.push(tokenFile)
    }
    if (pidFile !== undefined) {
      if (options.pidFile === undefined) await ensureSocketDir(pidFile)
      else await mkdir(dirname(pidFile), { recursive: true, mode: 0o700 })
      await writeFileAtomic(pidFile, `${process.pid}\n`, { mode: 0o600 })
      owned.push(pidFile)
    }
  } catch (e) {
    await Promise.all(servers.map(closeServer))
    await Promise.all(owned.map(removeFile))
    if (options.engine === undefined) await engine.shutdown()
    throw e
  }

  let closing: Promise<void> | undefined
  let resolveClosed!: () => void
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve
  })
  const onSignal = (): void => {
    void close()
  }
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      // Stop accepting, let the engine finish (its SERVER_SHUTDOWN reaches subscribers), then hang up.
      const stopped = Promise.all(servers.map(closeServer))
      await engine.shutdown().catch(() => undefined)
      for (const set of [owner, connections, strangers]) set.endAll()
      webServer?.closeIdleConnections()
      const grace = setTimeout(() => {
        for (const s of sockets) s.destroy()
        webServer?.closeAllConnections()
      }, 1000)
      await stopped
      clearTimeout(grace)
      await Promise.all(owned.map(removeFile))
      if (options.signals === true) {
        process.off('SIGTERM', onSignal)
        process.off('SIGINT', onSignal)
      }
      resolveClosed()
    })())
  if (options.signals === true) {
    process.on('SIGTERM', onSignal)
    process.on('SIGINT', onSignal)
  }
  // A SHUTDOWN command (or any other shutdown of the engine) closes the server too.
  void engine.closed.then(close, close)

  const httpUrl =
    webServer !== undefined
      ? `http://${http!.host.includes(':') ? `[${http!.host}]` : http!.host}:${portOf(webServer)}`
      : undefined
  return Object.freeze({
    engine,
    socket: socketPath,
    tcp: tcpServer !== undefined ? { host: tcp!.host, port: portOf(tcpServer) } : undefined,
    http:
      webServer !== undefined
        ? {
            host: http!.host,
            port: portOf(webServer),
            url: httpUrl!,
          }
        : undefined,
    token,
    dashboardUrl: () =>
      httpUrl === undefined ? undefined : `${httpUrl}/login?handover=${access.handover()}`,
    tokenFile,
    pidFile,
    close,
    closed,
  })
}
