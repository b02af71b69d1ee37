import { graph, type Graph } from '../graph/Graph.js'
import { addStep } from '../graph/build.js'
import type { Node } from '../node/Node.js'
import { StepFailed } from './RunError.js'
import { prepare, type RunOptions } from './run.js'

/**
 * The one step `name` runs `node` as, made once per node value (a node is
 * immutable): its compiled form is memoised with it, so running a node
 * again neither builds nor checks anything.
 */
const single = new WeakMap<Node, { readonly name: string; readonly graph: Graph }>()
const oneStep = (name: string, node: Node): Graph => {
  const known = single.get(node)
  if (known?.name === name) return known.graph
  const made = addStep({ id: name, node })(graph(name))
  single.set(node, { name, graph: made })
  return made
}

const unwrap = (e: unknown): never => {
  throw e instanceof StepFailed ? e.cause : e
}

/**
 * Runs `node` as the kernel's one step `name` (what `Session.execute` does
 * for a node that is not a graph): the events, budget, cancellation and
 * cleanups of a run whose graph, named `name`, is that step. Resolves with
 * the node's result. When the node fails, the rejection is its own error
 * (never wrapped in `StepFailed`); errors of the run itself (`Cancelled`,
 * `BudgetExceeded`, `MissingInterpreter`) come as they are.
 *
 * @internal
 */
export const runNode = (node: Node, name: string, options: RunOptions): Promise<unknown> =>
  prepare('runNode', oneStep(name, node), options)(undefined).then((r) => r.results[name], unwrap)
