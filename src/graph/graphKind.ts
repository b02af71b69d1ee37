import { taggedError } from '../errors.js'
import * as E from 'fp-ts/lib/Either.js'
import { nodeKind } from '../node/NodeKind.js'
import { metadata as anObject, optionsCodec } from '../node/options.js'
import { decodeGraph } from './decodeGraph.js'
import type { Graph } from './Graph.js'
import { showGraphFileError, type GraphFileError } from './GraphFileError.js'

/**
 * A graph file given as a graph node's options that does not decode: its
 * errors, with their paths in the file.
 *
 * @category graph files
 */
export class GraphFileRejected extends taggedError('GraphFileRejected', 'invalidGraph')<{
  readonly errors: readonly GraphFileError[]
}> {
  constructor(errors: readonly GraphFileError[]) {
    super(`the graph file is invalid: ${errors.map(showGraphFileError).join('; ')}`, { errors })
  }
}

/**
 * The options of a graph node made from data: its graph file (whose `id`
 * becomes the node's).
 *
 * @category graph files
 */
export interface GraphKindOptions {
  readonly graph: Readonly<Record<string, unknown>>
}

/**
 * The `graph` node kind: a graph built from a graph file, whose node
 * references resolve in the builder's context (a session's nodes) and whose
 * nodes may be of the context's kinds. A file that does not decode throws
 * {@link GraphFileRejected}. A graph file describes its graphs in a form of
 * their own, so this kind is not described in a file's `nodes` table.
 *
 * @category graph files
 * @example
 * import { graphNodeKind } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const g = graphNodeKind.build('g', { graph: { id: 'ignored', nodes: { sh: { kind: 'bash' } }, steps: [{ id: 'a', node: 'sh' }] } })
 * assert.strictEqual(g.kind, 'graph')
 * assert.strictEqual(g.id, 'g')
 */
export const graphNodeKind = nodeKind<GraphKindOptions>({
  kind: 'graph',
  aliases: ['subgraph'],
  summary: 'a graph of steps, from a graph file (graph=FILE-VALUE)',
  options: optionsCodec<GraphKindOptions>('GraphKindOptions', { graph: anObject }, {}),
  describable: false,
  build: (id, options, context): Graph => {
    const decoded = decodeGraph(
      { ...options.graph, id },
      {
        ...(context?.nodes !== undefined && { nodes: context.nodes }),
        ...(context?.kinds !== undefined && { kinds: context.kinds }),
      },
    )
    if (E.isLeft(decoded)) throw new GraphFileRejected(decoded.left)
    return decoded.right
  },
})
