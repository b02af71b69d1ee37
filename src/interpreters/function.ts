import { isFunctionNode, type FunctionNode } from '../node/FunctionNode.js'
import type { Interpreter } from '../node/Interpreter.js'
import type { Node } from '../node/Node.js'

/**
 * Runs function nodes: calls `node.fn(ctx)` and returns what it returns
 * (a value or a promise). Nothing else: no materialize (an artifact of a
 * function step is its output).
 *
 * @category interpreters
 */
export const functionInterpreter: Interpreter<FunctionNode> = Object.freeze({
  kind: 'function' as const,
  execute(node: FunctionNode, ctx: Parameters<FunctionNode['fn']>[0]): unknown {
    if (!isFunctionNode(node)) {
      throw new TypeError(`node "${(node as Node).id}" is not a function node`)
    }
    return node.fn(ctx)
  },
})
