import type { RunEvent } from '../runtime/RunEvent.js'
import type { Live, NodeTable } from './NodeTable.js'

/**
 * Marks the persistent nodes of a table `busy` while a run's steps execute
 * them: `onEvent` takes the run's events, `acquire` and `release` count a
 * node's executes (the session moves it between `ready` and `busy`), and
 * `releaseAll` lets go of what the run still holds when it ends.
 *
 * @internal
 */
export interface BusyTracker {
  onEvent(event: RunEvent): void
  releaseAll(): void
}

/**
 * A {@link BusyTracker} over `nodes`, or `undefined` when no node of the
 * table is persistent (events cost the runtime something only when someone
 * listens).
 *
 * @internal
 */
export const busyTracker = (
  nodes: NodeTable,
  acquire: (entry: Live) => void,
  release: (entry: Live) => void,
): BusyTracker | undefined => {
  const some =
    nodes.embedded.size > 0 || [...nodes.registered.values()].some((e) => e.node.persistent)
  if (!some) return undefined
  /** What each running step (by path) holds. */
  const held = new Map<string, Live>()
  return {
    onEvent(event: RunEvent): void {
      if (
        event.type !== 'step_start' &&
        event.type !== 'step_error' &&
        event.type !== 'step_complete'
      )
        return
      const key = event.path.join('/')
      const before = held.get(key)
      if (before !== undefined) {
        held.delete(key)
        release(before)
      }
      if (event.type !== 'step_start') return
      const entry = nodes.registered.get(event.nodeId) ?? nodes.embedded.get(event.nodeId)
      if (entry === undefined || entry.node.id !== event.nodeId || !entry.node.persistent) return
      if (entry.state !== 'ready' && entry.state !== 'busy') return
      held.set(key, entry)
      acquire(entry)
    },
    releaseAll(): void {
      for (const entry of held.values()) release(entry)
      held.clear()
    },
  }
}
