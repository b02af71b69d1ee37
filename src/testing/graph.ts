import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { UsageError } from '../errors.js'
import { addStep } from '../graph/build.js'
import { compile } from '../graph/compile.js'
import { graph as emptyGraph, isGraph, type Graph } from '../graph/Graph.js'
import { showGraphError } from '../graph/GraphError.js'
import { stepInput } from '../graph/Step.js'
import type { NodeContext, Upstream } from '../node/Interpreter.js'
import { nodeRegistry } from '../node/NodeRegistry.js'
import { fn, isFunctionNode, type FunctionNode } from '../node/FunctionNode.js'

/**
 * What {@link graph} may generate. Every field is optional.
 *
 * @category arbitraries
 */
export interface GraphConstraints {
  /** The fewest steps; an integer ≥ 0. Default 0. */
  readonly minSteps?: number
  /** The most steps; an integer ≥ `minSteps`. Default 10. */
  readonly maxSteps?: number
  /** The most dependencies of one step; an integer ≥ 0. Default 3. */
  readonly maxDeps?: number
  /**
   * The graph's `maxParallel`: a positive integer or `Infinity`. Default:
   * generated, 1 to 4 or `Infinity`.
   */
  readonly maxParallel?: number
}

const KEYS: ReadonlySet<string> = new Set<keyof GraphConstraints>([
  'minSteps',
  'maxSteps',
  'maxDeps',
  'maxParallel',
])

/** JSON text, or `'undefined'` for what JSON cannot hold (undefined, functions). */
const json = (u: unknown): string => {
  const text = JSON.stringify(u) as unknown
  return typeof text === 'string' ? text : 'undefined'
}

const show = (u: unknown): string => (typeof u === 'number' ? String(u) : json(u))

interface Settings {
  readonly minSteps: number
  readonly maxSteps: number
  readonly maxDeps: number
  readonly maxParallel: number | undefined
}

const settingsOf = (constraints: GraphConstraints | undefined): Settings => {
  const fail = (name: string, rule: string, value: unknown): never => {
    throw new UsageError('graph', `constraints.${name} must be ${rule}, got ${show(value)}`)
  }
  const given: unknown = constraints === undefined ? {} : constraints
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new UsageError('graph', `constraints must be an object, got ${show(given)}`)
  }
  for (const key of Object.keys(given)) {
    if (!KEYS.has(key)) throw new UsageError('graph', `constraints.${key} is not a constraint`)
  }
  const c = given as GraphConstraints
  const count = (name: keyof GraphConstraints, value: unknown, fallback: number): number => {
    if (value === undefined) return fallback
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      return fail(name, 'an integer ≥ 0', value)
    }
    return value
  }
  const minSteps = count('minSteps', c.minSteps, 0)
  const maxSteps = count('maxSteps', c.maxSteps, Math.max(10, minSteps))
  if (maxSteps < minSteps) fail('maxSteps', `an integer ≥ minSteps (${minSteps})`, maxSteps)
  const maxDeps = count('maxDeps', c.maxDeps, 3)
  const mp = c.maxParallel
  if (mp !== undefined && !(mp === Infinity || (Number.isSafeInteger(mp) && mp >= 1))) {
    fail('maxParallel', 'a positive integer or Infinity', mp)
  }
  return { minSteps, maxSteps, maxDeps, maxParallel: mp }
}

/** FNV-1a, 32 bits, over the UTF-16 code units of a string. */
const fnv1a = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/**
 * The value the steps of {@link graph} compute: a 32-bit hash of the step
 * id, its input and its upstream (sorted by step id). Deterministic, so a
 * runtime's results can be checked against {@link referenceResults}.
 *
 * @category arbitraries
 */
export const hashStep = (stepId: string, input: unknown, upstream: Upstream): number => {
  const parts = Object.keys(upstream)
    .sort()
    .map((k) => `${k}=${json(upstream[k])}`)
  return fnv1a(`${stepId}|${json(input)}|${parts.join(',')}`)
}

/**
 * The function node every step of {@link graph} runs (one node, many steps):
 * `hashStep(ctx.stepId, ctx.input, ctx.upstream)`, synchronously.
 *
 * @category arbitraries
 */
export const hashNode: FunctionNode<unknown, number> = fn('hash', (ctx) =>
  hashStep(ctx.stepId, ctx.input, ctx.upstream),
)

/** One generated step: who it depends on (by creation number) and its input. */
interface Planned {
  readonly deps: readonly number[]
  readonly input: number | undefined
  /** Sort key of the insertion order. */
  readonly key: number
}

