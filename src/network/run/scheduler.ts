/**
 * The run's scheduler: offers each node a firing, in network order or the
 * given schedule's, while fewer than `maxInFlight` firings are running and
 * the run is neither paused, cancelled nor stopped; wakes those waiting for
 * the run to go idle once nothing is in flight, held or awaiting approval.
 *
 * @internal
 */
import { fire } from './fireNode.js'
import type { RunState } from './runState.js'
import { select } from './select.js'

/** Lets every node that can fire fire; re-entrant calls return at once. */
export const pump = (s: RunState): void => {
  if (s.pumping) return
  s.pumping = true
  try {
    while (!s.finished && !s.cancelled && !s.paused) {
      if (s.inFlight >= s.net.limits.maxInFlight) break
      let fired = false
      const ids = [...s.nodes.keys()]
      for (const id of s.options.schedule?.(ids) ?? ids) {
        if (s.inFlight >= s.net.limits.maxInFlight) break
        const node = s.net.nodes[id]
        const st = s.nodes.get(id)
        if (node === undefined || st === undefined || st.inFlight || st.done) continue
        if (st.halted !== undefined) continue
        const input = select(s, node, st)
        if (input === undefined) continue
        fired = true
        void fire(s, node, st, input.envelopes, input.message)
      }
      if (!fired) break
    }
  } finally {
    s.pumping = false
  }
  checkIdle(s)
}

const checkIdle = (s: RunState): void => {
  if (s.idle.length === 0) return
  if (!s.cancelled) {
    if (s.inFlight > 0 || s.control.pending().some((p) => p.runId === s.runId)) return
    if ([...s.inboxes.values()].some((i) => i.holding)) return
  }
  wakeIdle(s)
}

/** Resolves every `idle()` waiting. */
export const wakeIdle = (s: RunState): void => {
  const waiting = s.idle
  s.idle = []
  for (const w of waiting) w()
}
