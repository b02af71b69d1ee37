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
import type { Provider } from '../../interpreters/index.js'
import { interpreters, type Interpreter, type InterpreterRegistry } from '../../node/index.js'
import { RunControl, type Clock } from '../../runtime/index.js'
import type { Session } from '../../session/index.js'
import type { ArtifactRef, Envelope, EnvelopeKind, Payload } from '../model/Envelope.js'
import { EnvelopeLog } from '../model/EnvelopeLog.js'
import { routesFrom, type Network } from '../model/Network.js'
import type { AgentTerminals } from './agentTerminals.js'
import { FileLocks } from './FileLocks.js'
import type { Inbox } from './Inbox.js'
import type { NetworkHalt } from './NetworkError.js'
import { NetworkEventHub, type NetworkEvent } from './NetworkEvent.js'
import type { NetworkRunOptions } from './runOptions.js'

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

/** Who sends what the user sends. */
export const USER = 'user'

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

/** A network event as a run's module tells it: the run adds its id. */
export type EventBody = NetworkEvent extends infer E
  ? E extends NetworkEvent
    ? Omit<E, 'runId'>
    : never
  : never

/** The state of one network run, and what its modules do with it. */
export class RunState {
  readonly runId: string
  readonly control: RunControl
  readonly locks: FileLocks
  readonly log = new EnvelopeLog()
  readonly hub = new NetworkEventHub()
  readonly nodes = new Map<string, NodeRun>()
  /** One inbox per way of each edge, by {@link routeKey}. */
  readonly inboxes = new Map<string, Inbox>()
  readonly halts: NetworkHalt[] = []
  /** Envelopes taken by a node that was halted before it fired. */
  readonly unprocessed: Envelope[] = []
  readonly abort = new AbortController()
  /** The llm interpreter of each node (its tools carry the node's policy). */
  readonly llm = new Map<string, Interpreter>()
  readonly providers: Record<string, Provider>
  readonly started: number
  readonly netUsage = noUsage()
  /** What each sub-network's nodes used while in it, rolled up as firings end. */
  readonly subnetUsage = new Map<string, Usage>()
  /** Budgets found spent (`network`, or a sub-network id): their halt is recorded once. */
  readonly spent = new Set<string>()
  /** Each node spawned by a node during the run (see spawn.ts), with its spawner. */
  readonly spawned = new Map<string, string>()
  registry: InterpreterRegistry = interpreters()
  /** The loop (strongly connected component) each node in one belongs to. */
  loopOf = new Map<string, readonly string[]>()
  inFlight = 0
  seq = 0
  paused = false
  cancelled = false
  /** The run was stopped: nothing fires any more. */
  finished = false
  idle: (() => void)[] = []
  pumping = false
  journal: Promise<void> = Promise.resolve()
  /** Lets nodes that can fire fire; set by the run to its scheduler. */
  pump: () => void = () => undefined

  constructor(
    /** The network as it is now (live edits replace it). */
    public net: Network,
    readonly options: NetworkRunOptions,
    readonly clock: Clock,
    readonly session: Session,
    /** The terminals of the CLI agent nodes (and any other `pty` node), their homes and proxies. */
    readonly agents: AgentTerminals,
  ) {
    this.runId = options.runId ?? `run-${net.id}`
    this.control = options.control ?? new RunControl({ clock: this.clock })
    this.locks = options.locks ?? new FileLocks()
    this.providers = { ...options.providers }
    this.started = this.clock.now()
  }

  /**
   * Whether the session starts and stops the node registered as `id`: a
   * persistent node (a CLI agent's terminal) whose kind the session steps with
   * the run's own interpreter, as a session the run made does.
   */
  startsIn(id: string): boolean {
    const node = this.session.get(id)
    return (
      node?.persistent === true &&
      this.session.interpreters.get(node.kind) === this.registry.get(node.kind)
    )
  }

  /** Tells listeners, subscribers and the journal (the event gets the run's id); a listener's failure does not stop the run. */
  emit(body: EventBody): void {
    const { type, ...rest } = body
    const event = { type, runId: this.runId, ...rest } as NetworkEvent
    this.hub.publish(event)
    try {
      this.options.onEvent?.(event)
    } catch {
      // a listener's failure does not stop the run
    }
    const journal = this.options.journal
    if (journal !== undefined) {
      const line = `${JSON.stringify(event)}\n`
      this.journal = this.journal.then(() => appendFile(journal, line)).catch(() => undefined)
    }
  }

  /** Makes an envelope, logs it in the run's DAG and publishes it. */
  record(
    kind: EnvelopeKind,
    from: string,
    to: string,
    payload: Payload,
    causedBy: readonly string[],
  ): Envelope {
    const e: Envelope = Object.freeze({
      id: `e${++this.seq}`,
      kind,
      fromNodeId: from,
      toNodeId: to,
      payload: Object.freeze(payload),
      ...(causedBy.length > 0 && { causedBy: Object.freeze([...causedBy]) }),
      time: this.clock.now() - this.started,
    })
    this.log.add(e)
    this.emit({ type: 'envelope', envelope: e })
    return e
  }

  /** Marks a node Done: it fires no more. */
  finish(nodeId: string, st: NodeRun, reason: string): void {
    st.done = true
    st.timer?.abort()
    this.emit({ type: 'done', nodeId, reason })
  }

  /** Sends along every way out of `from` (and to its spawner); a `done` ends an auto receiver's loop instead of waking it. */
  send(from: string, kind: EnvelopeKind, payload: Payload, causedBy: readonly string[]): void {
    // a spawned node answers its spawner too: logged, read by its await_agent (see spawn.ts)
    const spawner = this.spawned.get(from)
    if (spawner !== undefined && this.net.nodes[spawner] !== undefined) {
      this.record(kind, from, spawner, payload, causedBy)
    }
    for (const r of routesFrom(this.net, from)) {
      const e = this.record(kind, from, r.to, payload, causedBy)
      if (kind === 'done') {
        const target = this.net.nodes[r.to]
        const st = this.nodes.get(r.to)
        if (target?.mode === 'auto' && st !== undefined && !st.done)
          this.finish(r.to, st, `done from ${from}`)
        continue
      }
      this.inboxes.get(routeKey(r.edge.id, r.from, r.to))?.push(e)
    }
  }

  /** Stops `nodes` from firing again and records why. */
  halt(nodes: readonly string[], error: NetworkHalt): void {
    this.halts.push(error)
    for (const id of nodes) {
      const st = this.nodes.get(id)
      if (st === undefined) continue
      st.halted ??= error
      st.timer?.abort()
    }
    this.emit({ type: 'halt', nodes, error: error.name, message: error.message })
  }
}
