import { errorCategories, taggedError, type ErrorCategory } from '../errors.js'

/**
 * The error codes of the wire. The JSON-RPC 2.0 ones (`-32700` … `-32603`)
 * say that a message could not be taken as a call; the application ones
 * (`-32000` … `-32099`, the range JSON-RPC leaves to servers) say why a
 * well-formed call failed. `error.data.tag` names the exact error
 * (`UnknownNode`, `NameTaken`, …); the code groups tags.
 *
 * @category protocol
 */
export const ErrorCode = Object.freeze({
  /** The line is not JSON. */
  ParseError: -32700,
  /** JSON, but not a JSON-RPC 2.0 request (no `method`, a bad `id`, a batch). */
  InvalidRequest: -32600,
  /** `method` is not a command of the protocol. */
  MethodNotFound: -32601,
  /** `params` do not decode; `error.data.path` points at the bad value. */
  InvalidParams: -32602,
  /** A bug: the engine failed in a way it did not foresee. */
  InternalError: -32603,
  /** A session, node or run that does not exist. */
  NotFound: -32001,
  /** A name already in use. */
  Conflict: -32002,
  /** The node cannot do that (fork a bash… a buffer of a non-terminal, an unknown provider). */
  Unsupported: -32003,
  /** The node is stopped (or stopping), or the session is closed. */
  InvalidState: -32004,
  /** The call was cancelled (`CANCEL_REQUEST`, the peer went away, a cancelled run). */
  Cancelled: -32005,
  /** The answer did not come within the call's `timeout`. */
  Timeout: -32006,
  /** The node ran and failed (a command's non-zero exit, a program that ended, a model error). */
  ExecutionFailed: -32007,
  /** A graph-file value that does not decode or does not form a valid graph. */
  InvalidGraph: -32008,
  /** A per-connection limit (subscriptions, requests in flight) is reached. */
  LimitExceeded: -32009,
  /** The engine is shutting down and takes no more work. */
  ShuttingDown: -32010,
  /** A store or history file could not be read or written. */
  StorageFailed: -32011,
} as const)

/**
 * One of the {@link ErrorCode} values.
 *
 * @category protocol
 */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode]

/**
 * What travels in `error.data`: the tag of the error (its class name on the
 * server), where the bad value is (`path`, a JSON pointer into `params`),
 * and details of that tag (e.g. `nodeId`, `errors` of a graph file).
 *
 * @category protocol
 */
export interface ErrorData {
  readonly tag: string
  readonly path?: string
  readonly [detail: string]: unknown
}

/**
 * A JSON-RPC error object as the engine sends it.
 *
 * @category protocol
 */
export interface WireError {
  readonly code: number
  readonly message: string
  readonly data?: ErrorData
}

/**
 * The code of each error category: what the engine answers for an error
 * of that category (its tag goes in `error.data.tag`).
 *
 * @category protocol
 */
export const categoryCodes: Readonly<Record<ErrorCategory, ErrorCode>> = Object.freeze({
  notFound: ErrorCode.NotFound,
  conflict: ErrorCode.Conflict,
  unsupported: ErrorCode.Unsupported,
  invalidInput: ErrorCode.InvalidParams,
  invalidGraph: ErrorCode.InvalidGraph,
  invalidState: ErrorCode.InvalidState,
  limitExceeded: ErrorCode.LimitExceeded,
  unavailable: ErrorCode.ShuttingDown,
  timeout: ErrorCode.Timeout,
  cancelled: ErrorCode.Cancelled,
  storage: ErrorCode.StorageFailed,
  failed: ErrorCode.ExecutionFailed,
  internal: ErrorCode.InternalError,
})

/**
 * The category of a code: the inverse of {@link categoryCodes}; the
 * JSON-RPC codes of a message that is not a call (`ParseError`,
 * `InvalidRequest`, `MethodNotFound`) are `invalidInput`, a code the
 * protocol does not have `failed`.
 *
 * @category protocol
 */
export const categoryOfCode = (code: number): ErrorCategory => {
  if (code === ErrorCode.ParseError || code === ErrorCode.InvalidRequest) return 'invalidInput'
  if (code === ErrorCode.MethodNotFound) return 'invalidInput'
  return errorCategories.find((c) => categoryCodes[c] === code) ?? 'failed'
}

/**
 * An error the engine answered a call with, as a value: the client rebuilds
 * one from each error reply (see {@link protocolError}), so a caller can
 * branch on `tag`, `category` and `code`. It stands for the daemon's error:
 * it is shown with the daemon's tag, path and details.
 *
 * @category protocol
 * @example
 * import { ErrorCode, protocolError } from 'nerve-agents/protocol'
 * import assert from 'assert'
 *
 * const e = protocolError({ code: -32001, message: 'no node "x"', data: { tag: 'UnknownNode', nodeId: 'x' } })
 * assert.strictEqual(e.tag, 'UnknownNode')
 * assert.strictEqual(e.code, ErrorCode.NotFound)
 * assert.strictEqual(e.category, 'notFound')
 * assert.strictEqual(e.data.nodeId, 'x')
 */
export class ProtocolError extends taggedError('ProtocolError', 'failed') {
  override readonly category: ErrorCategory
  readonly code: number
  /** `error.data.tag`, or the JSON-RPC name of the code when the reply has none. */
  readonly tag: string
  readonly path: string | undefined
  readonly data: ErrorData
  constructor(error: WireError) {
    super(error.message)
    this.code = error.code
    this.category = categoryOfCode(error.code)
    this.tag = error.data?.tag ?? codeName(error.code)
    this.path = error.data?.path
    this.data = error.data ?? { tag: this.tag }
  }
  /** The daemon's details: `error.data` without its tag and path. */
  override get details(): Readonly<Record<string, unknown>> {
    const { tag: _tag, path: _path, ...details } = this.data
    return details
  }
}

/**
 * The name of a code (`NotFound` for `-32001`), or `Error` for a code the protocol does not have.
 *
 * @category protocol
 */
export const codeName = (code: number): string =>
  Object.entries(ErrorCode).find(([, c]) => c === code)?.[0] ?? 'Error'

/**
 * A {@link ProtocolError} from the `error` of a reply.
 *
 * @category protocol
 */
export const protocolError = (error: WireError): ProtocolError => new ProtocolError(error)
