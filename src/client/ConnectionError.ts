/**
 * The client's own error: the connection to the daemon could not be made,
 * was refused (a wrong token), or was lost. Every call pending when it is
 * lost rejects with it at once; so does every later call.
 */
import { taggedError } from '../errors.js'

/**
 * The daemon could not be reached, refused the connection, or went away.
 * `address` names where the client was connected (a socket path, a URL,
 * `host:port`, `in-process`).
 *
 * @category client
 * @example
 * import { NerveClient, ConnectionError } from 'nerve-agents/client'
 * import assert from 'assert'
 *
 * const e = await NerveClient.connect('/nonexistent/nerve.sock').catch((x: unknown) => x)
 * assert.ok(e instanceof ConnectionError)
 * assert.strictEqual(e.address, '/nonexistent/nerve.sock')
 */
export class ConnectionError extends taggedError('ConnectionError', 'unavailable')<{
  /** Where the client was connected. */
  readonly address: string
}> {
  constructor(address: string, message: string, options?: { cause?: unknown }) {
    super(`${address}: ${message}`, { address }, options)
  }
}
