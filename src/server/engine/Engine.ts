import { Connection, type ConnectionSink, type EngineConnection } from './Connection.js'
import { Core } from './Core.js'
import type { EngineOptions } from './options.js'

/**
 * The engine behind the daemon: commands in, events out. It owns one
 * session manager (a default session and named ones) and answers the
 * protocol's commands on each connection a transport opens; it does no
 * I/O of its own beyond what sessions and interpreters do.
 *
 * @category engine
 */
export interface Engine {
  /** A new peer: its lines go to `receive`, its messages out through `sink`. */
  connect(sink: ConnectionSink, info?: { readonly transport: string }): EngineConnection
  /** Graceful: cancel running graphs, stop nodes, save sessions, emit SERVER_SHUTDOWN to subscribers. */
  shutdown(): Promise<void>
  /** Resolves once shutdown finished (after SHUTDOWN command or shutdown()); the host then closes sockets. */
  readonly closed: Promise<void>
}

/**
 * An {@link Engine}. Transports (Unix socket, TCP, HTTP, WebSocket) and
 * in-process callers `connect` to it with a sink; each NDJSON line of the
 * peer goes to the connection's `receive`.
 *
 * @category engine
 * @example
 * import { createEngine } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * const engine = createEngine({ history: false })
 * const out: string[] = []
 * const connection = engine.connect({ send: (line) => out.push(line) > 0 })
 * connection.receive('{"jsonrpc":"2.0","id":1,"method":"PING"}')
 * await new Promise((resolve) => setTimeout(resolve, 10))
 * assert.deepStrictEqual(JSON.parse(out[0]!), { jsonrpc: '2.0', id: 1, result: { pong: true } })
 * await engine.shutdown()
 */
export const createEngine = (options: EngineOptions = {}): Engine => {
  const core = new Core(options)
  return Object.freeze({
    connect(sink: ConnectionSink): EngineConnection {
      const connection = new Connection(core, sink)
      core.listeners.add(connection)
      return connection
    },
    shutdown: () => core.shutdown(),
    closed: core.closed,
  })
}
