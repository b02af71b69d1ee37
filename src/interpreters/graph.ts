import { isGraph, type Graph } from '../graph/Graph.js'
import type { Interpreter, NodeContext } from '../node/Interpreter.js'
import { runGraph } from '../runtime/run.js'

/**
 * Runs graph nodes with the same kernel, inside the step's run (see
 * `runGraph`): the step's result is the nested graph's results by step id,
 * its input is the nested graph's input, and the nested steps' usage rolls
 * up into the step and the run.
 *
 * @category interpreters
 */
export const graphInterpreter: Interpreter<Graph> = Object.freeze({
  kind: 'graph' as const,
  execute(node: Graph, ctx: NodeContext): Promise<Readonly<Record<string, unknown>>> {
    if (!isGraph(node))
      return Promise.reject(new TypeError(`node "${String(node)}" is not a Graph`))
    return runGraph(node, ctx)
  },
})
