import type { GraphFileError } from '../../graph/index.js'
import { errorCategory, errorJson, taggedError } from '../../errors.js'
import { categoryCodes, type ErrorData, type WireError } from '../../protocol/index.js'

/**
 * The base of the errors the engine itself raises (beside those of the
 * session and the nodes, which it passes on): each is made by
 * `taggedError` with a category (which gives its wire code) and, where a
 * parameter is to blame, the `path` to it in `params`.
 *
 * @category engine errors
 */
export abstract class EngineError extends Error {
  declare readonly _tag: string
  /** A JSON pointer into the command's `params` to the value to blame. */
  declare readonly path: string | undefined
}

/**
 * No session with this id.
 *
 * @category engine errors
 */
export class UnknownSession extends taggedError('UnknownSession', 'notFound', EngineError)<{
  readonly sessionId: string
}> {
  constructor(sessionId: string, path = '/sessionId') {
    super(`there is no session "${sessionId}"`, { sessionId, path })
  }
}

/**
 * A session with this id exists already.
 *
 * @category engine errors
 */
export class SessionExists extends taggedError('SessionExists', 'conflict', EngineError)<{
  readonly sessionId: string
}> {
  constructor(sessionId: string) {
    super(`a session "${sessionId}" exists already`, { sessionId, path: '/sessionId' })
  }
}

/**
 * The default session cannot be closed (it closes with the engine).
 *
 * @category engine errors
 */
export class DefaultSession extends taggedError('DefaultSession', 'invalidState', EngineError)<{
  readonly sessionId: string
}> {
  constructor(sessionId: string) {
    super(`"${sessionId}" is the default session: it closes with the engine`, {
      sessionId,
      path: '/sessionId',
    })
  }
}

/**
 * No graph run with this id (or it ended so long ago that it was forgotten).
 *
 * @category engine errors
 */
export class UnknownRun extends taggedError('UnknownRun', 'notFound', EngineError)<{
  readonly runId: string
}> {
  constructor(runId: string) {
    super(`there is no run "${runId}"`, { runId, path: '/runId' })
  }
}

/**
 * No subscription with this id on this connection.
 *
 * @category engine errors
 */
export class UnknownSubscription extends taggedError(
  'UnknownSubscription',
  'notFound',
  EngineError,
)<{ readonly subscription: string }> {
  constructor(subscription: string) {
    super(`this connection has no subscription "${subscription}"`, {
      subscription,
      path: '/subscription',
    })
  }
}

/**
 * The command needs a terminal (a buffer, raw writes) and the node is of another kind.
 *
 * @category engine errors
 */
export class NotATerminal extends taggedError('NotATerminal', 'unsupported', EngineError)<{
  readonly nodeId: string
  readonly kind: string
}> {
  constructor(nodeId: string, kind: string) {
    super(`node "${nodeId}" is a ${kind} node, not a terminal`, { nodeId, kind, path: '/nodeId' })
  }
}

/**
 * An LLM node names a provider the engine does not have.
 *
 * @category engine errors
 */
export class UnknownProvider extends taggedError('UnknownProvider', 'unsupported', EngineError)<{
  readonly provider: string
  readonly known: readonly string[]
}> {
  constructor(provider: string, known: readonly string[]) {
    const key = KEY_OF[provider]
    super(
      `there is no provider "${provider}" (known: ${known.join(', ')})${key === undefined ? '' : `: set ${key} where the engine starts to have one`}`,
      {
        provider,
        known,
        path: '/options/provider',
      },
    )
  }
}

/** The variable that gives an engine each provider the environment can name. */
const KEY_OF: Readonly<Record<string, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  'openai-chat': 'OPENAI_BASE_URL',
  gemini: 'GEMINI_API_KEY',
}

/**
 * The engine has no session store to save to.
 *
 * @category engine errors
 */
export class NoStore extends taggedError('NoStore', 'unsupported', EngineError) {
  constructor() {
    super('the engine has no session store (EngineOptions.store)')
  }
}

/**
 * No recording with this id: neither in the engine's store nor of a
 * recorded run it keeps.
 *
 * @category engine errors
 */
export class UnknownRecording extends taggedError('UnknownRecording', 'notFound', EngineError)<{
  readonly recordingId: string
}> {
  constructor(recordingId: string) {
    super(`there is no recording "${recordingId}"`, { recordingId, path: '/recordingId' })
  }
}

/** The first errors of a file after `what`, one line: each by path and tag, or as `show` says. */
export const fileErrorsLine = <E extends { readonly _tag: string; readonly path: string }>(
  what: string,
  errors: readonly E[],
  show: (e: E) => string = (e) => `${e.path === '' ? '(file)' : e.path} ${e._tag}`,
): string =>
  `${what}: ${errors.slice(0, 3).map(show).join('; ')}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ''}`

