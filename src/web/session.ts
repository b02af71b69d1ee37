/**
 * The page's one connection to the daemon that served it: the SDK's
 * NerveClient over the browser's WebSocket (the session cookie opens it),
 * one subscription to every event of the daemon (of every session), decoded by the
 * protocol's codecs in the client; they feed the state and any view that
 * listens (terminals).
 */
import { batch } from '@preact/signals'
import { NerveClient } from '../client/NerveClient.js'
import { taggedError } from '../errors.js'
import type { EngineEvent, Results } from '../protocol/index.js'
import { browserWire } from './browserWire.js'
import {
  addEnvelopes,
  applyNetworkEvent,
  networks,
  patchesReady,
  setNetwork,
} from './networkState.js'
import {
  addRun,
  apply,
  connection,
  defaultSession,
  nodes,
  setNodes,
  setSessions,
  shown,
} from './state.js'

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

/** `GET_RUN` answers asked for or had, by run: those of runs that ended are kept (they do not change), the last few. */
const runInfos = new Map<string, Promise<Results['GET_RUN']>>()
const KEPT_RUNS = 16

/**
 * `GET_RUN` of `runId`: one request while it is on its way, and none again
 * for a run that had ended (an address naming a step, then the run's
 * panel, both read the run).
 */
export const getRun = (runId: string): Promise<Results['GET_RUN']> => {
  const known = runInfos.get(runId)
  if (known !== undefined) return known
  const answer = client().call('GET_RUN', { runId })
  runInfos.set(runId, answer)
  if (runInfos.size > KEPT_RUNS) runInfos.delete(runInfos.keys().next().value!)
  const forget = (): void => {
    if (runInfos.get(runId) === answer) runInfos.delete(runId)
  }
  answer.then((info) => {
    if (info.state === 'running') forget()
  }, forget)
  return answer
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

/** Shows the nodes `LIST_NODES` answered. */
const listed = (list: Results['LIST_NODES']): void => {
  setNodes(list.nodes.map((n) => ({ id: n.id, kind: n.type, state: n.state })))
}

/**
 * Shows the nodes of `sessionId` and acts in it from now: its nodes are
 * listed anew (`LIST_NODES`), events of its nodes applied meanwhile. A
 * session gone meanwhile takes the page back to the default one.
 */
export const chooseSession = async (sessionId: string): Promise<void> => {
  if (shown.value === sessionId) return
  batch(() => {
    shown.value = sessionId
    nodes.value = new Map()
  })
  try {
    const list = await client().call('LIST_NODES', { sessionId })
    if (shown.value === sessionId) listed(list)
  } catch (e) {
    const fallback = defaultSession()
    if (shown.value === sessionId && fallback !== undefined && fallback !== sessionId)
      await chooseSession(fallback)
    throw e
  }
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
  listed(list)
  performance.mark('nerve:nodes')
  void (async () => {
    try {
      void patchesReady()
      const [sessionList, runList, netList] = await Promise.all([
        c.call('LIST_SESSIONS', {}),
        c.call('LIST_RUNS', {}),
        c.call('LIST_NETWORKS', {}),
      ])
      // Known before any event is applied: the nodes listed are the default session's.
      setSessions(sessionList.sessions)
      shown.value ??= defaultSession()
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
        // The session shown was closed: back to the default one.
        if (e.type === 'SESSION_CLOSED' && shown.value === e.sessionId) {
          const fallback = defaultSession()
          if (fallback !== undefined) chooseSession(fallback).catch(() => undefined)
        }
        for (const f of listeners) f(e)
      }
    } finally {
      connection.value = 'lost'
    }
  })().catch(() => undefined)
}
