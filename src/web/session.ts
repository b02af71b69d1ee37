/**
 * The page's one connection to the daemon that served it: the SDK's
 * NerveClient over the browser's WebSocket (the session cookie opens it),
 * one subscription to every event of the session, decoded by the
 * protocol's codecs in the client; they feed the state and any view that
 * listens (terminals).
 */
import { NerveClient } from '../client/NerveClient.js'
import type { EngineEvent } from '../protocol/index.js'
import { browserWire } from './browserWire.js'
import { addRun, apply, connection, setNodes } from './state.js'

let current: NerveClient | undefined
const listeners = new Set<(e: EngineEvent) => void>()

/** The connection (after {@link start} resolved). */
export const client = (): NerveClient => {
  if (current === undefined) throw new Error('client(): the dashboard is not connected yet')
  return current
}

/** Calls `f` with every event from now; returns the call that stops it. */
export const onEvent = (f: (e: EngineEvent) => void): (() => void) => {
  listeners.add(f)
  return () => {
    listeners.delete(f)
  }
}

/** Connects, subscribes, then loads the nodes and runs there are. */
export const start = async (): Promise<void> => {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
  const c = await NerveClient.open(browserWire(`${scheme}://${location.host}/ws`))
  current = c
  // Subscribed first: nothing that happens while the lists load is missed.
  const events = await c.subscribe({})
  const [list, runList] = await Promise.all([c.call('LIST_NODES', {}), c.call('LIST_RUNS', {})])
  setNodes(list.nodes.map((n) => ({ id: n.id, kind: n.type, state: n.state })))
  for (const r of runList.runs) addRun(r)
  connection.value = 'open'
  void (async () => {
    try {
      for await (const e of events) {
        apply(e)
        for (const f of listeners) f(e)
      }
    } finally {
      connection.value = 'lost'
    }
  })().catch(() => undefined)
}
