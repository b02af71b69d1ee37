import type { Interpreter } from '../../node/Interpreter.js'
import type { Node } from '../../node/Node.js'
import { LiveHandles } from '../LiveHandles.js'
import type { RunState } from '../RunState.js'

const NEVER = new AbortController().signal

/** Whether a step on `node` runs on a handle: a persistent node whose interpreter starts it. @internal */
export const needsHandle = (node: Node, interpreter: Interpreter): boolean =>
  node.persistent && interpreter.start !== undefined

/**
 * The handle of a node its session holds but has not started, started by
 * the session on this first use; else the one the run keeps (see
 * {@link runHandle}).
 *
 * @internal
 */
export const startHandle = (st: RunState, node: Node, interpreter: Interpreter): Promise<unknown> =>
  st.session.startFor?.(node, interpreter) ?? runHandle(st, node, interpreter)

/**
 * The handle of `node` that the run keeps (see {@link LiveHandles}): in the
 * table given as `RunOptions.handles`, else in the run's own, made on first
 * need and stopped when the run ends (a straggler's after that, at once).
 *
 * @internal
 */
export const runHandle = (st: RunState, node: Node, interpreter: Interpreter): Promise<unknown> => {
  const ctx = { signal: NEVER, session: st.session }
  if (st.handles !== undefined) return st.handles.get(node, interpreter, ctx)
  const own = new LiveHandles()
  if (st.ended) {
    return own.get(node, interpreter, ctx).finally(() => {
      void own.stopAll()
    })
  }
  st.handles = own
  ;(st.cleanups ??= []).push(() => {
    st.handles = undefined
    return own.stopAll()
  })
  return own.get(node, interpreter, ctx)
}
