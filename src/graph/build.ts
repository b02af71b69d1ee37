import * as O from 'fp-ts/lib/Option.js'
import { UsageError } from '../errors.js'
import { Graph } from './Graph.js'
import { checkStep, type Step, type StepInput, type StepOptions, type StepSpec } from './Step.js'

const requireGraph = (api: string, g: unknown): Graph => {
  if (!(g instanceof Graph)) throw new UsageError(api, `expects a Graph, got ${String(g)}`)
  return g
}

/**
 * Adds a step at the end. A step id the graph already has is a
 * {@link UsageError} at once; everything else about the step's values (ids
 * that break the name rule, unknown dependencies, cycles, …) is reported by
 * `validate`, all errors together. O(1) amortized.
 *
 * @category builders
 * @example
 * import { addStep, fn, graph, listSteps } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const one = fn('one', () => 1)
 * const g = pipe(graph('g'), addStep({ id: 'a', node: one }), addStep({ id: 'b', node: one }))
 * assert.deepStrictEqual(listSteps(g).map((s) => s.id), ['a', 'b'])
 * assert.throws(() => pipe(g, addStep({ id: 'a', node: one })), /already has a step "a"/)
 */
export const addStep =
  (step: StepSpec) =>
  (g: Graph): Graph =>
    Graph.append(requireGraph('addStep', g), checkStep('addStep', step), 'addStep')

/**
 * Adds a step that runs the session's node `nodeRef`, looked up when the step
 * runs. The same as `addStep({ id, nodeRef, ...options })`.
 *
 * @category builders
 * @example
 * import { addStepRef, graph, getStep } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import * as O from 'fp-ts/lib/Option.js'
 * import assert from 'assert'
 *
 * const g = pipe(graph('g'), addStepRef('ask', 'claude', { input: 'hello' }))
 * assert.strictEqual(pipe(g, getStep('ask'), O.map((s) => s.nodeRef), O.toUndefined), 'claude')
 */
export const addStepRef =
  (id: string, nodeRef: string, options?: StepOptions & StepInput) =>
  (g: Graph): Graph =>
    Graph.append(
      requireGraph('addStepRef', g),
      checkStep('addStepRef', { ...options, id, nodeRef }),
      'addStepRef',
    )

/**
 * Makes each of the given steps depend on the one before it. An id the graph
 * does not have is a {@link UsageError}. Dependencies already there are kept
 * once; when nothing changes, the graph itself is returned. O(steps) when
 * something changes.
 *
 * @category builders
 * @example
 * import { addStep, chain, fn, graph } from 'nerve-agents'
 * import { executionOrder } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const one = fn('one', () => 1)
 * const g = pipe(
 *   graph('g'),
 *   addStep({ id: 'c', node: one }),
 *   addStep({ id: 'b', node: one }),
 *   addStep({ id: 'a', node: one }),
 *   chain('a', 'b', 'c'),
 * )
 * assert.deepStrictEqual(executionOrder(g), { _tag: 'Right', right: ['a', 'b', 'c'] })
 * assert.strictEqual(chain('a', 'b')(g), g)
 */
export const chain =
  (...ids: readonly string[]) =>
  (g: Graph): Graph => {
    requireGraph('chain', g)
    const replacements = new Map<number, Step>()
    const current = (i: number): Step => replacements.get(i) ?? Graph.stepAt(g, i)!
    let previous: string | undefined
    for (const id of ids) {
      const i = Graph.indexOf(g, id)
      if (i < 0) throw new UsageError('chain', `graph "${g.id}" has no step "${id}"`)
      if (previous !== undefined) {
        const step = current(i)
        if (!step.dependsOn.includes(previous)) {
          replacements.set(
            i,
            Object.freeze({ ...step, dependsOn: Object.freeze([...step.dependsOn, previous]) }),
          )
        }
      }
      previous = id
    }
    return replacements.size === 0 ? g : Graph.replace(g, replacements)
  }

/**
 * The step with the given id.
 *
 * @category accessors
 * @example
 * import { addStep, fn, getStep, graph } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import * as O from 'fp-ts/lib/Option.js'
 * import assert from 'assert'
 *
 * const g = pipe(graph('g'), addStep({ id: 'a', node: fn('one', () => 1) }))
 * assert.ok(O.isSome(pipe(g, getStep('a'))))
 * assert.ok(O.isNone(pipe(g, getStep('b'))))
 */
export const getStep =
  (id: string) =>
  (g: Graph): O.Option<Step> =>
    O.fromNullable(Graph.stepAt(g, Graph.indexOf(requireGraph('getStep', g), id)))

/**
 * The steps in insertion order (a frozen array, computed once per graph).
 *
 * @category accessors
 */
export const listSteps = (g: Graph): readonly Step[] => Graph.steps(requireGraph('listSteps', g))
