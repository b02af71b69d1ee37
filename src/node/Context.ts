import { UsageError } from '../errors.js'
import type { InterpreterRegistry } from './Interpreter.js'
import type { Node } from './Node.js'

/**
 * The results of a step's dependencies, keyed by step id, in the order of
 * its `dependsOn`. Only dependencies appear, so a step sees the same
 * upstream whatever order parallel steps finish in.
 *
 * @category context
 */
export type Upstream = Readonly<Record<string, unknown>>

/**
 * Resources one call used, reported by an interpreter with
 * {@link NodeContext.reportUsage}; the runtime adds them up against the
 * run's budget. Every field is a non-negative amount; a missing one is 0.
 *
 * @category context
 */
export interface UsageReport {
  readonly tokens?: number
  readonly apiCalls?: number
  /** In the budget's currency unit (the runtime does not convert). */
  readonly cost?: number
}

/**
 * Looks nodes up by id: how a step's `nodeRef` (and a file's node reference)
 * is resolved. A session implements it; {@link nodeRegistry} builds a fixed one.
 *
 * @category context
 */
export interface NodeRegistry {
  get(id: string): Node | undefined
  /**
   * The cell holding a persistent node's live value (an LLM node's
   * conversation head), when a session keeps it. Interpreters that keep
   * state in values rather than processes read and write it here.
   */
  cell?(nodeId: string): StateCell
}

/**
 * One mutable slot of a session: the live value of one persistent node.
 *
 * @category context
 */
export interface StateCell<S = unknown> {
  get(): S | undefined
  set(value: S): void
}

/**
 * What the runtime hands to an interpreter (and through the function
 * interpreter, to a function node) for one attempt of one step. It is a pure
 * interface: the runtime implements it; tests may implement it by hand.
 *
 * @category context
 */
export interface NodeContext<I = unknown> {
  /** The step's input: its `input`, or `inputFn(upstream, graphInput)`, or else the graph's input. */
  readonly input: I
  /** The results of the step's dependencies, keyed by step id. */
  readonly upstream: Upstream
  /** Aborted when the run is cancelled or this attempt times out: stop promptly. */
  readonly signal: AbortSignal
  /** The id of the whole run (the same in nested graphs). */
  readonly runId: string
  /** When the run started, in epoch milliseconds by the run's clock (`{timestamp}` in name templates). */
  readonly runStartedAt: number
  /** The id of the step being run. */
  readonly stepId: string
  /** Step ids from the root graph down to this step, inclusive: `['outer', 'inner']`. */
  readonly path: readonly string[]
  /** The attempt number, 1 for the first try, 2 for the first retry, … */
  readonly attempt: number
  /** The parser named by the step, for interpreters that parse output (terminals, LLMs). */
  readonly parser?: string
  /** Where `nodeRef`s are resolved: the session's nodes. */
  readonly session: NodeRegistry
  /** The interpreters of the run, by kind (for interpreters that run other nodes). */
  readonly interpreters: InterpreterRegistry
  /** Adds resources used by this attempt to the run's usage (checked against the budget). */
  reportUsage(usage: UsageReport): void
  /** Publishes a partial result: it becomes a `step_chunk` event carrying this step's path. */
  emit(chunk: unknown): void
  /**
   * The artifacts materialized by the steps this step links to under
   * `handle`, in the order the step's `links[handle]` lists them. Resolved
   * lazily and cached per run; rejects on a link cycle or an unknown handle.
   */
  resolveLinks(handle: string): Promise<readonly unknown[]>
}

/**
 * A fixed {@link NodeRegistry} of the given nodes. The same node may be
 * listed twice; two different nodes with one id are a {@link UsageError}.
 *
 * @category context
 * @example
 * import { fn, nodeRegistry } from 'nerve'
 * import assert from 'assert'
 *
 * const one = fn('one', () => 1)
 * const registry = nodeRegistry(one)
 * assert.strictEqual(registry.get('one'), one)
 * assert.strictEqual(registry.get('two'), undefined)
 */
export const nodeRegistry = (...nodes: readonly Node[]): NodeRegistry => {
  const byId = new Map<string, Node>()
  for (const n of nodes) {
    const seen = byId.get(n.id)
    if (seen !== undefined && seen !== n) {
      throw new UsageError('nodeRegistry', `two different nodes have the id "${n.id}"`)
    }
    byId.set(n.id, n)
  }
  return Object.freeze({ get: (id: string) => byId.get(id) })
}
