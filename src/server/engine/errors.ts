import type { GraphFileError } from '../../graph/index.js'
import { ErrorCode, type ErrorData, type WireError } from '../../protocol/index.js'
import { tagOf, toJson } from './json.js'

/**
 * The base of the errors the engine itself raises (beside those of the
 * session and the nodes, which it passes on): each has a `_tag`, the wire
 * `code` and, where a parameter is to blame, the `path` to it in `params`.
 *
 * @category engine errors
 */
export abstract class EngineError extends Error {
  abstract readonly _tag: string
  abstract readonly code: number
  readonly path: string | undefined
  constructor(message: string, path?: string) {
    super(message)
    this.path = path
  }
}

/**
 * No session with this id.
 *
 * @category engine errors
 */
export class UnknownSession extends EngineError {
  readonly _tag = 'UnknownSession'
  readonly code = ErrorCode.NotFound
  constructor(readonly sessionId: string) {
    super(`there is no session "${sessionId}"`, '/sessionId')
    this.name = 'UnknownSession'
  }
}

/**
 * A session with this id exists already.
 *
 * @category engine errors
 */
export class SessionExists extends EngineError {
  readonly _tag = 'SessionExists'
  readonly code = ErrorCode.Conflict
  constructor(readonly sessionId: string) {
    super(`a session "${sessionId}" exists already`, '/sessionId')
    this.name = 'SessionExists'
  }
}

/**
 * The default session cannot be closed (it closes with the engine).
 *
 * @category engine errors
 */
export class DefaultSession extends EngineError {
  readonly _tag = 'DefaultSession'
  readonly code = ErrorCode.InvalidState
  constructor(readonly sessionId: string) {
    super(`"${sessionId}" is the default session: it closes with the engine`, '/sessionId')
    this.name = 'DefaultSession'
  }
}

/**
 * No graph run with this id (or it ended so long ago that it was forgotten).
 *
 * @category engine errors
 */
export class UnknownRun extends EngineError {
  readonly _tag = 'UnknownRun'
  readonly code = ErrorCode.NotFound
  constructor(readonly runId: string) {
    super(`there is no run "${runId}"`, '/runId')
    this.name = 'UnknownRun'
  }
}

/**
 * No subscription with this id on this connection.
 *
 * @category engine errors
 */
export class UnknownSubscription extends EngineError {
  readonly _tag = 'UnknownSubscription'
  readonly code = ErrorCode.NotFound
  constructor(readonly subscription: string) {
    super(`this connection has no subscription "${subscription}"`, '/subscription')
    this.name = 'UnknownSubscription'
  }
}

/**
 * The command needs a terminal (a buffer, raw writes) and the node is of another kind.
 *
 * @category engine errors
 */
export class NotATerminal extends EngineError {
  readonly _tag = 'NotATerminal'
  readonly code = ErrorCode.Unsupported
  constructor(
    readonly nodeId: string,
    readonly kind: string,
  ) {
    super(`node "${nodeId}" is a ${kind} node, not a terminal`, '/nodeId')
    this.name = 'NotATerminal'
  }
}

/**
 * An LLM node names a provider the engine does not have.
 *
 * @category engine errors
 */
export class UnknownProvider extends EngineError {
  readonly _tag = 'UnknownProvider'
  readonly code = ErrorCode.Unsupported
  constructor(
    readonly provider: string,
    readonly known: readonly string[],
  ) {
    super(`there is no provider "${provider}" (known: ${known.join(', ')})`, '/options/provider')
    this.name = 'UnknownProvider'
  }
}

/**
 * The engine has no session store to save to.
 *
 * @category engine errors
 */
export class NoStore extends EngineError {
  readonly _tag = 'NoStore'
  readonly code = ErrorCode.Unsupported
  constructor() {
    super('the engine has no session store (EngineOptions.store)')
    this.name = 'NoStore'
  }
}

/**
 * No recording with this id: neither in the engine's store nor of a
 * recorded run it keeps.
 *
 * @category engine errors
 */
