/**
 * The base of every error a {@link Session} (and `fork`, the factories and the
 * session manager) throws or rejects with because of its state: a name
 * already taken, a node it does not have, a node that cannot fork, a node
 * that is stopped, a session that is closed, a start that failed.
 * `sessionId` names the session; `nodeName`, where there is one, the node.
 *
 * Misuse (a bad argument) is a `UsageError` instead.
 *
 * @category session errors
 */
export abstract class SessionError extends Error {
  abstract readonly _tag: string
  readonly sessionId: string

  constructor(sessionId: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.sessionId = sessionId
  }
}

/**
 * A node name that the session already has (or is about to have: a fork in
 * progress holds its new name).
 *
 * @category session errors
 * @example
 * import { createSession, fn } from 'nerve-agents'
 * import { NameTaken } from 'nerve-agents/session'
 * import assert from 'assert'
 *
 * const session = createSession({ name: 'demo' })
 * session.register(fn('one', () => 1))
 * assert.throws(() => session.register(fn('one', () => 2)), NameTaken)
 */
export class NameTaken extends SessionError {
  readonly _tag = 'NameTaken'
  readonly nodeName: string
  constructor(sessionId: string, nodeName: string) {
    super(sessionId, `session "${sessionId}" already has a node named "${nodeName}"`)
    this.name = 'NameTaken'
    this.nodeName = nodeName
  }
}

/**
 * A node name that the session does not have.
 *
 * @category session errors
 */
export class UnknownNode extends SessionError {
  readonly _tag = 'UnknownNode'
  readonly nodeName: string
  constructor(sessionId: string, nodeName: string) {
    super(sessionId, `session "${sessionId}" has no node named "${nodeName}"`)
    this.name = 'UnknownNode'
    this.nodeName = nodeName
  }
}

/**
 * A node whose kind cannot fork: its interpreter has no `fork` capability,
 * or the session has no interpreter for its kind.
 *
 * @category session errors
 */
export class NotForkable extends SessionError {
  readonly _tag = 'NotForkable'
  readonly nodeName: string
  readonly kind: string
  constructor(sessionId: string, nodeName: string, kind: string, reason = 'cannot fork') {
    super(sessionId, `node "${nodeName}" of session "${sessionId}": a ${kind} node ${reason}`)
    this.name = 'NotForkable'
    this.nodeName = nodeName
    this.kind = kind
  }
}

/**
 * A node that is stopped (or stopping) was asked to start, execute or fork.
 * `stopped` is final: to run it again, register a new node.
 *
 * @category session errors
 */
export class NodeStopped extends SessionError {
  readonly _tag = 'NodeStopped'
  readonly nodeName: string
  readonly state: 'stopping' | 'stopped'
  constructor(sessionId: string, nodeName: string, state: 'stopping' | 'stopped') {
    super(sessionId, `node "${nodeName}" of session "${sessionId}" is ${state}`)
    this.name = 'NodeStopped'
    this.nodeName = nodeName
    this.state = state
  }
}

/**
 * An execute did not answer within the `timeoutMs` it was given: it was
 * stopped then (its node's signal aborted, a terminal interrupted).
 *
 * @category session errors
 */
export class ExecuteTimeout extends SessionError {
  readonly _tag = 'ExecuteTimeout'
  readonly nodeName: string
  readonly timeoutMs: number
  constructor(sessionId: string, nodeName: string, timeoutMs: number) {
    super(
      sessionId,
      `node "${nodeName}" of session "${sessionId}": no answer within ${timeoutMs} ms`,
    )
    this.name = 'ExecuteTimeout'
    this.nodeName = nodeName
    this.timeoutMs = timeoutMs
  }
}

/**
 * The session is closed: it registers, starts, executes and forks nothing more.
 *
 * @category session errors
 */
export class SessionClosed extends SessionError {
  readonly _tag = 'SessionClosed'
  constructor(sessionId: string) {
    super(sessionId, `session "${sessionId}" is closed`)
    this.name = 'SessionClosed'
  }
}

/**
 * A node's interpreter failed to start it (the node is then `stopped`);
 * `cause` is what the interpreter threw. For a graph, `nodeName` is the
 * node inside it that failed.
 *
 * @category session errors
 */
export class StartFailed extends SessionError {
  readonly _tag = 'StartFailed'
  readonly nodeName: string
  constructor(sessionId: string, nodeName: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause)
    super(sessionId, `node "${nodeName}" of session "${sessionId}" failed to start: ${why}`, {
      cause,
    })
    this.name = 'StartFailed'
    this.nodeName = nodeName
  }
}

/**
 * Whether a value is a {@link SessionError}.
 *
 * @category guards
 */
export const isSessionError = (u: unknown): u is SessionError => u instanceof SessionError
