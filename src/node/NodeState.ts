import * as E from 'fp-ts/lib/Either.js'

/**
 * The lifecycle of a node, as a session sees it: `created → starting →
 * ready ⇄ busy → stopping → stopped`, and also
 *
 * ```text
 * created  → stopped             disposed without being started
 * starting → stopped             the start failed
 * starting → stopping            a stop asked for while starting
 * ready    → stopping            stopped while idle
 * ```
 *
 * `stopped` is final: restarting a node means starting a new one. A state
 * never transitions to itself. Nodes that are not persistent go through the
 * same states within one run.
 *
 * @category lifecycle
 */
export type NodeState = 'created' | 'starting' | 'ready' | 'busy' | 'stopping' | 'stopped'

/**
 * Every state, in lifecycle order.
 *
 * @category lifecycle
 */
export const nodeStates: readonly NodeState[] = Object.freeze([
  'created',
  'starting',
  'ready',
  'busy',
  'stopping',
  'stopped',
])

/**
 * The legal transitions: for each state, the states it may move to.
 *
 * @category lifecycle
 * @example
 * import { legalTransitions } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(legalTransitions.busy, ['ready', 'stopping'])
 * assert.deepStrictEqual(legalTransitions.stopped, [])
 */
export const legalTransitions: Readonly<Record<NodeState, readonly NodeState[]>> = Object.freeze({
  created: Object.freeze(['starting', 'stopped'] as const),
  starting: Object.freeze(['ready', 'stopping', 'stopped'] as const),
  ready: Object.freeze(['busy', 'stopping'] as const),
  busy: Object.freeze(['ready', 'stopping'] as const),
  stopping: Object.freeze(['stopped'] as const),
  stopped: Object.freeze([] as const),
})

/**
 * A transition the lifecycle does not allow (or from or to a value that is
 * not a state).
 *
 * @category lifecycle
 */
export interface IllegalTransition {
  readonly _tag: 'IllegalTransition'
  readonly from: NodeState
  readonly to: NodeState
}

/**
 * Whether a node may move from `from` to `to`.
 *
 * @category lifecycle
 */
export const canTransition = (from: NodeState, to: NodeState): boolean =>
  Object.prototype.hasOwnProperty.call(legalTransitions, from) &&
  legalTransitions[from].includes(to)

/**
 * Moves a node from one state to another: the new state, or an
 * {@link IllegalTransition} naming both.
 *
 * @category lifecycle
 * @example
 * import { transition } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(transition('ready', 'busy'), { _tag: 'Right', right: 'busy' })
 * assert.deepStrictEqual(transition('stopped', 'ready'), {
 *   _tag: 'Left',
 *   left: { _tag: 'IllegalTransition', from: 'stopped', to: 'ready' },
 * })
 */
export const transition = (
  from: NodeState,
  to: NodeState,
): E.Either<IllegalTransition, NodeState> =>
  canTransition(from, to) ? E.right(to) : E.left({ _tag: 'IllegalTransition', from, to })

/**
 * Renders an {@link IllegalTransition} as one line of text.
 *
 * @category lifecycle
 */
export const showIllegalTransition = (e: IllegalTransition): string =>
  `a node in state "${e.from}" cannot go to "${e.to}"`
