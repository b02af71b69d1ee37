/**
 * The SDK's client on an engine in this process: the same lines as a
 * socket, no socket. It lives beside the engine so that the client itself
 * loads no engine (nor its native addons).
 */
import { ConnectionError, NerveClient, type WireOpener } from '../../client/index.js'
import { createEngine, type Engine } from './Engine.js'
import type { EngineOptions } from './options.js'

/**
 * A wire to an engine in this process: the same lines, no socket. An
 * engine that shuts down (`SHUTDOWN`, or its owner) ends the connection
 * like a daemon that exits.
 *
 * @category server
 */
export const inProcessWire =
  (engine: Engine): WireOpener =>
  (handlers) => {
    let closed = false
    const connection = engine.connect(
      {
        send: (line) => {
          if (!closed) handlers.line(line)
          return true
        },
      },
      { transport: 'in-process' },
    )
    const close = (why: string): void => {
      if (closed) return
      closed = true
      connection.close()
      handlers.closed(new ConnectionError('in-process', why))
    }
    void engine.closed.then(() => {
      close('the engine shut down')
    })
    return Promise.resolve({
      address: 'in-process',
      events: true,
      send: (line) => {
        if (!closed) connection.receive(line)
      },
      close: () => {
        close('closed')
      },
    })
  }

/**
 * A client on an engine of its own in this process (no daemon, no socket);
 * the client's `close()` shuts the engine down.
 *
 * @category server
 * @example
 * import { standaloneClient } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * const client = await standaloneClient({ history: false })
 * assert.deepStrictEqual(await client.ping(), { pong: true })
 * assert.strictEqual(client.address, 'in-process')
 * await client.close()
 */
export const standaloneClient = (options: EngineOptions = {}): Promise<NerveClient> => {
  const engine = createEngine(options)
  return NerveClient.open(inProcessWire(engine), () => engine.shutdown())
}

/**
 * A client on an engine already running in this process (it stays up after
 * the client's `close()`).
 *
 * @category server
 */
export const inProcessClient = (engine: Engine): Promise<NerveClient> =>
  NerveClient.open(inProcessWire(engine))
