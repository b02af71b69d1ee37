import type { ErrorPolicy } from './ErrorPolicy.js'
import { isGraph, type Graph } from './Graph.js'
import { listSteps } from './build.js'
import type { Node } from '../node/Node.js'

const policyNodes = (p: ErrorPolicy): readonly Node[] =>
  p._tag === 'fallback'
    ? [p.node]
    : p._tag === 'retry' && p.then._tag === 'fallback'
      ? [p.then.node]
      : []

/**
 * The nodes a graph runs itself (steps' nodes and fallback nodes, nested
 * graphs walked but not listed) and the `nodeRef`s of its steps, each once.
 *
 * @internal
 */
export const graphParts = (g: Graph): { nodes: readonly Node[]; refs: readonly string[] } => {
  const nodes = new Set<Node>()
  const refs = new Set<string>()
  const seen = new Set<Graph>()
  const visit = (n: Node): void => {
    if (!isGraph(n)) nodes.add(n)
    else if (!seen.has(n)) {
      seen.add(n)
      for (const step of listSteps(n)) {
        if (step.node !== undefined) visit(step.node)
        else refs.add(step.nodeRef)
        policyNodes(step.onError).forEach(visit)
      }
    }
  }
  visit(g)
  return { nodes: [...nodes], refs: [...refs] }
}

/** Whether a name has no `{run_id}`/`{timestamp}` placeholder (a ref the session can look up before a run). */
export const isStaticName = (name: string): boolean => !name.includes('{')
