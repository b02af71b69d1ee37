/**
 * Why `startServer` refused to start, and the transport's own error replies
 * (a line over the bound, a missing or wrong token, too many connections),
 * which it answers without troubling the engine.
 */
import { taggedError, type ErrorCategory } from '../../errors.js'

/**
 * `startServer` could not start: the socket is held by a live daemon, the
 * path is not a socket, a non-loopback bind has no token, a token is too
 * short (`TokenTooWeak`), the socket's directory belongs to another user
 * (`UnsafeDirectory`), or an address is in use. `path` names what was
 * refused: the socket file, its directory, `token` or `host:port`.
 *
 * @category server
 * @example
 * import { ServerStartError } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * const e = new ServerStartError('TokenRequired', '0.0.0.0:7070', 'binding 0.0.0.0 needs a token')
 * assert.strictEqual(e.path, '0.0.0.0:7070')
 * assert.match(e.message, /needs a token/)
 */
export class ServerStartError extends taggedError('ServerStartError', 'failed')<{
  /** What went wrong. */
  readonly reason: StartRefusal
  /** The socket path or `host:port` that was refused. */
  readonly path: string
}> {
  override readonly category: ErrorCategory
  constructor(reason: StartRefusal, path: string, message: string, options?: { cause?: unknown }) {
    super(`startServer: ${message} (${reason})`, { reason, path }, options)
    this.category = REFUSAL_CATEGORY[reason]
  }
}

/**
 * Why {@link ServerStartError}: what was refused.
 *
 * @category server
 */
export type StartRefusal =
  | 'DaemonRunning'
  | 'NotASocket'
  | 'TokenRequired'
  | 'TokenTooWeak'
  | 'UnsafeDirectory'
  | 'AddressInUse'
  | 'BadOption'

const REFUSAL_CATEGORY: Readonly<Record<StartRefusal, ErrorCategory>> = {
  DaemonRunning: 'conflict',
  AddressInUse: 'conflict',
  NotASocket: 'invalidState',
  UnsafeDirectory: 'invalidState',
  TokenRequired: 'invalidInput',
  TokenTooWeak: 'invalidInput',
  BadOption: 'invalidInput',
}

/**
 * JSON-RPC error codes the transports answer with themselves (the engine's
 * codes are the protocol's).
 *
 * @category server
 */
export const TransportCodes = {
  /** The request is not valid: used for a line over the bound. */
  invalidRequest: -32600,
  /** No token, or a wrong one (outside the engine's application codes). */
  unauthorized: -32020,
  /** The daemon has as many connections as it takes: the protocol's `LimitExceeded`. */
  tooManyConnections: -32009,
} as const

/**
 * A JSON-RPC error response line (no newline) with `id` null, as a transport
 * sends it for a line it would not hand to the engine. `data.tag` names the
 * cause for programs.
 *
 * @category server
 * @example
 * import { refusalLine } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * const line = refusalLine(-32020, 'Unauthorized', 'wrong token')
 * assert.deepStrictEqual(JSON.parse(line), {
 *   jsonrpc: '2.0',
 *   id: null,
 *   error: { code: -32020, message: 'wrong token', data: { tag: 'Unauthorized' } },
 * })
 */
export const refusalLine = (
  code: number,
  tag: string,
  message: string,
  id: string | number | null = null,
): string => JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, data: { tag } } })
