/**
 * What a node fires with now, if it can, by its trigger and mode: an
 * explicit trigger or a due schedule takes everything waiting; an auto
 * node takes everything new once its trigger is met, its prompt starts it,
 * or it owes itself its next tick; an interactive node takes one envelope — the user's first, else a
 * join's one per input, else the next inbox in round-robin order.
 *
 * @internal
 */
import type { Envelope } from '../model/Envelope.js'
import { routesInto, type NetworkNode } from '../model/Network.js'
import { kindOf } from '../model/triggers/index.js'
import { routeKey, type NodeRun, type RunState } from './runState.js'

/** The envelopes a firing takes, and a message besides them (a trigger's, a schedule's). */
export interface Selection {
  readonly envelopes: Envelope[]
  readonly message?: string
}

/** What `node` fires with now, taken out of its inboxes; undefined when it cannot fire. */
export const select = (s: RunState, node: NetworkNode, st: NodeRun): Selection | undefined => {
  const ins = routesInto(s.net, node.id).map((r) =>
    s.inboxes.get(routeKey(r.edge.id, r.from, r.to))!,
  )
  const stale = [...s.inboxes]
    .filter(([k, i]) => k.endsWith(`>${node.id}`) && i.size > 0 && !ins.includes(i))
    .map(([, i]) => i)
  const all = [st.user, ...ins, ...stale]
  const takeAll = (): Envelope[] => {
    const out: Envelope[] = []
    for (const i of all) for (let e = i.take(); e !== undefined; e = i.take()) out.push(e)
    return out
  }
  if (st.manual.length > 0) return { envelopes: takeAll(), message: st.manual.shift()! }
  if (st.due) {
    st.due = false
    return { envelopes: takeAll(), message: 'scheduled' }
  }
  const { ready, joins } = kindOf(node.trigger)
  if (ready === undefined) return undefined
  const waiting = ins.map((i) => i.size)
  if (node.mode === 'auto') {
    if (!st.started && node.prompt !== undefined) return { envelopes: takeAll() }
    if (!(st.owed || st.user.size > 0 || stale.length > 0 || ready(waiting))) return undefined
    st.owed = false
    return { envelopes: takeAll() }
  }
  const user = st.user.take()
  if (user !== undefined) return { envelopes: [user] }
  if (joins === true) {
    if (!ready(waiting)) return undefined
    return { envelopes: ins.map((i) => i.take()!) }
  }
  if (stale.length === 0 && !ready(waiting)) return undefined
  const others = [...ins, ...stale]
  for (let k = 0; k < others.length; k++) {
    const i = others[(st.rr + k) % others.length]!
    const e = i.take()
    if (e !== undefined) {
      st.rr = (st.rr + k + 1) % others.length
      return { envelopes: [e] }
    }
  }
  return undefined
}
