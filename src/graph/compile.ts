import * as E from 'fp-ts/lib/Either.js'
import { fallbackNode } from './ErrorPolicy.js'
import { Graph, HAS_LINKS, isGraph, MAY_NEST } from './Graph.js'
import { cycles } from './cycles.js'
import type { GraphError } from './GraphError.js'
import type { Step } from './Step.js'

/**
 * A relation between steps as compressed rows: the neighbours of step `i`
 * are `targets[offsets[i]]` to `targets[offsets[i + 1] - 1]` (step indices).
 *
 * @category validation
 */
export interface Adjacency {
  readonly offsets: ArrayLike<number>
  readonly targets: ArrayLike<number>
}

/**
 * A valid graph prepared for running: steps by index and the dependency
 * relation both ways, as typed arrays. Built once per graph (memoised) by
 * {@link compile}; the runtime schedules from it without string lookups.
 *
 * @category validation
 */
export interface CompiledGraph {
  readonly graph: Graph
  /** The steps in insertion order; a step's index is its position here. */
  readonly steps: readonly Step[]
  /** The step ids in insertion order (`ids[i] === steps[i].id`). */
  readonly ids: readonly string[]
  /** Every step index once, dependencies first, ties broken by insertion order. */
  readonly order: ArrayLike<number>
  /** For each step, the indices of its `dependsOn`, in that order. */
  readonly dependencies: Adjacency
  /** For each step, the indices of the steps that depend on it, ascending. */
  readonly dependents: Adjacency
  /** The index of a step id, or -1. */
  readonly indexOf: (stepId: string) => number
}

type Result = E.Either<readonly GraphError[], CompiledGraph>

const memo = new WeakMap<Graph, Result>()

/** Calls `f` with each graph a step holds: its node and the node of a fallback policy. */
const forNested = (step: Step, f: (g: Graph) => void): void => {
  if (isGraph(step.node)) f(step.node)
  const other = fallbackNode(step.onError)
  if (other !== undefined && isGraph(other)) f(other)
}

/** Checks and indexes one graph, taking nested graphs' results from `memo`. */
const compileOne = (g: Graph): Result => {
  const { size: n, stepAt, ids, depId, flags, problems, depStart, deps } = Graph.internals(g)
  const errors: GraphError[] = []
  const depOffsets = new Int32Array(n + 1)
  const depTargets = new Int32Array(depStart[n]!)
  const indegree = new Int32Array(n)
  const outCount = new Int32Array(n + 1)
  let e = 0
  let inOrder = true // every dependency inserted before its dependent
  // Reads only the typed arrays for a valid step whose dependencies were
  // known when it was added; the step itself only when there is more to check.
  for (let i = 0; i < n; i++) {
    const own = problems.size === 0 ? undefined : problems.get(i)
    if (own !== undefined) for (const err of own) errors.push(err)
    depOffsets[i] = e
    const first = depStart[i]!
    const last = depStart[i + 1]!
    for (let k = first; k < last; k++) {
      if (own !== undefined) {
        // A step with problems may list a dependency twice (reported in `own`): count it once.
        const id = depId(k)
        let seen = false
        for (let m = first; m < k && !seen; m++) seen = depId(m) === id
        if (seen) continue
      }
      const j = deps[k]!
      if (j < 0 || j >= n) {
        // Not added yet when this version was made: unknown here.
        errors.push({
          _tag: 'UnknownDependency',
          path: [ids[i]!],
          dependency: depId(k),
        })
        continue
      }
      if (j === i) {
        errors.push({ _tag: 'SelfDependency', path: [ids[i]!] })
        continue
      }
      if (j > i) inOrder = false
      depTargets[e++] = j
      indegree[i] = indegree[i]! + 1
      outCount[j] = outCount[j]! + 1
    }
    const flag = flags[i]! & (HAS_LINKS | MAY_NEST)
    if (flag === 0) continue
    const step = stepAt(i)
    if ((flag & HAS_LINKS) !== 0) {
      for (const handle in step.links) {
        for (const target of step.links[handle]!) {
          const j = Graph.indexOf(g, target)
          if (j < 0) errors.push({ _tag: 'UnknownLinkTarget', path: [step.id], handle, target })
          else if (j === i) errors.push({ _tag: 'SelfLink', path: [step.id], handle })
        }
      }
    }
    if ((flag & MAY_NEST) !== 0) {
      forNested(step, (nested) => {
        const inner = memo.get(nested)
        if (inner !== undefined && E.isLeft(inner)) {
          for (const err of inner.left) errors.push({ ...err, path: [step.id, ...err.path] })
        }
      })
    }
  }
  depOffsets[n] = e

  // Dependents, as compressed rows in ascending order.
  const depOfOffsets = new Int32Array(n + 1)
  for (let i = 0; i < n; i++) depOfOffsets[i + 1] = depOfOffsets[i]! + outCount[i]!
  const fill = depOfOffsets.slice(0, n)
  const depOfTargets = new Int32Array(e)
  for (let i = 0; i < n; i++) {
    for (let k = depOffsets[i]!; k < depOffsets[i + 1]!; k++) {
      const d = depTargets[k]!
      depOfTargets[fill[d]!] = i
      fill[d] = fill[d]! + 1
    }
  }

  const { order, done, remaining } = inOrder
    ? { order: identity(n), done: n, remaining: indegree }
    : kahn(indegree, depOfOffsets, depOfTargets)
  if (done < n) {
    for (const c of cycles(ids, remaining, depOffsets, depTargets)) errors.push(c)
  }
  if (errors.length > 0) return E.left(Object.freeze(errors))
  return E.right(
    new Compiled(
      g,
      Object.freeze(ids.slice(0, n)),
      order,
      Object.freeze({ offsets: depOffsets, targets: depTargets }),
      Object.freeze({ offsets: depOfOffsets, targets: depOfTargets }),
    ),
  )
}