/**
 * A graph-file value that does not decode; `errors` are the file's errors,
 * their paths prefixed with where the value is in `params`.
 *
 * @category engine errors
 */
export class GraphFileInvalid extends taggedError('GraphFileInvalid', 'invalidGraph', EngineError)<{
  readonly errors: readonly GraphFileError[]
}> {
  constructor(errors: readonly GraphFileError[]) {
    super(fileErrorsLine('the graph file is invalid', errors), { errors, path: errors[0]?.path })
  }
}

/**
 * The request was cancelled: by `CANCEL_REQUEST`, because its connection
 * closed, or because the engine is shutting down.
 *
 * @category engine errors
 */
export class RequestCancelled extends taggedError('RequestCancelled', 'cancelled', EngineError)<{
  readonly why: string
}> {
  constructor(why: string) {
    super(`the request was cancelled: ${why}`, { why })
  }
}

/**
 * No answer within the call's `timeout`; `partial` is the output so far, when known.
 *
 * @category engine errors
 */
export class RequestTimeout extends taggedError('RequestTimeout', 'timeout', EngineError)<{
  readonly timeoutMs: number
  readonly partial: string | undefined
}> {
  constructor(timeoutMs: number, partial?: string) {
    super(`no answer within ${timeoutMs} ms`, { timeoutMs, partial, path: '/timeout' })
  }
}

/**
 * A per-connection limit was reached (`limit` names it).
 *
 * @category engine errors
 */
export class LimitReached extends taggedError('LimitReached', 'limitExceeded', EngineError)<{
  readonly limit: string
  readonly max: number
}> {
  constructor(limit: string, max: number) {
    super(`this connection reached its limit of ${max} ${limit}`, { limit, max })
  }
}

/**
 * The engine is shutting down: it takes no more work.
 *
 * @category engine errors
 */
export class ShuttingDown extends taggedError('ShuttingDown', 'unavailable', EngineError) {
  constructor() {
    super('the engine is shutting down')
  }
}

/**
 * The `options` of a node (or another value of `params`) that the node's
 * constructor refused; `path` points at them.
 *
 * @category engine errors
 */
export class InvalidOptions extends taggedError('InvalidOptions', 'invalidInput', EngineError) {
  constructor(message: string, path = '/options') {
    super(message, { path })
  }
}

/**
 * `CREATE_NODE` names a kind the engine does not make; `known` lists those
 * it makes.
 *
 * @category engine errors
 */
export class UnknownKind extends taggedError('UnknownKind', 'invalidInput', EngineError)<{
  readonly kind: string
  readonly known: readonly string[]
}> {
  constructor(kind: string, known: readonly string[]) {
    super(`there is no node kind "${kind}" (known: ${known.join(', ')})`, {
      kind,
      known,
      path: '/kind',
    })
  }
}

/** The params keys that name nodes, where an error about a node name points. */
const NODE_KEYS = ['nodeId', 'sourceId', 'targetId'] as const
/** A name taken is the one a command makes: the target of a fork first. */
const MADE_KEYS = ['targetId', 'nodeId', 'sourceId'] as const

/**
 * The path of the params key an error without a path of its own is about:
 * the key holding the node it names (`nodeName`), or `parser` for a parser
 * it does not know.
 */
const paramPath = (e: unknown, params: unknown): string | undefined => {
  if (typeof params !== 'object' || params === null || typeof e !== 'object' || e === null) {
    return undefined
  }
  const p = params as Record<string, unknown>
  const { parser, nodeName, _tag } = e as { parser?: unknown; nodeName?: unknown; _tag?: unknown }
  if (_tag === 'UnknownParser' && parser === p.parser) return '/parser'
  if (typeof nodeName !== 'string') return undefined
  const key = (_tag === 'NameTaken' ? MADE_KEYS : NODE_KEYS).find((k) => p[k] === nodeName)
  return key === undefined ? undefined : `/${key}`
}

/**
 * What the engine answers for an error a command ended with: the code of
 * its category (see `categoryCodes`: `ExecutionFailed` for a failure of
 * the work, `InternalError` for a plain `Error`, a `RangeError` or a
 * `TypeError`), its message, and `data`: the error as `errorJson` shows it
 * (`{ tag, path?, ...details }`) without the message. An error about a
 * node with no path of its own (`UnknownNode`, `NameTaken`, …) points at
 * the key of `params` that named it.
 *
 * @category engine errors
 */
export const toWireError = (e: unknown, params?: unknown): WireError => {
  const { message, path, ...rest } = errorJson(e)
  const where = path ?? paramPath(e, params)
  const data: ErrorData = { ...rest, ...(where !== undefined && { path: where }) }
  return { code: categoryCodes[errorCategory(e)], message, data }
}
