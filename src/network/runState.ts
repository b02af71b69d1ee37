/**
 * The bookkeeping of one network run, shared by the modules that drive it
 * (topology, scheduling, firing, settling, approvals, outcome): the network
 * as it is now, each node's state, the inboxes of the edges, halts, usage
 * counters, and the few operations every one of them needs — record an
 * envelope, send along the edges, emit an event, mark a node Done, halt.
 *
 * @internal
 */
import { appendFile } from 'node:fs/promises'
import type { Interpreter, InterpreterRegistry } from '../node/index.js'
import type { Provider } from '../interpreters/index.js'
import type { AgentTerminals } from './agentTerminals.js'
import type { Clock } from '../runtime/index.js'
import type { Session } from '../session/index.js'
import type { ArtifactRef, Envelope, EnvelopeKind, Payload } from './Envelope.js'
import type { EnvelopeLog } from './EnvelopeLog.js'
import type { FileLocks } from './FileLocks.js'
import type { Inbox } from './Inbox.js'
import { routesFrom, type Network } from './Network.js'
import type { NetworkHalt } from './NetworkError.js'
import type { NetworkEvent, NetworkEventHub } from './NetworkEvent.js'
import type { NetworkRunOptions } from './runOptions.js'
import type { RunControl } from '../runtime/index.js'

/** What a node or the network used so far, counted up as firings end. */
export interface Usage {
  tokens: number
  apiCalls: number
  cost: number
  timeMs: number
  firings: number
}

/** The live state of one node of the run. */
export interface NodeRun {
  iterations: number
  inFlight: boolean
  done: boolean
  halted: NetworkHalt | undefined
  started: boolean
  /** Messages of explicit triggers not fired yet. */
  manual: string[]
  /** A scheduled trigger came due. */
  due: boolean
  /** Round-robin position over the inboxes of an `any` node. */
  rr: number
  /** The last `stallAfter` output or error digests. */
  digests: string[]
  lastProgress: string | undefined
  sameProgress: number
  /** What the next tick of an auto node tells besides its envelopes. */
  notes: string[]
  /**
   * An auto node outside a loop of the network ended an iteration without
   * Done: nothing upstream will wake it, so it owes itself the next tick.
   */
  owed: boolean
  /** Artifacts written during the firing in flight. */
  written: ArtifactRef[]
  usage: Usage
  /** Messages from the user. */
  user: Inbox
  timer: AbortController | undefined
  /** Aborts the firing in flight, if any (the node was removed). */
  firing: AbortController | undefined
}

/** The state of one network run. */
export interface RunState {
  readonly runId: string
  readonly options: NetworkRunOptions
  readonly clock: Clock
  readonly session: Session
  readonly control: RunControl
  readonly locks: FileLocks
  readonly log: EnvelopeLog
  readonly hub: NetworkEventHub
  readonly nodes: Map<string, NodeRun>
  /** One inbox per way of each edge, by {@link routeKey}. */
  readonly inboxes: Map<string, Inbox>
  readonly halts: NetworkHalt[]
  /** Envelopes taken by a node that was halted before it fired. */
  readonly unprocessed: Envelope[]
  readonly abort: AbortController
  /** The terminals of the CLI agent nodes (and any other `pty` node), their homes and proxies. */
  readonly agents: AgentTerminals
  /** The llm interpreter of each node (its tools carry the node's policy). */
  readonly llm: Map<string, Interpreter>
  readonly providers: Record<string, Provider>
  readonly started: number
  readonly netUsage: Usage
  /** What each sub-network's nodes used while in it, rolled up as firings end. */
  readonly subnetUsage: Map<string, Usage>
  /** Budgets found spent (`network`, or a sub-network id): their halt is recorded once. */
  readonly spent: Set<string>
  /** Each node spawned by a node during the run (see spawn.ts), with its spawner. */
  readonly spawned: Map<string, string>
  registry: InterpreterRegistry
  net: Network
  /** The loop (strongly connected component) each node in one belongs to. */
  loopOf: Map<string, readonly string[]>
  inFlight: number
  seq: number
  paused: boolean
  cancelled: boolean
  /** The run was stopped: nothing fires any more. */
  finished: boolean
  idle: (() => void)[]
  pumping: boolean
  journal: Promise<void>
  /** Lets nodes that can fire fire; set by the run to its scheduler. */
  pump: () => void
}

