import { UsageError } from '../errors.js'
import type { Node } from './Node.js'

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
 * Looks nodes up by id: how a step's `nodeRef` (and a file's node reference)
 * is resolved. A session implements it, with the optional capabilities;
 * {@link nodeRegistry} builds a fixed one with none.
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
  /**
   * Forks the node registered as `name` into a new node registered as
   * `newName` (what a fork step does), when the registry is a session's.
   */
  fork?(name: string, newName: string, options?: { readonly signal?: AbortSignal }): Promise<Node>
  /**
   * The runtime is about to run an attempt on a persistent `node`: a
   * session marks it `busy` (when it is `ready` or `busy`) and answers the
   * function the runtime calls once, when the attempt ends, to let it go;
   * `undefined` when it holds nothing.
   */
  occupy?(node: Node): (() => void) | undefined
  /**
   * Where the handle of a persistent `node` that the session started with
   * `interpreter` (the one the run steps it with) is kept (`handle`: what its `start` answered), while it
   * is `ready` or `busy`; `undefined` when the session holds none for it,
   * then the run starts the node itself.
   */
  handleOf?(node: Node, interpreter: object): { readonly handle: unknown } | undefined
  /**
   * Starts a persistent `node` that the session holds but has not started
   * yet, for a run's step on it with `interpreter` (matched as by
   * `handleOf`), and resolves with its handle; `undefined` when it holds
   * no such node, then the run starts the node itself.
   */
  startFor?(node: Node, interpreter: object): Promise<unknown> | undefined
}

/**
 * A fixed {@link NodeRegistry} of the given nodes. The same node may be
 * listed twice; two different nodes with one id are a {@link UsageError}.
 *
 * @category context
 * @example
 * import { fn } from 'nerve-agents'
 * import { nodeRegistry } from 'nerve-agents/core'
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