/**
 * A frozen {@link CompiledGraph} whose steps are read from the graph when
 * asked. The getter is on the prototype: written in an object literal, it
 * would give each compiled graph a hidden class of its own.
 */
class Compiled implements CompiledGraph {
  constructor(
    readonly graph: Graph,
    readonly ids: readonly string[],
    readonly order: ArrayLike<number>,
    readonly dependencies: Adjacency,
    readonly dependents: Adjacency,
  ) {
    Object.freeze(this)
  }

  get steps(): readonly Step[] {
    return Graph.steps(this.graph)
  }

  readonly indexOf = (stepId: string): number => Graph.indexOf(this.graph, stepId)
}

/** 0, 1, …, n − 1. */
const identity = (n: number): Int32Array => {
  const order = new Int32Array(n)
  for (let i = 0; i < n; i++) order[i] = i
  return order
}

/**
 * Kahn's algorithm taking, among the steps free to go, always the earliest
 * inserted: the smallest topological order in insertion order. (When every
 * dependency was inserted before its dependent, that order is the insertion
 * order itself, and `compile` skips this.) Steps left with
 * `remaining[i] > 0` are on or behind a cycle.
 *
 * The free steps are split at a cursor `p` that only moves forward: those at
 * or after it are marked in `free` and found by moving the cursor; those
 * freed behind it (fewer) go into a min-heap. Everything in the heap is
 * below `p`, so the heap's top, when there is one, is the smallest free step.
 */
const kahn = (
  indegree: Int32Array,
  depOfOffsets: Int32Array,
  depOfTargets: Int32Array,
): { order: Int32Array; done: number; remaining: Int32Array } => {
  const n = indegree.length
  const order = new Int32Array(n)
  const heap = new Int32Array(n)
  const free = new Uint8Array(n)
  const remaining = indegree.slice()
  for (let i = 0; i < n; i++) if (remaining[i] === 0) free[i] = 1
  let p = 0
  let size = 0
  let done = 0
  while (true) {
    let v: number
    if (size > 0) {
      v = heap[0]!
      const last = heap[--size]!
      let at = 0
      while (true) {
        let child = 2 * at + 1
        if (child >= size) break
        if (child + 1 < size && heap[child + 1]! < heap[child]!) child++
        if (heap[child]! >= last) break
        heap[at] = heap[child]!
        at = child
      }
      heap[at] = last
    } else {
      while (p < n && free[p] === 0) p++
      if (p === n) break
      v = p++
    }
    order[done++] = v
    for (let k = depOfOffsets[v]!; k < depOfOffsets[v + 1]!; k++) {
      const t = depOfTargets[k]!
      remaining[t] = remaining[t]! - 1
      if (remaining[t] !== 0) continue
      if (t >= p) {
        free[t] = 1
        continue
      }
      let up = size++
      while (up > 0) {
        const parent = (up - 1) >> 1
        if (heap[parent]! <= t) break
        heap[up] = heap[parent]!
        up = parent
      }
      heap[up] = t
    }
  }
  return { order, done, remaining }
}

