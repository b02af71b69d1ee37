/**
 * The page's one connection to the daemon that served it: the SDK's
 * NerveClient over the browser's WebSocket (the session cookie opens it),
 * one subscription to every event of the session, decoded by the
 * protocol's codecs in the client; they feed the state and any view that
 * listens (terminals).
 */
import { NerveClient } from '../client/NerveClient.js'
import { taggedError } from '../errors.js'
import type { EngineEvent } from '../protocol/index.js'
import { browserWire } from './browserWire.js'
import {
  addEnvelopes,
  applyNetworkEvent,
  networks,
  patchesReady,
  setNetwork,
} from './networkState.js'
import { addRun, apply, connection, setNodes } from './state.js'

/**
 * The dashboard was asked for its connection before {@link start} made it.
 *
 * @category dashboard
 */
export class NotConnected extends taggedError('NotConnected', 'invalidState') {
  constructor() {
    super('client(): the dashboard is not connected yet')
  }
}

let current: NerveClient | undefined
const listeners = new Set<(e: EngineEvent) => void>()

/** The connection (after {@link start} resolved). */
export const client = (): NerveClient => {
  if (current === undefined) throw new NotConnected()
  return current
}

/** Calls `f` with every event from now; returns the call that stops it. */
export const onEvent = (f: (e: EngineEvent) => void): (() => void) => {
  listeners.add(f)
  return () => {
    listeners.delete(f)
  }
}

/** Fetches a network's envelopes so far (its value first when the page has not got it). */
const follow = async (c: NerveClient, networkId: string): Promise<void> => {
  try {
    if (!networks.value.has(networkId)) setNetwork(await c.call('GET_NETWORK', { networkId }))
    addEnvelopes(networkId, (await c.call('GET_ENVELOPES', { networkId })).envelopes)
  } catch {
    // A network gone meanwhile: nothing to show.
  }
}

/** Networks whose value is read again soon (their inbox counts change with their events). */
const stale = new Set<string>()

/** Reads a network again a moment after its events, once for all that come meanwhile. */
const refresh = (c: NerveClient, networkId: string): void => {
  if (stale.has(networkId)) return
  stale.add(networkId)
  setTimeout(() => {
    stale.delete(networkId)
    c.call('GET_NETWORK', { networkId }).then(setNetwork, () => undefined)
  }, 250)
}

/**
 * Connects over `socket` (opened by the entry), subscribes and lists the nodes (one round trip: the daemon runs
 * a connection's calls in order, so the subscription is in place before
 * the list is made), then resolves, so the node list is drawn at once; the
 * runs and networks are listed next, and then the events applied (the
 * connection's state turns `open`).
 */
export const start = async (socket: WebSocket): Promise<void> => {
  const c = await NerveClient.open(browserWire(socket))
  current = c
  // Subscribed first: nothing that happens while the lists load is missed.
  const [events, list] = await Promise.all([c.subscribe({}), c.call('LIST_NODES', {})])
  setNodes(list.nodes.map((n) => ({ id: n.id, kind: n.type, state: n.state })))
  performance.mark('nerve:nodes')
  void (async () => {
    try {
      void patchesReady()
      const [runList, netList] = await Promise.all([
        c.call('LIST_RUNS', {}),
        c.call('LIST_NETWORKS', {}),
      ])
      for (const r of runList.runs) addRun(r)
      for (const n of netList.networks) {
        setNetwork(n)
        void follow(c, n.networkId)
      }
      connection.value = 'open'
      for await (const e of events) {
        if (e.type === 'NETWORK_PATCHED') await patchesReady()
        if (e.type === 'NETWORK_CREATED') setNetwork(e.info)
        else if ('networkId' in e) {
          // A network this page has not seen yet: its whole value first.
          if (applyNetworkEvent(e)) void follow(c, e.networkId)
          else refresh(c, e.networkId)
        } else apply(e)
        for (const f of listeners) f(e)
      }
    } finally {
      connection.value = 'lost'
    }
  })().catch(() => undefined)
}