/**
 * Valid, acyclic graphs of {@link hashNode} steps with ids `s0`, `s1`, …
 * Step `sN` depends only on steps with smaller numbers (at most `maxDeps`
 * of them, listed in random order), but steps are inserted in a random
 * order, so dependencies are often added after their dependents. Some steps
 * have an `input` (an integer); the others take the graph's input. Shrinks
 * towards fewer steps, fewer dependencies and insertion in number order.
 *
 * Constraints are checked at once: a bad one is a `UsageError` naming it.
 *
 * @category arbitraries
 * @example
 * import { executionOrder } from 'nerve-agents/core'
 * import { graph } from 'nerve-agents/testing'
 * import fc from 'fast-check'
 * import assert from 'assert'
 *
 * fc.assert(
 *   fc.property(graph({ maxSteps: 6 }), (g) => executionOrder(g)._tag === 'Right'),
 * )
 * assert.throws(() => graph({ maxDeps: -1 }), /constraints\.maxDeps must be an integer/)
 */
export const graph = (constraints?: GraphConstraints): fc.Arbitrary<Graph> => {
  const s = settingsOf(constraints)
  const maxParallel =
    s.maxParallel === undefined
      ? fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant(Infinity))
      : fc.constant(s.maxParallel)
  return fc
    .integer({ min: s.minSteps, max: s.maxSteps })
    .chain((n) =>
      fc.tuple(
        fc.tuple(
          ...Array.from({ length: n }, (_, i) =>
            fc.record({
              deps:
                i === 0 || s.maxDeps === 0
                  ? fc.constant<readonly number[]>([])
                  : fc.uniqueArray(fc.integer({ min: 0, max: i - 1 }), {
                      maxLength: Math.min(s.maxDeps, i),
                    }),
              input: fc.option(fc.integer({ min: 0, max: 99 }), { nil: undefined }),
              key: fc.nat({ max: n }),
            }),
          ),
        ),
        maxParallel,
      ),
    )
    .map(([planned, mp]) => build(planned as readonly Planned[], mp))
}

const build = (planned: readonly Planned[], maxParallel: number): Graph => {
  const order = planned.map((_, i) => i).sort((a, b) => planned[a]!.key - planned[b]!.key || a - b)
  let g = emptyGraph('generated', { maxParallel })
  for (const i of order) {
    const p = planned[i]!
    g = addStep({
      id: `s${i}`,
      node: hashNode,
      dependsOn: p.deps.map((d) => `s${d}`),
      ...(p.input !== undefined && { input: p.input }),
    })(g)
  }
  return g
}

const referenceContext = (stepId: string, input: unknown, upstream: Upstream): NodeContext => ({
  input,
  upstream,
  signal: new AbortController().signal,
  runId: 'reference',
  runStartedAt: 0,
  stepId,
  path: [stepId],
  attempt: 1,
  session: nodeRegistry(),
  interpreters: new Map(),
  reportUsage: () => undefined,
  emit: () => undefined,
  resolveLinks: () => Promise.reject(new Error('referenceResults: links are not supported')),
})

/**
 * A plain sequential evaluator, to check a runtime against: runs the steps
 * one by one in `executionOrder`, each step's upstream being its
 * dependencies' results in `dependsOn` order and its input given by
 * `stepInput`. A step whose node is a graph gets that graph's results
 * (keyed by step id) as its result. Only synchronous function nodes and
 * graphs are supported (anything else, or an invalid graph, is a
 * `UsageError`); error policies are not applied.
 *
 * @category arbitraries
 * @example
 * import { addStep, graph as emptyGraph } from 'nerve-agents'
 * import { hashNode, hashStep, referenceResults } from 'nerve-agents/testing'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const g = pipe(
 *   emptyGraph('g'),
 *   addStep({ id: 'a', node: hashNode, input: 1 }),
 *   addStep({ id: 'b', node: hashNode, dependsOn: ['a'] }),
 * )
 * const a = hashStep('a', 1, {})
 * assert.deepStrictEqual(referenceResults(g, 'in'), { a, b: hashStep('b', 'in', { a }) })
 */
export const referenceResults = (g: Graph, input?: unknown): Readonly<Record<string, unknown>> => {
  const compiled = compile(g)
  if (E.isLeft(compiled)) {
    throw new UsageError(
      'referenceResults',
      `invalid graph: ${compiled.left.map(showGraphError).join('; ')}`,
    )
  }
  const c = compiled.right
  const results: Record<string, unknown> = {}
  for (let k = 0; k < c.order.length; k++) {
    const step = c.steps[c.order[k]!]!
    const upstream: Record<string, unknown> = {}
    for (const d of step.dependsOn) upstream[d] = results[d]
    const stepIn = stepInput(step, upstream, input)
    const node = step.node
    if (node !== undefined && isGraph(node)) {
      results[step.id] = referenceResults(node, stepIn)
    } else if (node !== undefined && isFunctionNode(node)) {
      const value = node.fn(referenceContext(step.id, stepIn, upstream))
      if (typeof (value as { then?: unknown } | null)?.then === 'function') {
        throw new UsageError('referenceResults', `step "${step.id}" returned a promise`)
      }
      results[step.id] = value
    } else {
      throw new UsageError(
        'referenceResults',
        `step "${step.id}" runs ${node === undefined ? 'a nodeRef' : `a "${node.kind}" node`}, which it cannot evaluate`,
      )
    }
  }
  return results
}