/**
 * Validates a graph and its nested graphs and prepares it for running, or
 * returns every error found. Iterative throughout (a 10⁵-step chain is fine)
 * and memoised per graph, so calling it again is free.
 *
 * @category validation
 */
export const compile = (g: Graph): E.Either<readonly GraphError[], CompiledGraph> => {
  const known = memo.get(g)
  if (known !== undefined) return known
  // Post-order over nested graphs, without recursion.
  const todo: [Graph, boolean][] = [[g, false]]
  while (todo.length > 0) {
    const [x, expanded] = todo.pop()!
    if (memo.has(x)) continue
    if (expanded) {
      memo.set(x, compileOne(x))
      continue
    }
    todo.push([x, true])
    const push = (nested: Graph): void => {
      if (!memo.has(nested)) todo.push([nested, false])
    }
    const { size, stepAt, flags } = Graph.internals(x)
    for (let i = 0; i < size; i++) if ((flags[i]! & MAY_NEST) !== 0) forNested(stepAt(i), push)
  }
  return memo.get(g)!
}

/**
 * Checks a graph: every error at once, each with its step path. See
 * `GraphError` for the list: bad step ids, node and nodeRef both or
 * neither, both inputs, self-dependencies, unknown or duplicate
 * dependencies, unknown link targets, bad options and policies, cycles (with
 * their path), and the same inside nested graphs. Errors come step by step
 * in insertion order (a step's own fields, then its dependencies, links and
 * nested graphs), cycles last.
 *
 * @category validation
 * @example
 * import { addStep, fn, graph, validate } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const one = fn('one', () => 1)
 * const g = pipe(
 *   graph('g'),
 *   addStep({ id: 'a', node: one, dependsOn: ['b'] }),
 *   addStep({ id: 'b', node: one, dependsOn: ['a', 'zz'] }),
 * )
 * assert.deepStrictEqual(validate(g), {
 *   _tag: 'Left',
 *   left: [
 *     { _tag: 'UnknownDependency', path: ['b'], dependency: 'zz' },
 *     { _tag: 'Cycle', path: [], cycle: ['a', 'b', 'a'] },
 *   ],
 * })
 */
export const validate = (g: Graph): E.Either<readonly GraphError[], Graph> =>
  E.map(() => g)(compile(g))

/**
 * The step ids in a deterministic topological order: every step after its
 * dependencies; among steps free to go, the earlier inserted first. The
 * errors of {@link validate} when the graph is not valid.
 *
 * @category validation
 * @example
 * import { addStep, fn, graph } from 'nerve-agents'
 * import { executionOrder } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const one = fn('one', () => 1)
 * const g = pipe(
 *   graph('g'),
 *   addStep({ id: 'report', node: one, dependsOn: ['fetch', 'parse'] }),
 *   addStep({ id: 'parse', node: one, dependsOn: ['fetch'] }),
 *   addStep({ id: 'fetch', node: one }),
 *   addStep({ id: 'lint', node: one }),
 * )
 * assert.deepStrictEqual(executionOrder(g), {
 *   _tag: 'Right',
 *   right: ['fetch', 'parse', 'report', 'lint'],
 * })
 */
export const executionOrder = (g: Graph): E.Either<readonly GraphError[], readonly string[]> =>
  E.map((c: CompiledGraph) => {
    const ids: string[] = []
    for (let k = 0; k < c.order.length; k++) ids.push(c.ids[c.order[k]!]!)
    return Object.freeze(ids)
  })(compile(g))
