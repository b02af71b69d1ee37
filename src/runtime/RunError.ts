import { taggedError } from '../errors.js'
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
  declare readonly _tag: string
  declare readonly path: readonly string[]
  /** Set when the run settles with this error. */
  trace: Trace | undefined = undefined

  /** The id of the step, or `undefined` for an error of the graph itself. */
  get stepId(): string | undefined {
    return this.path[this.path.length - 1]
  }
}

/** A step path, frozen. */
const at = (path: readonly string[]): readonly string[] => Object.freeze([...path])

/**
 * A step failed for good (after its error policy); `cause` is its last error.
 *
 * @category errors
 */
export class StepFailed extends taggedError('StepFailed', 'failed', RunError)<{
  readonly attempts: number
}> {
  constructor(path: readonly string[], cause: unknown, attempts: number) {
    super(`${where(path)} failed: ${describe(cause)}`, { path: at(path), attempts }, { cause })
  }
}

/**
 * A budget limit was gone over; `path` is the step that was about to start
 * (or to retry), `[]` when the time limit's timer fired.
 *
 * @category errors
 */
export class BudgetExceeded extends taggedError('BudgetExceeded', 'failed', RunError)<{
  readonly limit: BudgetLimit
  readonly max: number
  readonly used: number
}> {
  constructor(path: readonly string[], limit: BudgetLimit, max: number, used: number) {
    super(`budget exceeded at ${where(path)}: ${limit} is ${max}, used ${used}`, {
      path: at(path),
      limit,
      max,
      used,
    })
  }
}

/**
 * The run's signal was aborted; `reason` is the signal's reason.
 *
 * @category errors
 */
export class Cancelled extends taggedError('Cancelled', 'cancelled', RunError)<{
  readonly reason: unknown
}> {
  constructor(path: readonly string[], reason: unknown) {
    super(`${where(path)} was cancelled: ${describe(reason)}`, { path: at(path), reason })
  }
}

/**
 * No interpreter is registered for a step's node kind, or it has neither
 * `execute` nor `executeStream`.
 *
 * @category errors
 */
export class MissingInterpreter extends taggedError('MissingInterpreter', 'unsupported', RunError)<{
  readonly kind: string
}> {
  constructor(path: readonly string[], kind: string, detail = 'no interpreter is registered') {
    super(`${where(path)} runs a "${kind}" node: ${detail} for that kind`, { path: at(path), kind })
  }
}

/**
 * A step's `nodeRef` names no node of the session.
 *
 * @category errors
 */
export class UnknownNodeRef extends taggedError('UnknownNodeRef', 'notFound', RunError)<{
  readonly nodeRef: string
}> {
  constructor(path: readonly string[], nodeRef: string) {
    super(`${where(path)} refers to node "${nodeRef}", which the session does not have`, {
      path: at(path),
      nodeRef,
    })
  }
}

/**
 * The graph (or a nested one) does not validate; `errors` are `validate`'s.
 *
 * @category errors
 */
export class InvalidGraph extends taggedError('InvalidGraph', 'invalidGraph', RunError)<{
  readonly errors: readonly GraphError[]
}> {
  constructor(path: readonly string[], errors: readonly GraphError[]) {
    super(`${where(path)} is not a valid graph: ${errors.map(showGraphError).join('; ')}`, {
      path: at(path),
      errors,
    })
  }
}

/**
 * An attempt ran longer than its step's `timeoutMs` (its signal was aborted
 * with this error). Seen as the cause of a `StepFailed`, or by retry policies.
 *
 * @category errors
 */
export class StepTimeout extends taggedError('StepTimeout', 'timeout', RunError)<{
  readonly timeoutMs: number
}> {
  constructor(path: readonly string[], timeoutMs: number) {
    super(`${where(path)} timed out after ${timeoutMs} ms`, { path: at(path), timeoutMs })
  }
}

/**
 * `ctx.resolveLinks` met a cycle: `cycle` lists the step ids from the step
 * that asked back to itself (or to a step that can only run after it).
 *
 * @category errors
 */
export class LinkCycle extends taggedError('LinkCycle', 'invalidGraph', RunError)<{
  readonly cycle: readonly string[]
}> {
  constructor(path: readonly string[], cycle: readonly string[]) {
    super(`${where(path)}: link cycle ${cycle.join(' → ')}`, {
      path: at(path),
      cycle: Object.freeze([...cycle]),
    })
  }
}

/**
 * `ctx.resolveLinks(handle)` was called with a handle the step does not declare.
 *
 * @category errors
 */
export class UnknownLinkHandle extends taggedError('UnknownLinkHandle', 'invalidGraph', RunError)<{
  readonly handle: string
}> {
  constructor(path: readonly string[], handle: string) {
    super(`${where(path)} has no links named "${handle}"`, { path: at(path), handle })
  }
}

/**
 * Whether a value is a {@link RunError}.
 *
 * @category guards
 */
export const isRunError = (u: unknown): u is RunError => u instanceof RunError
