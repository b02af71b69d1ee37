import type { Step } from '../../graph/Step.js'
import type { Upstream } from '../../node/Interpreter.js'
import type { Interpreter } from '../../node/Interpreter.js'
import type { Node } from '../../node/Node.js'
import { expandName } from '../../node/name.js'
import { MissingInterpreter, UnknownNodeRef, type RunError } from '../RunError.js'
import type { RunState } from '../RunState.js'

/**
 * The node a step runs: its own, or its `nodeRef` looked up in the session
 * with `{run_id}` and `{timestamp}` filled in; an `UnknownNodeRef` when the
 * session has none.
 *
 * @internal
 */
export const stepNode = (st: RunState, step: Step, path: readonly string[]): Node | RunError => {
  if (step.node !== undefined) return step.node
  const name = expandName(step.nodeRef, { run_id: st.runId, timestamp: String(st.startedAt) })
  return st.session.get(name) ?? new UnknownNodeRef(path, step.nodeRef)
}

/**
 * The interpreter that runs `node`: registered for its kind and able to
 * execute, or a `MissingInterpreter` saying which is lacking.
 *
 * @internal
 */
export const executorOf = (
  st: RunState,
  node: Node,
  path: readonly string[],
): Interpreter | RunError => {
  const interpreter = st.interpreters.get(node.kind)
  if (interpreter === undefined) return new MissingInterpreter(path, node.kind)
  if (interpreter.execute === undefined && interpreter.executeStream === undefined) {
    return new MissingInterpreter(path, node.kind, 'the interpreter cannot execute')
  }
  return interpreter
}

const EMPTY_UPSTREAM: Upstream = Object.freeze({})

/**
 * The results of step `i`'s dependencies by step id, in `dependsOn` order
 * (`targets[offsets[i]]` up to `targets[offsets[i + 1]]`).
 *
 * @internal
 */
export const upstreamOf = (
  offsets: ArrayLike<number>,
  targets: ArrayLike<number>,
  ids: readonly string[],
  outputs: readonly unknown[],
  i: number,
): Upstream => {
  const first = offsets[i]!
  const last = offsets[i + 1]!
  if (first === last) return EMPTY_UPSTREAM
  // Without a prototype: V8 keeps such an object as a small hash table,
  // instead of making a hidden class per step id (2 µs per step at 10⁴ ids).
  const up = Object.create(null) as Record<string, unknown>
  for (let k = first; k < last; k++) {
    const d = targets[k]!
    up[ids[d]!] = outputs[d]
  }
  return Object.freeze(up)
}
