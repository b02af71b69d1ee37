import { taggedError } from '../errors.js'
import { showIllegalTransition, type NodeState } from '../node/NodeState.js'

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
  declare readonly _tag: string
  /** The session the error is about. */
  declare readonly sessionId: string
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
export class NameTaken extends taggedError('NameTaken', 'conflict', SessionError)<{
  readonly sessionId: string
  readonly nodeName: string
}> {
  constructor(sessionId: string, nodeName: string) {
    super(`session "${sessionId}" already has a node named "${nodeName}"`, {
      sessionId,
      nodeName,
    })
  }
}

/**
 * A node name that the session does not have.
 *
 * @category session errors
 */
export class UnknownNode extends taggedError('UnknownNode', 'notFound', SessionError)<{
  readonly sessionId: string
  readonly nodeName: string
}> {
  constructor(sessionId: string, nodeName: string) {
    super(`session "${sessionId}" has no node named "${nodeName}"`, { sessionId, nodeName })
  }
}

/**
 * A node whose kind cannot fork: its interpreter has no `fork` capability,
 * or the session has no interpreter for its kind.
 *
 * @category session errors
 */
export class NotForkable extends taggedError('NotForkable', 'unsupported', SessionError)<{
  readonly sessionId: string
  readonly nodeName: string
  readonly kind: string
}> {
  constructor(sessionId: string, nodeName: string, kind: string, reason = 'cannot fork') {
    super(`node "${nodeName}" of session "${sessionId}": a ${kind} node ${reason}`, {
      sessionId,
      nodeName,
      kind,
    })
  }
}

/**
 * A node that is stopped (or stopping) was asked to start, execute or fork.
 * `stopped` is final: to run it again, register a new node.
 *
 * @category session errors
 */
export class NodeStopped extends taggedError('NodeStopped', 'invalidState', SessionError)<{
  readonly sessionId: string
  readonly nodeName: string
  readonly state: 'stopping' | 'stopped'
}> {
  constructor(sessionId: string, nodeName: string, state: 'stopping' | 'stopped') {
    super(`node "${nodeName}" of session "${sessionId}" is ${state}`, {
      sessionId,
      nodeName,
      state,
    })
  }
}

/**
 * An execute did not answer within the `timeoutMs` it was given: it was
 * stopped then (its node's signal aborted, a terminal interrupted).
 *
 * @category session errors
 */
export class ExecuteTimeout extends taggedError('ExecuteTimeout', 'timeout', SessionError)<{
  readonly sessionId: string
  readonly nodeName: string
  readonly timeoutMs: number
}> {
  constructor(sessionId: string, nodeName: string, timeoutMs: number) {
    super(`node "${nodeName}" of session "${sessionId}": no answer within ${timeoutMs} ms`, {
      sessionId,
      nodeName,
      timeoutMs,
    })
  }
}

/**
 * The session is closed: it registers, starts, executes and forks nothing more.
 *
 * @category session errors
 */
export class SessionClosed extends taggedError('SessionClosed', 'invalidState', SessionError)<{
  readonly sessionId: string
}> {
  constructor(sessionId: string) {
    super(`session "${sessionId}" is closed`, { sessionId })
  }
}

/**
 * A node's interpreter failed to start it (the node is then `stopped`);
 * `cause` is what the interpreter threw. For a graph, `nodeName` is the
 * node inside it that failed.
 *
 * @category session errors
 */
export class StartFailed extends taggedError('StartFailed', 'failed', SessionError)<{
  readonly sessionId: string
  readonly nodeName: string
}> {
  constructor(sessionId: string, nodeName: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause)
    super(
      `node "${nodeName}" of session "${sessionId}" failed to start: ${why}`,
      { sessionId, nodeName },
      { cause },
    )
  }
}

/**
 * A bug: the session was about to move a node between two states that do
 * not follow each other (`from` → `to`).
 *
 * @category session errors
 */
export class IllegalNodeTransition extends taggedError(
  'IllegalNodeTransition',
  'internal',
  SessionError,
)<{
  readonly sessionId: string
  readonly nodeName: string
  readonly from: NodeState
  readonly to: NodeState
}> {
  constructor(sessionId: string, nodeName: string, from: NodeState, to: NodeState) {
    super(
      `Session: node "${nodeName}": ${showIllegalTransition({ _tag: 'IllegalTransition', from, to })}`,
      { sessionId, nodeName, from, to },
    )
  }
}

/**
 * Whether a value is a {@link SessionError}.
 *
 * @category guards
 */
export const isSessionError = (u: unknown): u is SessionError => u instanceof SessionError
