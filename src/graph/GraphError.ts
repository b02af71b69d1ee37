/**
 * What `validate` finds wrong with a graph. Every error carries `path`: the
 * step ids from the validated graph down to the step at fault (nested graphs
 * add their step ids in front), or, for a {@link Cycle}, down to the graph
 * that holds the cycle.
 */

/**
 * A step id that breaks the name rule (empty, blank, bad characters, too long).
 *
 * @category graph errors
 */
export interface InvalidStepId {
  readonly _tag: 'InvalidStepId'
  readonly path: readonly string[]
  readonly stepId: string
  /** The step's position in insertion order (useful when the id is empty). */
  readonly index: number
  readonly reason: string
}

/** A step with neither `node` nor `nodeRef`. @category graph errors */
export interface MissingNode {
  readonly _tag: 'MissingNode'
  readonly path: readonly string[]
}

/** A step with both `node` and `nodeRef`. @category graph errors */
export interface NodeAndNodeRef {
  readonly _tag: 'NodeAndNodeRef'
  readonly path: readonly string[]
}

/** A `nodeRef` that breaks the name rule. @category graph errors */
export interface InvalidNodeRef {
  readonly _tag: 'InvalidNodeRef'
  readonly path: readonly string[]
  readonly nodeRef: string
  readonly reason: string
}

/** A step with both `input` and `inputFn`. @category graph errors */
export interface BothInputs {
  readonly _tag: 'BothInputs'
  readonly path: readonly string[]
}

/** A step that depends on itself. @category graph errors */
export interface SelfDependency {
  readonly _tag: 'SelfDependency'
  readonly path: readonly string[]
}

/** A dependency on a step the graph does not have. @category graph errors */
export interface UnknownDependency {
  readonly _tag: 'UnknownDependency'
  readonly path: readonly string[]
  readonly dependency: string
}

/** A dependency listed twice. @category graph errors */
export interface DuplicateDependency {
  readonly _tag: 'DuplicateDependency'
  readonly path: readonly string[]
  readonly dependency: string
}

/** A link to a step the graph does not have. @category graph errors */
export interface UnknownLinkTarget {
  readonly _tag: 'UnknownLinkTarget'
  readonly path: readonly string[]
  readonly handle: string
  readonly target: string
}

/** A step that links to itself (it could never resolve). @category graph errors */
export interface SelfLink {
  readonly _tag: 'SelfLink'
  readonly path: readonly string[]
  readonly handle: string
}

/**
 * A bad value in a step's options: `field` is `'timeoutMs'`, `'parser'`, a
 * link handle (`'links.docs'`) or a policy field (`'onError.count'`,
 * `'onError.then.node'`).
 *
 * @category graph errors
 */
export interface InvalidStepOption {
  readonly _tag: 'InvalidStepOption'
  readonly path: readonly string[]
  readonly field: string
  readonly reason: string
}

/**
 * Steps that depend on each other in a circle. `cycle` lists step ids in
 * `dependsOn` direction and ends where it starts: `['a', 'b', 'a']` means `a`
 * depends on `b`, which depends on `a`. One cycle is reported for each set of
 * steps that are all mutually reachable (a strongly connected component),
 * starting at its first step in insertion order.
 *
 * @category graph errors
 */
export interface Cycle {
  readonly _tag: 'Cycle'
  readonly path: readonly string[]
  readonly cycle: readonly string[]
}

/**
 * Everything `validate` reports.
 *
 * @category graph errors
 */
export type GraphError =
  | InvalidStepId
  | MissingNode
  | NodeAndNodeRef
  | InvalidNodeRef
  | BothInputs
  | SelfDependency
  | UnknownDependency
  | DuplicateDependency
  | UnknownLinkTarget
  | SelfLink
  | InvalidStepOption
  | Cycle

const where = (path: readonly string[]): string =>
  path.length === 0 ? 'the graph' : `step ${path.map((p) => JSON.stringify(p)).join(' › ')}`

/**
 * Renders a {@link GraphError} as one line of text.
 *
 * @category graph errors
 * @example
 * import { showGraphError } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.strictEqual(
 *   showGraphError({ _tag: 'UnknownDependency', path: ['b'], dependency: 'x' }),
 *   'step "b": depends on "x", which the graph does not have',
 * )
 */
export const showGraphError = (e: GraphError): string => {
  switch (e._tag) {
    case 'InvalidStepId':
      return `${where(e.path)} (#${e.index}): the id ${e.reason}`
    case 'MissingNode':
      return `${where(e.path)}: has neither node nor nodeRef`
    case 'NodeAndNodeRef':
      return `${where(e.path)}: has both node and nodeRef`
    case 'InvalidNodeRef':
      return `${where(e.path)}: nodeRef ${JSON.stringify(e.nodeRef)} ${e.reason}`
    case 'BothInputs':
      return `${where(e.path)}: has both input and inputFn`
    case 'SelfDependency':
      return `${where(e.path)}: depends on itself`
    case 'UnknownDependency':
      return `${where(e.path)}: depends on ${JSON.stringify(e.dependency)}, which the graph does not have`
    case 'DuplicateDependency':
      return `${where(e.path)}: depends on ${JSON.stringify(e.dependency)} twice`
    case 'UnknownLinkTarget':
      return `${where(e.path)}: links ${JSON.stringify(e.handle)} to ${JSON.stringify(e.target)}, which the graph does not have`
    case 'SelfLink':
      return `${where(e.path)}: links ${JSON.stringify(e.handle)} to itself`
    case 'InvalidStepOption':
      return `${where(e.path)}: ${e.field} ${e.reason}`
    case 'Cycle':
      return `${where(e.path)}: has a dependency cycle ${e.cycle.map((s) => JSON.stringify(s)).join(' → ')}`
  }
}