export class UnknownRecording extends EngineError {
  readonly _tag = 'UnknownRecording'
  readonly code = ErrorCode.NotFound
  constructor(readonly recordingId: string) {
    super(`there is no recording "${recordingId}"`, '/recordingId')
    this.name = 'UnknownRecording'
  }
}

/** The first errors of a file, by path and tag, after `what`: one line. */
export const fileErrorsLine = (
  what: string,
  errors: readonly { readonly _tag: string; readonly path: string }[],
): string =>
  `${what}: ${errors
    .slice(0, 3)
    .map((e) => `${e.path === '' ? '(file)' : e.path} ${e._tag}`)
    .join('; ')}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ''}`

/**
 * A graph-file value that does not decode; `errors` are the file's errors,
 * their paths prefixed with where the value is in `params`.
 *
 * @category engine errors
 */
export class GraphFileInvalid extends EngineError {
  readonly _tag = 'GraphFileInvalid'
  readonly code = ErrorCode.InvalidGraph
  constructor(readonly errors: readonly GraphFileError[]) {
    super(fileErrorsLine('the graph file is invalid', errors), errors[0]?.path)
    this.name = 'GraphFileInvalid'
  }
}

/**
 * The request was cancelled: by `CANCEL_REQUEST`, because its connection
 * closed, or because the engine is shutting down.
 *
 * @category engine errors
 */
export class RequestCancelled extends EngineError {
  readonly _tag = 'RequestCancelled'
  readonly code = ErrorCode.Cancelled
  constructor(readonly why: string) {
    super(`the request was cancelled: ${why}`)
    this.name = 'RequestCancelled'
  }
}

/**
 * No answer within the call's `timeout`; `partial` is the output so far, when known.
 *
 * @category engine errors
 */
export class RequestTimeout extends EngineError {
  readonly _tag = 'RequestTimeout'
  readonly code = ErrorCode.Timeout
  constructor(
    readonly timeoutMs: number,
    readonly partial?: string,
  ) {
    super(`no answer within ${timeoutMs} ms`, '/timeout')
    this.name = 'RequestTimeout'
  }
}

/**
 * A per-connection limit was reached (`limit` names it).
 *
 * @category engine errors
 */
export class LimitReached extends EngineError {
  readonly _tag = 'LimitReached'
  readonly code = ErrorCode.LimitExceeded
  constructor(
    readonly limit: string,
    readonly max: number,
  ) {
    super(`this connection reached its limit of ${max} ${limit}`)
    this.name = 'LimitReached'
  }
}

/**
 * The engine is shutting down: it takes no more work.
 *
 * @category engine errors
 */
export class ShuttingDown extends EngineError {
  readonly _tag = 'ShuttingDown'
  readonly code = ErrorCode.ShuttingDown
  constructor() {
    super('the engine is shutting down')
    this.name = 'ShuttingDown'
  }
}

/**
 * The `options` of a node (or another value of `params`) that the node's
 * constructor refused; `path` points at them.
 *
 * @category engine errors
 */
export class InvalidOptions extends EngineError {
  readonly _tag = 'InvalidOptions'
  readonly code = ErrorCode.InvalidParams
  constructor(message: string, path = '/options') {
    super(message, path)
    this.name = 'InvalidOptions'
  }
}

/**
 * `CREATE_NODE` names a kind the engine does not make; `known` lists those
 * it makes.
 *
 * @category engine errors
 */
export class UnknownKind extends EngineError {
  readonly _tag = 'UnknownKind'
  readonly code = ErrorCode.InvalidParams
  constructor(
    readonly kind: string,
    readonly known: readonly string[],
  ) {
    super(`there is no node kind "${kind}" (known: ${known.join(', ')})`, '/kind')
    this.name = 'UnknownKind'
  }
}

