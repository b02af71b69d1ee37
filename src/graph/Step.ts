import { deepFreeze } from '../dag/freeze.js'
import { UsageError } from '../errors.js'
import type { Upstream } from '../node/Interpreter.js'
import { isNode, type Node } from '../node/Node.js'
import { fail, type ErrorPolicy } from './ErrorPolicy.js'

/**
 * Computes a step's input from its dependencies' results and the graph's input.
 *
 * @category steps
 */
export type InputFn = (upstream: Upstream, graphInput: unknown) => unknown

/**
 * Links of a step: for each handle, the ids of the steps whose materialized
 * artifacts `ctx.resolveLinks(handle)` returns. Links do not order steps;
 * `dependsOn` does.
 *
 * @category steps
 */
export type Links = Readonly<Record<string, readonly string[]>>

/**
 * The parts of a step besides its node and its input.
 *
 * @category steps
 */
export interface StepOptions {
  /** Steps that must finish first; their results are this step's upstream. */
  readonly dependsOn?: readonly string[]
  /** Default: {@link fail}. */
  readonly onError?: ErrorPolicy
  /** A limit on each attempt, in ms; the attempt's signal is aborted when it passes. */
  readonly timeoutMs?: number
  /** The name of the parser the node's interpreter should apply (terminals, LLMs). */
  readonly parser?: string
  readonly links?: Links
}

/**
 * Which node a step runs: `node`, given directly, or `nodeRef`, the id of a
 * node the runtime looks up in the session when the step runs. Exactly one.
 *
 * @category steps
 */
export type StepTarget =
  | { readonly node: Node; readonly nodeRef?: undefined }
  | { readonly nodeRef: string; readonly node?: undefined }

/**
 * Where a step's input comes from: `input`, a fixed value, or `inputFn`,
 * computed from the upstream; at most one. With neither, the step's input is
 * the graph's input (see {@link stepInput}).
 *
 * @category steps
 */
export type StepInput =
  | { readonly input?: unknown; readonly inputFn?: undefined }
  | { readonly inputFn: InputFn; readonly input?: undefined }

/**
 * What {@link addStep} takes: an id, a node (or node ref), an optional input
 * and the {@link StepOptions}.
 *
 * @category steps
 */
export type StepSpec = { readonly id: string } & StepOptions & StepTarget & StepInput

/**
 * A step of a graph, as stored: frozen, with `dependsOn`, `onError` and
 * `links` filled in. `validate` checks what the types cannot (ids, unknown
 * dependencies, cycles, and both-or-neither for hand-made values).
 *
 * @category steps
 */
export type Step = {
  readonly id: string
  readonly dependsOn: readonly string[]
  readonly onError: ErrorPolicy
  readonly timeoutMs?: number
  readonly parser?: string
  readonly links: Links
} & StepTarget &
  StepInput

const typeOf = (u: unknown): string => (u === null ? 'null' : typeof u)

/** The dependencies of a step without any. @internal */
export const NO_DEPS: readonly string[] = Object.freeze([])
/** The links of a step without any. @internal */
export const NO_LINKS: Links = Object.freeze({})

const isStringArray = (u: unknown): u is readonly string[] => {
  if (!Array.isArray(u)) return false
  for (let i = 0; i < u.length; i++) if (typeof u[i] !== 'string') return false
  return true
}

/**
 * The usual step as given — an id, a node, maybe dependencies, nothing else —
 * once checked. A graph keeps its parts and makes its {@link Step} when the
 * step is first read (with {@link plainStep}): most steps of a large graph
 * are only checked and ordered, and an object per step, with a copy of its
 * dependencies, would cost more than the rest of adding it.
 *
 * @internal
 */
export interface PlainStep {
  readonly id: string
  readonly node: Node
  readonly dependsOn: readonly string[] | undefined
  readonly onError?: undefined
  readonly links?: undefined
}

/** Whether a checked step is a {@link PlainStep} (a made Step always has its policy). @internal */
export const isPlain = (s: Step | PlainStep): s is PlainStep => s.onError === undefined

/** The frozen Step of a {@link PlainStep}'s parts (`dependsOn` frozen already). @internal */
export const plainStep = (id: string, node: Node, dependsOn: readonly string[]): Step =>
  Object.freeze({ id, node, dependsOn, onError: fail, links: NO_LINKS })

/**
 * Checks the shape of a step spec (types only: values are `validate`'s job)
 * and returns the frozen step — or, for the usual step, its parts as a
 * {@link PlainStep}. Throws a {@link UsageError} from `api`.
 *
 * @internal
 */
