import type { Interpreter } from '../../node/Interpreter.js'
import type { Node } from '../../node/Node.js'
import { LiveHandles } from '../LiveHandles.js'
import { emitNodeRespawned } from '../RunEvent.js'
import type { RunState } from '../RunState.js'

const NEVER = new AbortController().signal

/** Whether a step on `node` runs on a handle: a persistent node whose interpreter starts it. @internal */
export const needsHandle = (node: Node, interpreter: Interpreter): boolean =>
  node.persistent && interpreter.start !== undefined

/**
 * The handle of a node its session holds but has not started, started by
 * the session on this first use; else the one the run keeps (see
 * {@link runHandle}) for the step at `path`.
 *
 * @internal
 */
export const startHandle = (
  st: RunState,
  node: Node,
  interpreter: Interpreter,
  path: readonly string[],
): Promise<unknown> =>
  st.session.startFor?.(node, interpreter) ?? runHandle(st, node, interpreter, path)

/**
 * The handle of `node` that the run keeps (see {@link LiveHandles}) for
 * the step at `path`: in the table given as `RunOptions.handles`, else in
 * the run's own, made on first need and stopped when the run ends (a
 * straggler's after that, at once). A respawn is told as the run's
 * `node_respawned`.
 *
 * @internal
 */
export const runHandle = (
  st: RunState,
  node: Node,
  interpreter: Interpreter,
  path: readonly string[],
): Promise<unknown> => {
  const ctx = { signal: NEVER, session: st.session }
  const respawned = (): void => {
    emitNodeRespawned(st, path, node.id, node.kind, st.clock.now())
  }
  if (st.handles !== undefined) return st.handles.get(node, interpreter, ctx, respawned)
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
  return own.get(node, interpreter, ctx, respawned)
}
