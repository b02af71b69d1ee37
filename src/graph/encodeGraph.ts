import { UsageError } from '../errors.js'
import type { Node } from '../node/Node.js'
import type { ErrorPolicy } from './ErrorPolicy.js'
import { Graph, isGraph } from './Graph.js'
import type {
  EdgeFile,
  GraphFile,
  GraphNodeDescription,
  NodeDescription,
  PolicyFile,
  StepFile,
} from './GraphFile.js'

const API = 'encodeGraph'

/** Whether a value holds a function, at any depth (a toolset's tools written in code). */
const holdsCode = (v: unknown): boolean =>
  typeof v === 'function' ||
  (typeof v === 'object' && v !== null && Object.values(v).some(holdsCode))

/** A node a file can describe: no function anywhere in it. */
const describable = (n: Node): boolean => !Object.values(n).some(holdsCode)

const describe = (n: Node): NodeDescription => {
  const { id: _id, kind, persistent, metadata, ...fields } = n as Node & Record<string, unknown>
  return {
    kind,
    ...(persistent && { persistent }),
    ...(Object.keys(metadata).length > 0 && { metadata }),
    ...fields,
  }
}

/**
 * Writes a graph as a {@link GraphFile}: nested graphs and nodes without
 * code go into the `nodes` table; function nodes (and any node holding a
 * function) are written as references, for `decodeGraph` to find in its
 * registry. Dependencies go into each step's `dependsOn`, links into
 * `edges` with `channel: 'link'`. `decodeGraph(encodeGraph(g), { nodes })`
 * gives back an equal graph when `nodes` has the referenced nodes.
 *
 * A graph a file cannot hold is a {@link UsageError}: a step with an
 * `inputFn`, or two different nodes with one id.
 *
 * @category graph files
 * @example
 * import { addStep, fn, graph, makeNode, retry } from 'nerve-agents'
 * import { encodeGraph } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const ls = makeNode({ id: 'ls', kind: 'bash', persistent: false, metadata: {}, command: 'ls' })
 * const g = pipe(
 *   graph('g'),
 *   addStep({ id: 'list', node: ls, onError: retry({ count: 2 }) }),
 *   addStep({ id: 'count', node: fn('count', () => 0), dependsOn: ['list'] }),
 * )
 * assert.deepStrictEqual(encodeGraph(g), {
 *   id: 'g',
 *   nodes: { ls: { kind: 'bash', command: 'ls' } },
 *   steps: [
 *     { id: 'list', node: 'ls', onError: { type: 'retry', count: 2, delayMs: 0, backoff: 1, jitter: 0 } },
 *     { id: 'count', node: 'count', dependsOn: ['list'] },
 *   ],
 * })
 */
export const encodeGraph = (g: Graph): GraphFile => {
  if (!(g instanceof Graph)) throw new UsageError(API, `expects a Graph, got ${String(g)}`)
  const table = new Map<string, { node: Node; description: NodeDescription }>()
  const refs = new Map<string, Node>()
  const todo: Graph[] = []

  const reference = (n: Node): string => {
    const seen = table.get(n.id)?.node ?? refs.get(n.id)
    if (seen === n) return n.id
    if (isGraph(n)) {
      if (seen !== undefined) throw conflict(n.id)
      table.set(n.id, { node: n, description: { kind: 'graph', steps: [] } })
      todo.push(n)
    } else if (describable(n)) {
      const description = describe(n)
      const other = table.get(n.id)
      if (refs.has(n.id) || (other !== undefined && !sameJson(other.description, description))) {
        throw conflict(n.id)
      }
      if (other === undefined) table.set(n.id, { node: n, description })
    } else {
      if (seen !== undefined) throw conflict(n.id)
      refs.set(n.id, n)
    }
    return n.id
  }

  const policy = (p: ErrorPolicy): PolicyFile => {
    switch (p._tag) {
      case 'fail':
        return { type: 'fail' }
      case 'skip':
        return p.value === undefined ? { type: 'skip' } : { type: 'skip', value: p.value }
      case 'fallback':
        return { type: 'fallback', node: reference(p.node) }
      case 'retry':
        return {
          type: 'retry',
          count: p.count,
          delayMs: p.delayMs,
          backoff: p.backoff,
          ...(p.maxDelayMs !== undefined && { maxDelayMs: p.maxDelayMs }),
          jitter: p.jitter,
          ...(p.then._tag !== 'fail' && { then: policy(p.then) }),
        }
    }
  }

  const body = (x: Graph): GraphNodeDescription => {
    const steps: StepFile[] = []
    const edges: EdgeFile[] = []
    for (const s of Graph.steps(x)) {
      if (s.inputFn !== undefined) {
        throw new UsageError(
          API,
          `step "${s.id}" of graph "${x.id}" has an inputFn, which a file cannot hold`,
        )
      }
      steps.push({
        id: s.id,
        ...(s.node !== undefined ? { node: reference(s.node) } : { nodeRef: s.nodeRef }),
        ...(s.input !== undefined && { input: s.input }),
        ...(s.dependsOn.length > 0 && { dependsOn: [...s.dependsOn] }),
        ...(s.onError._tag !== 'fail' && { onError: policy(s.onError) }),
        ...(s.timeoutMs !== undefined && { timeoutMs: s.timeoutMs }),
        ...(s.parser !== undefined && { parser: s.parser }),
      })
      for (const [handle, targets] of Object.entries(s.links)) {
        for (const from of targets) edges.push({ from, to: s.id, channel: 'link', handle })
      }
    }
    return {
      kind: 'graph',
      ...(x.maxParallel !== Infinity && { maxParallel: x.maxParallel }),
      ...(Object.keys(x.metadata).length > 0 && { metadata: x.metadata }),
      steps,
      ...(edges.length > 0 && { edges }),
    }
  }

  const top = body(g)
  while (todo.length > 0) {
    const x = todo.pop()!
    table.set(x.id, { node: x, description: body(x) })
  }
  const { kind: _kind, ...rest } = top
  return {
    id: g.id,
    ...(rest.maxParallel !== undefined && { maxParallel: rest.maxParallel }),
    ...(rest.metadata !== undefined && { metadata: rest.metadata }),
    ...(table.size > 0 && {
      nodes: Object.fromEntries([...table].map(([id, entry]) => [id, entry.description])),
    }),
    steps: rest.steps,
    ...(rest.edges !== undefined && { edges: rest.edges }),
  }
}

const conflict = (id: string): UsageError =>
  new UsageError(API, `two different nodes have the id "${id}"; a file refers to nodes by id`)

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)
