import type { Meta } from '../dag/Vertex.js'
import type { Node } from '../node/Node.js'
import { addStep, listSteps } from './build.js'
import type { ErrorPolicy } from './ErrorPolicy.js'
import { graph, isGraph, type Graph } from './Graph.js'
import type { Step, StepSpec } from './Step.js'

/** How one walk changes a graph's parts; `undefined` leaves that part alone. */
interface PartMaps {
  readonly node?: (node: Node) => Node
  readonly ref?: (ref: string) => string
}

/** The policy with its fallback nodes mapped; the policy itself when none changes. */
const mapPolicy = (p: ErrorPolicy, mapNode: (n: Node) => Node): ErrorPolicy => {
  if (p._tag === 'fallback') {
    const node = mapNode(p.node)
    return node === p.node ? p : Object.freeze({ ...p, node })
  }
  if (p._tag === 'retry') {
    const then = mapPolicy(p.then, mapNode)
    return then === p.then ? p : Object.freeze({ ...p, then: then as typeof p.then })
  }
  return p
}

/**
 * A graph with the same steps in the same order, under `id` and `metadata`
 * (default: the graph's own). Internal to the graph walks.
 *
 * @internal
 */
export const rebuild = (
  g: Graph,
  steps: readonly Step[],
  id: string = g.id,
  metadata: Meta = g.metadata,
): Graph =>
  steps.reduce(
    (out, step) => addStep(step as StepSpec)(out),
    graph(id, { maxParallel: g.maxParallel, metadata }),
  )

/** One deep walk; each nested graph is mapped once (a graph used twice maps to one copy). */
const walk = (maps: PartMaps): ((g: Graph) => Graph) => {
  const done = new Map<Graph, Graph>()
  const mapNode = (n: Node): Node => (isGraph(n) ? mapGraph(n) : (maps.node?.(n) ?? n))
  const mapGraph = (g: Graph): Graph => {
    const known = done.get(g)
    if (known !== undefined) return known
    done.set(g, g) // a graph cannot contain itself; this only guards the walk
    const before = listSteps(g)
    const steps = before.map((step): Step => {
      const node = step.node === undefined ? undefined : mapNode(step.node)
      const nodeRef =
        step.nodeRef === undefined || maps.ref === undefined ? step.nodeRef : maps.ref(step.nodeRef)
      const onError = mapPolicy(step.onError, mapNode)
      if (node === step.node && nodeRef === step.nodeRef && onError === step.onError) return step
      return { ...step, ...(node !== undefined ? { node } : { nodeRef }), onError } as Step
    })
    const changed = steps.some((s, i) => s !== before[i])
    const out = changed ? rebuild(g, steps) : g
    done.set(g, out)
    return out
  }
  return mapGraph
}

/**
 * The graph with every node its steps run — steps' nodes and fallback
 * nodes, in nested graphs too — replaced by `f(node)`. Nested graphs are
 * walked, not passed to `f`. A graph where nothing changes is returned as
 * it is (`===`), and so is each nested graph where nothing changes.
 *
 * @category graph walks
 * @example
 * import { addStep, fn, graph, listSteps, mapNodes } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const one = fn('one', () => 1)
 * const two = fn('two', () => 2)
 * const g = pipe(graph('g'), addStep({ id: 'a', node: one }))
 * assert.strictEqual(pipe(g, mapNodes((n) => n)), g)
 * const h = pipe(g, mapNodes((n) => (n === one ? two : n)))
 * assert.strictEqual(listSteps(h)[0]?.node, two)
 */
export const mapNodes =
  (f: (node: Node) => Node) =>
  (g: Graph): Graph =>
    walk({ node: f })(g)

/**
 * The graph with every step's `nodeRef` (in nested graphs too) replaced by
 * `f(ref)`. A graph where nothing changes is returned as it is (`===`).
 *
 * @category graph walks
 * @example
 * import { addStepRef, graph, listSteps, mapNodeRefs } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const g = pipe(graph('g'), addStepRef('a', 'writer'))
 * const h = pipe(g, mapNodeRefs((ref) => `trial-${ref}`))
 * assert.strictEqual(listSteps(h)[0]?.nodeRef, 'trial-writer')
 */
export const mapNodeRefs =
  (f: (ref: string) => string) =>
  (g: Graph): Graph =>
    walk({ ref: f })(g)
