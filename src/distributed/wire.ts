import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { NonNegativeNumber } from '../codec/index.js'
import { UsageError } from '../errors.js'
import type { Node } from '../node/index.js'
import { problemsOf, WireDecodeError } from './DistError.js'

/**
 * A node as it crosses the wire: its JSON description. A function node has
 * no `fn`; `function` names the function the worker looks up instead.
 *
 * @category distributed
 */
export const NodeDescriptionCodec = t.intersection(
  [
    t.type({ id: t.string, kind: t.string, persistent: t.boolean, metadata: t.UnknownRecord }),
    t.partial({ function: t.string }),
    t.UnknownRecord,
  ],
  'NodeDescription',
)

/** @category distributed */
export type NodeDescription = t.TypeOf<typeof NodeDescriptionCodec>

const NonNegative = NonNegativeNumber

/**
 * The share of the run's budget one remote step may use; the worker aborts
 * the step when it goes past it.
 *
 * @category distributed
 */
export const BudgetShareCodec = t.partial(
  {
    maxTimeMs: NonNegative,
    maxTokens: NonNegative,
    maxApiCalls: NonNegative,
    maxCost: NonNegative,
  },
  'BudgetShare',
)

/** @category distributed */
export type BudgetShare = t.TypeOf<typeof BudgetShareCodec>

/**
 * The data of one BullMQ job: one attempt of one step.
 *
 * @category distributed
 */
export const StepJobCodec = t.intersection(
  [
    t.type({
      runId: t.string,
      runStartedAt: t.number,
      stepId: t.string,
      path: t.array(t.string),
      attempt: t.number,
      node: NodeDescriptionCodec,
      input: t.unknown,
      upstream: t.UnknownRecord,
    }),
    t.partial({ parser: t.string, budget: BudgetShareCodec }),
  ],
  'StepJob',
)

/** @category distributed */
export type StepJob = t.TypeOf<typeof StepJobCodec>

const UsageCodec = t.partial({ tokens: NonNegative, apiCalls: NonNegative, cost: NonNegative })

/**
 * What a worker reports while a step runs (as the job's progress): a chunk
 * the step emitted, or resources it used.
 *
 * @category distributed
 */
export const StepProgressCodec = t.union(
  [
    t.type({ type: t.literal('chunk'), seq: t.number, chunk: t.unknown }),
    t.type({ type: t.literal('usage'), seq: t.number, usage: UsageCodec }),
  ],
  'StepProgress',
)

/** @category distributed */
export type StepProgress = t.TypeOf<typeof StepProgressCodec>

/**
 * What a worker's job returns: the step's result.
 *
 * @category distributed
 */
export const StepReturnCodec = t.type({ result: t.unknown }, 'StepReturn')

/**
 * How a worker reports a step's failure (the job's failed reason, as JSON).
 *
 * @category distributed
 */
export const StepFailureCodec = t.type({ name: t.string, message: t.string }, 'StepFailure')

/** Decodes `u` with `codec` or throws a {@link WireDecodeError} naming `what`. @internal */
export const decodeOrThrow = <A>(codec: t.Decoder<unknown, A>, what: string, u: unknown): A => {
  const decoded = codec.decode(u)
  if (E.isLeft(decoded)) throw new WireDecodeError(what, problemsOf(decoded.left))
  return decoded.right
}

const jsonProblem = (u: unknown, at: string): string | undefined => {
  if (u === null || typeof u === 'string' || typeof u === 'boolean') return undefined
  if (typeof u === 'number') return Number.isFinite(u) ? undefined : `${at || '/'} is ${u}`
  if (Array.isArray(u)) {
    for (let i = 0; i < u.length; i++) {
      const p = jsonProblem(u[i], `${at}/${i}`)
      if (p !== undefined) return p
    }
    return undefined
  }
  if (typeof u === 'object') {
    const proto = Object.getPrototypeOf(u) as unknown
    if (proto !== Object.prototype && proto !== null) return `${at || '/'} is not a plain object`
    for (const [k, v] of Object.entries(u)) {
      if (v === undefined) continue
      const p = jsonProblem(v, `${at}/${k}`)
      if (p !== undefined) return p
    }
    return undefined
  }
  return `${at || '/'} is a ${typeof u}`
}

/** Throws a {@link UsageError} when `u` does not survive JSON as it is (`undefined` is sent as nothing). @internal */
export const requireJson = (api: string, what: string, u: unknown): void => {
  const p = u === undefined ? undefined : jsonProblem(u, '')
  if (p !== undefined) throw new UsageError(api, `${what} cannot be sent to a worker: ${p}`)
}

/**
 * The wire description of a node: its fields as they are, but a function
 * node's `fn` becomes `function: name` (`functionName(node)`).
 *
 * @internal
 */
export const describeNode = (node: Node, functionName: (node: Node) => string): NodeDescription => {
  if (node.kind === 'function') {
    const { id, kind, persistent, metadata } = node
    return { id, kind, persistent, metadata, function: functionName(node) }
  }
  requireJson('remoteInterpreters', `node "${node.id}"`, node)
  return node as unknown as NodeDescription
}
