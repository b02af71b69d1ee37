import type { Meta } from '../dag/Vertex.js'
import type { Node } from './Node.js'
import type { NodeState } from './NodeState.js'

/**
 * What a session reports about a node: JSON-shaped, with `type` for the
 * node's kind (the name the Nerve PRD gives it on the wire).
 *
 * @category lifecycle
 */
export interface NodeInfo {
  readonly id: string
  readonly type: string
  readonly state: NodeState
  readonly metadata: Meta
}

/**
 * The {@link NodeInfo} of a node in a given state.
 *
 * @category lifecycle
 * @example
 * import { fn } from 'nerve-agents'
 * import { nodeInfo } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const info = pipe(fn('double', (ctx) => Number(ctx.input) * 2), nodeInfo('ready'))
 * assert.deepStrictEqual(info, { id: 'double', type: 'function', state: 'ready', metadata: {} })
 */
export const nodeInfo =
  (state: NodeState) =>
  (node: Node): NodeInfo =>
    Object.freeze({ id: node.id, type: node.kind, state, metadata: node.metadata })
