import type { Meta } from '../dag/Vertex.js'
import type { NodeInfo } from '../node/NodeInfo.js'
import type { InterpreterRegistry } from '../node/Interpreter.js'
import type { Budget } from '../runtime/Budget.js'
import type { Clock } from '../runtime/Clock.js'
import type { RunEvent } from '../runtime/RunEvent.js'
import type { SessionNodeEvent } from './SessionEvent.js'

/**
 * Options of {@link createSession}.
 *
 * @category session
 */
export interface SessionOptions {
  /** Default: a random UUID. Follows the name rule. */
  readonly id?: string
  /** Default: the id. Follows the name rule. */
  readonly name?: string
  /** The interpreters of every run and lifecycle call. Default: `defaultInterpreters`; a `fork` interpreter is added unless there is one. */
  readonly interpreters?: InterpreterRegistry
  /** Stamps events, `created_at` and fork times, and drives the runs. Default: the system clock. */
  readonly clock?: Clock
  readonly tags?: readonly string[]
  readonly metadata?: Meta
  /** Told of every event, synchronously (an exception it throws is ignored). */
  readonly onEvent?: (event: SessionNodeEvent) => void
}

/**
 * What {@link Session.info} answers: JSON-shaped.
 *
 * @category session
 */
export interface SessionInfo {
  readonly id: string
  readonly name: string
  readonly tags: readonly string[]
  readonly metadata: Meta
  readonly created_at: string
  readonly nodes: readonly NodeInfo[]
}

/**
 * Options of {@link Session.execute}.
 *
 * @category session
 */
export interface SessionExecuteOptions {
  /** Aborting it cancels the run: the execute rejects with the runtime's `Cancelled`. */
  readonly signal?: AbortSignal
  /**
   * Milliseconds the execute may take: past them it is stopped as
   * {@link Session.interrupt} stops it, and rejects with {@link ExecuteTimeout}.
   */
  readonly timeoutMs?: number
  readonly budget?: Budget
  readonly onEvent?: (event: RunEvent) => void
  /** The parser of steps that name none (a terminal's answer is read with it). */
  readonly parser?: string
}

/**
 * A session's options, checked and with defaults filled in: what the
 * `Session` constructor takes from `createSession`.
 *
 * @internal
 */
export interface SessionConfig {
  readonly id: string
  readonly name: string
  readonly tags: readonly string[]
  readonly metadata: Meta
  readonly interpreters: InterpreterRegistry
  readonly clock: Clock
  readonly onEvent: ((event: SessionNodeEvent) => void) | undefined
}
