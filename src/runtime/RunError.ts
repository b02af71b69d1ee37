import type { GraphError } from '../graph/GraphError.js'
import { showGraphError } from '../graph/GraphError.js'
import type { BudgetLimit } from './Budget.js'
import type { Trace } from './Trace.js'

const jsonOr = (u: unknown): string => {
  const text = JSON.stringify(u) as unknown
  return typeof text === 'string' ? text : String(u)
}

const where = (path: readonly string[]): string =>
  path.length === 0 ? 'the graph' : `step "${path.join('/')}"`

const describe = (u: unknown): string =>
  u instanceof Error ? u.message : typeof u === 'string' ? u : jsonOr(u)

/**
 * The base of every error a run rejects with. `path` names the step (step
 * ids from the root graph down; `[]` for the graph itself), `trace` is the
 * partial trace of the run when it settled (what had finished, and the steps
 * that were cancelled).
 *
 * @category errors
 */
export abstract class RunError extends Error {
  abstract readonly _tag: string
  readonly path: readonly string[]
  /** Set when the run settles with this error. */
  trace: Trace | undefined = undefined

  constructor(path: readonly string[], message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.path = Object.freeze([...path])
  }

  /** The id of the step, or `undefined` for an error of the graph itself. */
  get stepId(): string | undefined {
    return this.path[this.path.length - 1]
  }
}

/**
 * A step failed for good (after its error policy); `cause` is its last error.
 *
 * @category errors
 */
export class StepFailed extends RunError {
  readonly _tag = 'StepFailed'
  readonly attempts: number
  constructor(path: readonly string[], cause: unknown, attempts: number) {
    super(path, `${where(path)} failed: ${describe(cause)}`, { cause })
    this.name = 'StepFailed'
    this.attempts = attempts
  }
}

/**
 * A budget limit was gone over; `path` is the step that was about to start
 * (or to retry), `[]` when the time limit's timer fired.
 *
 * @category errors
 */
export class BudgetExceeded extends RunError {
  readonly _tag = 'BudgetExceeded'
  readonly limit: BudgetLimit
  readonly max: number
  readonly used: number
  constructor(path: readonly string[], limit: BudgetLimit, max: number, used: number) {
    super(path, `budget exceeded at ${where(path)}: ${limit} is ${max}, used ${used}`)
    this.name = 'BudgetExceeded'
    this.limit = limit
    this.max = max
    this.used = used
  }
}

/**
 * The run's signal was aborted; `reason` is the signal's reason.
 *
 * @category errors
 */
export class Cancelled extends RunError {
  readonly _tag = 'Cancelled'
  readonly reason: unknown
  constructor(path: readonly string[], reason: unknown) {
    super(path, `${where(path)} was cancelled: ${describe(reason)}`)
    this.name = 'Cancelled'
    this.reason = reason
  }
}

/**
 * No interpreter is registered for a step's node kind, or it has neither
 * `execute` nor `executeStream`.
 *
 * @category errors
 */
export class MissingInterpreter extends RunError {
  readonly _tag = 'MissingInterpreter'
  readonly kind: string
  constructor(path: readonly string[], kind: string, detail = 'no interpreter is registered') {
    super(path, `${where(path)} runs a "${kind}" node: ${detail} for that kind`)
    this.name = 'MissingInterpreter'
    this.kind = kind
  }
}

/**
 * A step's `nodeRef` names no node of the session.
 *
 * @category errors
 */
export class UnknownNodeRef extends RunError {
  readonly _tag = 'UnknownNodeRef'
  readonly nodeRef: string
  constructor(path: readonly string[], nodeRef: string) {
    super(path, `${where(path)} refers to node "${nodeRef}", which the session does not have`)
    this.name = 'UnknownNodeRef'
    this.nodeRef = nodeRef
  }
}

/**
 * The graph (or a nested one) does not validate; `errors` are `validate`'s.
 *
 * @category errors
 */
export class InvalidGraph extends RunError {
  readonly _tag = 'InvalidGraph'
  readonly errors: readonly GraphError[]
  constructor(path: readonly string[], errors: readonly GraphError[]) {
    super(path, `${where(path)} is not a valid graph: ${errors.map(showGraphError).join('; ')}`)
    this.name = 'InvalidGraph'
    this.errors = errors
  }
}

/**
 * An attempt ran longer than its step's `timeoutMs` (its signal was aborted
 * with this error). Seen as the cause of a `StepFailed`, or by retry policies.
 *
 * @category errors
 */
export class StepTimeout extends RunError {
  readonly _tag = 'StepTimeout'
  readonly timeoutMs: number
  constructor(path: readonly string[], timeoutMs: number) {
    super(path, `${where(path)} timed out after ${timeoutMs} ms`)
    this.name = 'StepTimeout'
    this.timeoutMs = timeoutMs
  }
}

/**
 * `ctx.resolveLinks` met a cycle: `cycle` lists the step ids from the step
 * that asked back to itself (or to a step that can only run after it).
 *
 * @category errors
 */
export class LinkCycle extends RunError {
  readonly _tag = 'LinkCycle'
  readonly cycle: readonly string[]
  constructor(path: readonly string[], cycle: readonly string[]) {
    super(path, `${where(path)}: link cycle ${cycle.join(' → ')}`)
    this.name = 'LinkCycle'
    this.cycle = Object.freeze([...cycle])
  }
}

/**
 * `ctx.resolveLinks(handle)` was called with a handle the step does not declare.
 *
 * @category errors
 */
export class UnknownLinkHandle extends RunError {
  readonly _tag = 'UnknownLinkHandle'
  readonly handle: string
  constructor(path: readonly string[], handle: string) {
    super(path, `${where(path)} has no links named "${handle}"`)
    this.name = 'UnknownLinkHandle'
    this.handle = handle
  }
}

/**
 * Whether a value is a {@link RunError}.
 *
 * @category guards
 */
export const isRunError = (u: unknown): u is RunError => u instanceof RunError