export const checkStep = (api: string, spec: StepSpec): Step | PlainStep => {
  if (typeof spec !== 'object' || (spec as unknown) === null) {
    throw new UsageError(api, `a step must be an object, got ${typeOf(spec)}`)
  }
  const { id, dependsOn, onError, timeoutMs, parser, links } = spec
  if (typeof id !== 'string')
    throw new UsageError(api, `step id must be a string, got ${String(id)}`)
  if (dependsOn !== undefined && !isStringArray(dependsOn)) {
    throw new UsageError(api, `step "${id}": dependsOn must be an array of step ids`)
  }
  if (timeoutMs !== undefined && typeof timeoutMs !== 'number') {
    throw new UsageError(api, `step "${id}": timeoutMs must be a number`)
  }
  if (parser !== undefined && typeof parser !== 'string') {
    throw new UsageError(api, `step "${id}": parser must be a string`)
  }
  if (links !== undefined) {
    if (typeof links !== 'object' || (links as unknown) === null || Array.isArray(links)) {
      throw new UsageError(api, `step "${id}": links must be an object of handle → step ids`)
    }
    for (const [handle, targets] of Object.entries(links)) {
      if (!isStringArray(targets)) {
        throw new UsageError(api, `step "${id}": links.${handle} must be an array of step ids`)
      }
    }
  }
  const raw = spec as { node?: unknown; nodeRef?: unknown; input?: unknown; inputFn?: unknown }
  if (raw.inputFn !== undefined && typeof raw.inputFn !== 'function') {
    throw new UsageError(api, `step "${id}": inputFn must be a function`)
  }
  if (raw.node !== undefined && !isNode(raw.node)) {
    throw new UsageError(api, `step "${id}": node must be a Node, got ${typeOf(raw.node)}`)
  }
  if (raw.nodeRef !== undefined && typeof raw.nodeRef !== 'string') {
    throw new UsageError(api, `step "${id}": nodeRef must be a string`)
  }
  if (
    raw.node !== undefined &&
    raw.nodeRef === undefined &&
    raw.input === undefined &&
    raw.inputFn === undefined &&
    timeoutMs === undefined &&
    parser === undefined &&
    onError === undefined &&
    links === undefined
  ) {
    // The usual step: its parts, read once here; nothing of `spec` is kept.
    return { id, node: deepFreeze(raw.node), dependsOn }
  }
  const deps =
    dependsOn === undefined || dependsOn.length === 0 ? NO_DEPS : Object.freeze(dependsOn.slice())
  const policy = onError === undefined ? fail : deepFreeze(onError)
  const linked = links === undefined ? NO_LINKS : copyLinks(links)
  // Properties come in one fixed order, so steps share a few shapes.
  const step: Record<string, unknown> = { id }
  if (raw.node !== undefined) step.node = deepFreeze(raw.node)
  if (raw.nodeRef !== undefined) step.nodeRef = raw.nodeRef
  if (raw.input !== undefined) step.input = deepFreeze(raw.input)
  if (raw.inputFn !== undefined) step.inputFn = raw.inputFn
  step.dependsOn = deps
  step.onError = policy
  if (timeoutMs !== undefined) step.timeoutMs = timeoutMs
  if (parser !== undefined) step.parser = parser
  step.links = linked
  return Object.freeze(step) as unknown as Step
}

const copyLinks = (links: Links): Links => {
  const out: Record<string, readonly string[]> = {}
  for (const [handle, targets] of Object.entries(links)) out[handle] = Object.freeze([...targets])
  return Object.freeze(out)
}

/**
 * A step's input: `inputFn(upstream, graphInput)` if it has one, else
 * `input` if it has one, else the graph's input. The runtime and reference
 * evaluators use this one function so they agree.
 *
 * @category steps
 * @example
 * import { addStep, fn, graph, listSteps, stepInput } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const id = fn('id', (ctx) => ctx.input)
 * const g = pipe(
 *   graph('g'),
 *   addStep({ id: 'a', node: id, input: 1 }),
 *   addStep({ id: 'b', node: id, dependsOn: ['a'], inputFn: (up) => Number(up.a) + 1 }),
 *   addStep({ id: 'c', node: id }),
 * )
 * const [a, b, c] = listSteps(g)
 * assert.strictEqual(stepInput(a!, {}, 'in'), 1)
 * assert.strictEqual(stepInput(b!, { a: 1 }, 'in'), 2)
 * assert.strictEqual(stepInput(c!, {}, 'in'), 'in')
 */
export const stepInput = (step: Step, upstream: Upstream, graphInput: unknown): unknown =>
  step.inputFn !== undefined
    ? step.inputFn(upstream, graphInput)
    : step.input !== undefined
      ? step.input
      : graphInput
