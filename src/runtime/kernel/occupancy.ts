import type { Node } from '../../node/Node.js'
import type { StepHost } from './StepHost.js'

/**
 * How the kernel tells the session which persistent nodes its steps are
 * running: `occupy` as an attempt starts (before its `step_start` event),
 * `vacate` as it ends (before its `step_error` or `step_complete` event, or
 * when the graph stops). The session's {@link NodeRegistry.occupy} marks
 * the node busy meanwhile; a registry without it costs one property read.
 *
 * @internal
 */
export const occupy = (run: StepHost, i: number, node: Node): void => {
  const session = run.state.session
  if (session.occupy === undefined || !node.persistent) return
  vacate(run, i)
  const release = session.occupy(node)
  if (release !== undefined) (run.holds ??= [])[i] = release
}

/** Step `i`'s attempt ended: the session lets its node go. @internal */
export const vacate = (run: StepHost, i: number): void => {
  const holds = run.holds
  const release = holds?.[i]
  if (release === undefined) return
  holds![i] = undefined
  release()
}