/** Who sends what the user sends. */
export const USER = 'user'

/**
 * Whether the session starts and stops the node registered as `id`: a
 * persistent node (a CLI agent's terminal) whose kind the session steps with
 * the run's own interpreter, as a session the run made does.
 */
export const startsIn = (s: RunState, id: string): boolean => {
  const node = s.session.get(id)
  return (
    node?.persistent === true && s.session.interpreters.get(node.kind) === s.registry.get(node.kind)
  )
}

/** A fresh usage counter. */
export const noUsage = (): Usage => ({ tokens: 0, apiCalls: 0, cost: 0, timeMs: 0, firings: 0 })

/** The key of the inbox of one way of an edge. */
export const routeKey = (edgeId: string, from: string, to: string): string =>
  `${edgeId}:${from}>${to}`

/** The edge and the way of a {@link routeKey}: no edge id holds `:`, no node id `>`. */
export const routeOf = (key: string): { edgeId: string; from: string; to: string } => {
  const colon = key.indexOf(':')
  const way = key.slice(colon + 1)
  const arrow = way.indexOf('>')
  return { edgeId: key.slice(0, colon), from: way.slice(0, arrow), to: way.slice(arrow + 1) }
}

/** Tells listeners, subscribers and the journal; a listener's failure does not stop the run. */
export const emit = (s: RunState, event: NetworkEvent): void => {
  s.hub.publish(event)
  try {
    s.options.onEvent?.(event)
  } catch {
    // a listener's failure does not stop the run
  }
  const journal = s.options.journal
  if (journal !== undefined) {
    const line = `${JSON.stringify(event)}\n`
    s.journal = s.journal.then(() => appendFile(journal, line)).catch(() => undefined)
  }
}

/** Makes an envelope, logs it in the run's DAG and publishes it. */
export const record = (
  s: RunState,
  kind: EnvelopeKind,
  from: string,
  to: string,
  payload: Payload,
  causedBy: readonly string[],
): Envelope => {
  const e: Envelope = Object.freeze({
    id: `e${++s.seq}`,
    kind,
    fromNodeId: from,
    toNodeId: to,
    payload: Object.freeze(payload),
    ...(causedBy.length > 0 && { causedBy: Object.freeze([...causedBy]) }),
    time: s.clock.now() - s.started,
  })
  s.log.add(e)
  emit(s, { type: 'envelope', runId: s.runId, envelope: e })
  return e
}

/** Marks a node Done: it fires no more. */
export const finish = (s: RunState, nodeId: string, st: NodeRun, reason: string): void => {
  st.done = true
  st.timer?.abort()
  emit(s, { type: 'done', runId: s.runId, nodeId, reason })
}

/** Sends along every way out of `from` (and to its spawner); a `done` ends an auto receiver's loop instead of waking it. */
export const send = (
  s: RunState,
  from: string,
  kind: EnvelopeKind,
  payload: Payload,
  causedBy: readonly string[],
): void => {
  // a spawned node answers its spawner too: logged, read by its await_agent (see spawn.ts)
  const spawner = s.spawned.get(from)
  if (spawner !== undefined && s.net.nodes[spawner] !== undefined) {
    record(s, kind, from, spawner, payload, causedBy)
  }
  for (const r of routesFrom(s.net, from)) {
    const e = record(s, kind, from, r.to, payload, causedBy)
    if (kind === 'done') {
      const target = s.net.nodes[r.to]
      const st = s.nodes.get(r.to)
      if (target?.mode === 'auto' && st !== undefined && !st.done)
        finish(s, r.to, st, `done from ${from}`)
      continue
    }
    s.inboxes.get(routeKey(r.edge.id, r.from, r.to))?.push(e)
  }
}

/** Stops `nodes` from firing again and records why. */
export const halt = (s: RunState, nodes: readonly string[], error: NetworkHalt): void => {
  s.halts.push(error)
  for (const id of nodes) {
    const st = s.nodes.get(id)
    if (st === undefined) continue
    st.halted ??= error
    st.timer?.abort()
  }
  emit(s, { type: 'halt', runId: s.runId, nodes, error: error.name, message: error.message })
}