/** The code of the errors of the layers below, by tag. */
const CODES: Readonly<Record<string, number>> = {
  UnknownNode: ErrorCode.NotFound,
  UnknownNodeRef: ErrorCode.NotFound,
  NameTaken: ErrorCode.Conflict,
  NotForkable: ErrorCode.Unsupported,
  MissingInterpreter: ErrorCode.Unsupported,
  NodeStopped: ErrorCode.InvalidState,
  SessionClosed: ErrorCode.InvalidState,
  Cancelled: ErrorCode.Cancelled,
  StepTimeout: ErrorCode.Timeout,
  TerminalTimeout: ErrorCode.Timeout,
  TerminalDialog: ErrorCode.InvalidState,
  InvalidGraph: ErrorCode.InvalidGraph,
  LinkCycle: ErrorCode.InvalidGraph,
  UnknownLinkHandle: ErrorCode.InvalidGraph,
  UsageError: ErrorCode.InvalidParams,
  UnknownParser: ErrorCode.InvalidParams,
  StoreCorrupt: ErrorCode.StorageFailed,
  MissingBinary: ErrorCode.Unsupported,
}

const SKIP: ReadonlySet<string> = new Set([
  '_tag',
  'code',
  'path',
  'stack',
  'message',
  'name',
  'cause',
])

/** Fields of an error that go into `error.data` beside the tag (primitives, and a few known values). */
const detailsOf = (e: object): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(e)) {
    if (SKIP.has(key)) continue
    if (key === 'partial' && typeof value === 'string') out[key] = value.slice(-4000)
    else if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
      out[key] = value
    } else if (key === 'errors' || key === 'result' || key === 'known' || key === 'cycle') {
      out[key] = value
    }
  }
  return out
}

/** The errors JavaScript itself throws: a bug or an exhausted resource, never a node's failure. */
const BUILT_IN: ReadonlySet<string> = new Set([
  'RangeError',
  'TypeError',
  'ReferenceError',
  'SyntaxError',
  'EvalError',
  'URIError',
  'AggregateError',
])

/** The params keys that name nodes, where an error about a node name points. */
const NODE_KEYS = ['nodeId', 'sourceId', 'targetId'] as const

/**
 * The path of the params key an error is about: the key holding the node
 * it names (`nodeName`), or `parser` for a parser it does not know.
 */
const paramPath = (e: object, params: unknown): string | undefined => {
  if (typeof params !== 'object' || params === null) return undefined
  const p = params as Record<string, unknown>
  const parser = (e as { parser?: unknown }).parser
  if (tagOf(e) === 'UnknownParser' && parser === p.parser) return '/parser'
  const name = (e as { nodeName?: unknown }).nodeName
  if (typeof name !== 'string') return undefined
  const key = NODE_KEYS.find((k) => p[k] === name)
  return key === undefined ? undefined : `/${key}`
}

/**
 * What the engine answers for an error a command ended with: the wire code
 * of its tag (an engine error's own; `ExecutionFailed` for the node
 * failures; `InternalError` for anything else, a plain `RangeError` or
 * `TypeError` included), its message, and
 * `data: { tag, path?, ...details }`. An error about a node (`UnknownNode`,
 * `NameTaken`, …) points at the key of `params` that named it.
 *
 * @category engine errors
 */
export const toWireError = (e: unknown, params?: unknown): WireError => {
  const tag = tagOf(e)
  if (typeof e !== 'object' || e === null) {
    return { code: ErrorCode.InternalError, message: String(e), data: { tag: 'Error' } }
  }
  const code =
    e instanceof EngineError
      ? e.code
      : (CODES[tag] ??
        (e instanceof Error && tag !== 'Error' && !BUILT_IN.has(tag)
          ? ErrorCode.ExecutionFailed
          : ErrorCode.InternalError))
  const path = e instanceof EngineError ? e.path : paramPath(e, params)
  const data: ErrorData = {
    ...detailsOf(e),
    tag,
    ...(path !== undefined && { path }),
  }
  const message = e instanceof Error ? e.message : (toJson(e) ?? 'an error value')
  return { code, message, data }
}
