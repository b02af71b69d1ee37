/**
 * The run's view of the network's shape: a node joining (its state, its
 * mock provider, its session node, its scheduled trigger armed), live
 * edits applied to the running network, and one inbox per way of each
 * edge kept in step with the edges.
 *
 * @internal
 */
import type { NetworkChange } from '../model/edit.js'
import { Inbox } from './Inbox.js'
import { loops, routesInto, type NetworkNode } from '../model/Network.js'
import { kindOf } from '../model/triggers/index.js'
import { mockName, mockProvider, sessionNodeOf } from './providers.js'
import { scheduleTimer } from './runParts.js'
import { noUsage, routeKey, type NodeRun, type RunState } from './runState.js'
import { Stopped } from '../../errors.js'

/** Adds a node to the run: its state, its provider, its session node, its timer. */
export const joinNode = (s: RunState, node: NetworkNode): void => {
  const st: NodeRun = {
    iterations: 0,
    inFlight: false,
    done: false,
    halted: undefined,
    started: false,
    manual: [],
    due: false,
    rr: 0,
    digests: [],
    lastProgress: undefined,
    sameProgress: 0,
    notes: [],
    owed: false,
    written: [],
    usage: noUsage(),
    user: new Inbox({ type: 'queue' }, s.clock, () => {
      s.pump()
    }),
    timer: undefined,
    firing: undefined,
  }
  s.nodes.set(node.id, st)
  if (node.provider.type === 'mock') {
    s.providers[mockName(node.id)] = mockProvider(mockName(node.id), node.provider.script)
  }
  if (!s.session.has(node.id)) s.session.register(sessionNodeOf(node, s.options.root), node.id)
  arm(s, node, st)
}

/** (Re-)arms a node's trigger on the clock (a trigger of a kind without an alarm disarms it). */
const arm = (s: RunState, node: NetworkNode, st: NodeRun): void => {
  st.timer?.abort()
  st.timer = undefined
  const alarm = kindOf(node.trigger).arm?.(node.trigger)
  if (alarm === undefined) return
  st.timer = scheduleTimer(alarm, s.clock, () => {
    st.due = true
    s.pump()
  })
}

/**
 * Makes a change the running network: removed nodes stop (what waits for
 * them is kept), new ones join, changed triggers are re-armed, inboxes
 * follow the edges; published as a `patch` event.
 */
export const applyToRun = (s: RunState, c: NetworkChange, label: string): void => {
  const before = s.net
  s.net = c.network
  if (c.patches.length === 0) return
  for (const id of Object.keys(before.nodes)) {
    if (c.network.nodes[id] === undefined) {
      const st = s.nodes.get(id)
      st?.timer?.abort()
      st?.firing?.abort(new Stopped(`node "${id}" was removed from the network`))
      s.nodes.delete(id)
      if (s.startsIn(id)) void s.session.stop(id).catch(() => undefined)
      s.session.unregister(id)
    }
  }
  for (const node of Object.values(c.network.nodes)) {
    const old = before.nodes[node.id]
    if (old === undefined) joinNode(s, node)
    else if (old.trigger !== node.trigger) arm(s, node, s.nodes.get(node.id)!)
  }
  syncEdges(s)
  s.emit({ type: 'patch', label, patches: c.patches, inverse: c.inverse })
  s.pump()
}

/** One inbox per way of each edge; a removed edge's inbox stays until drained. */
export const syncEdges = (s: RunState): void => {
  const live = new Set<string>()
  for (const id of Object.keys(s.net.nodes)) {
    for (const r of routesInto(s.net, id)) {
      const key = routeKey(r.edge.id, r.from, r.to)
      live.add(key)
      const inbox = s.inboxes.get(key)
      if (inbox === undefined) {
        s.inboxes.set(
          key,
          new Inbox(r.edge.delivery, s.clock, () => {
            s.pump()
          }),
        )
      } else if (inbox.delivery !== r.edge.delivery) inbox.setDelivery(r.edge.delivery)
    }
  }
  for (const [key, inbox] of s.inboxes) {
    if (!live.has(key)) {
      inbox.close()
      if (inbox.size === 0) s.inboxes.delete(key)
    }
  }
  s.loopOf = new Map()
  for (const loop of loops(s.net)) for (const id of loop) s.loopOf.set(id, loop)
}
