/**
 * The running network as one object: its public face (send, trigger, edit
 * and undo, pause, resume, cancel, idle, stop, outcome, usage, events) over
 * the run's state. How a node fires, how its result settles, how the
 * scheduler picks, how edits reach the run and how approvals are asked
 * live in their own modules beside this one.
 */
import { Stopped, UsageError } from '../../errors.js'
import { defaultInterpreters, type ProxyCall } from '../../interpreters/index.js'
import { interpreters, type Interpreter } from '../../node/index.js'
import { systemClock, type RunUsage } from '../../runtime/index.js'
import { createSession, type Session } from '../../session/index.js'
import { AgentTerminals } from './agentTerminals.js'
import { askPermission, llmDispatch } from './approvals.js'
import { applyChange, change, type NetworkChange, type NetworkEdit } from '../model/edit.js'
import type { Envelope, Payload } from '../model/Envelope.js'
import { EnvelopeLog } from '../model/EnvelopeLog.js'
import { FileLocks } from './FileLocks.js'
import type { Inbox } from './Inbox.js'
import type { Delivery, Network } from '../model/Network.js'
import type { NetworkEvent } from './NetworkEvent.js'
import { outcomeOf, type NetworkOutcome } from './outcome.js'
import { checkProvider } from './providers.js'
import { RunControl } from '../../runtime/index.js'
import type { NetworkRunOptions } from './runOptions.js'
import { routeOf, RunState, USER, type NodeRun } from './runState.js'
import { pump, wakeIdle } from './scheduler.js'
import { applyToRun, joinNode, syncEdges } from './topology.js'

export type { NetworkAgentOptions, NetworkRunOptions } from './runOptions.js'
export type { AgentAnswer } from './agentTerminals.js'
export type { NetworkOutcome } from './outcome.js'

const ZERO: RunUsage = Object.freeze({ tokens: 0, apiCalls: 0, cost: 0 })

/**
 * What a sub-network's nodes used so far, as
 * {@link NetworkRun.subnetworkUsage} reads it: each what a budget's limit
 * bounds (`firings` its `maxSteps`, `timeMs` — the firings' time — its
 * `maxTimeMs`, then `maxTokens`, `maxApiCalls`, `maxCost`).
 *
 * @category network run
 */
export interface SubnetworkUsage {
  readonly firings: number
  readonly timeMs: number
  readonly tokens: number
  readonly apiCalls: number
  readonly cost: number
}

/**
 * One inbox of a network run, as {@link NetworkRun.inboxes} reads it.
 *
 * @category network run
 */
export interface InboxInfo {
  /** The edge and the way it carries (no edge for a node's messages from the user). */
  readonly route: {
    readonly edgeId: string | undefined
    readonly from: string
    readonly to: string
  }
  readonly delivery: Delivery['type']
  /** Envelopes that can be taken now. */
  readonly waiting: number
  /** Whether a debounce holds an envelope for later. */
  readonly holding: boolean
  readonly delivered: number
  readonly dropped: number
}

/**
 * A live network running inside a session. Envelopes flow along edges by
 * each edge's delivery; nodes fire by their trigger and mode, through the
 * runtime (one one-step run per firing, with what is left of the node's and
 * the network's budget); at most `maxInFlight` at once. Loops are bounded
 * by `maxIterations` and halted by stall detection. Live edits apply to
 * the running network and are published with their patches. Build one with
 * {@link startNetwork}.
 *
 * @category network run
 */
export class NetworkRun {
  readonly runId: string
  readonly session: Session
  readonly log: EnvelopeLog
  readonly control: RunControl
  readonly locks: FileLocks
  readonly #s: RunState
  readonly #undo: NetworkChange[] = []
  #finished: NetworkOutcome | undefined

  /** @internal use {@link startNetwork}. */
  constructor(net: Network, options: NetworkRunOptions) {
    const clock = options.clock ?? systemClock
    const wrap = options.wrapInterpreter ?? ((i: Interpreter) => i)
    // A node's terminal started again, by the run's session or its own table: every face is told.
    const respawned = (nodeId: string): void => {
      s.emit({ type: 'respawned', nodeId })
    }
    const agents = new AgentTerminals(
      options.agents ?? {},
      (id) => s.net.nodes[id],
      (request, answer) => {
        askPermission(s, request, answer)
      },
      respawned,
    )
    const pty = agents.interpreter
    // A session of the run's own steps its nodes with the run's interpreters,
    // so it is the session that starts and stops the CLI agents' terminals:
    // their state tells the truth about their process.
    const session =
      options.session ??
      createSession({
        clock,
        interpreters: interpreters(...[...defaultInterpreters.values(), pty].map(wrap)),
        onEvent: (e) => {
          if (e.type === 'respawned') respawned(e.name)
        },
      })
    const s: RunState = new RunState(net, options, clock, session, agents)
    s.pump = () => {
      pump(s)
    }
    s.registry = interpreters(
      ...(options.session === undefined
        ? session.interpreters.values()
        : [...session.interpreters.values(), pty].map(wrap)),
      llmDispatch(s),
    )
    this.#s = s
    this.runId = s.runId
    this.session = session
    this.log = s.log
    this.control = s.control
    this.locks = s.locks
    for (const node of Object.values(net.nodes)) joinNode(s, node)
    syncEdges(s)
    this.control.add({
      runId: this.runId,
      label: net.id,
      status: 'running',
      cancel: (reason) => {
        this.cancel(reason)
      },
      pause: () => {
        this.pause()
      },
      resume: () => {
        this.resume()
      },
    })
  }

  /** The network as it is now (after live edits). */
  get network(): Network {
    return this.#s.net
  }

  get status(): 'running' | 'paused' | 'finished' {
    return this.#finished !== undefined ? 'finished' : this.#s.paused ? 'paused' : 'running'
  }

  /** Each call subscribes to the events from now on; the iteration ends with the run. */
  events(): AsyncGenerator<NetworkEvent, void, undefined> {
    return this.#s.hub.subscribe()
  }

  /** Sends a user message to a node (interactive input); it fires by its mode. */
  send(nodeId: string, message: string, payload: Omit<Payload, 'message'> = {}): Envelope {
    const st = this.#require('send', nodeId)
    const e = this.#s.record('message', USER, nodeId, { message, ...payload }, [])
    st.user.push(e)
    return e
  }

  /** Fires a node now (a `manual` node's only way to fire), with `message` if given. */
  trigger(nodeId: string, message = 'manual trigger'): void {
    this.#require('trigger', nodeId).manual.push(message)
    pump(this.#s)
  }

  /**
   * Applies edits to the running network as one change: new nodes join,
   * removed ones stop firing (a firing in flight is aborted; what waits
   * for them is kept), edges and their deliveries follow. Published as a `patch` event and journaled; {@link NetworkRun.undo}
   * applies the inverse.
   */
  edit(...edits: readonly NetworkEdit[]): NetworkChange {
    const c = change(...edits)(this.#s.net)
    applyToRun(this.#s, c, edits.map((e) => e.label).join(', '))
    if (c.patches.length > 0) this.#undo.push(c)
    return c
  }

  /** Undoes the last edit not undone yet; false when there is none. */
  undo(): boolean {
    const last = this.#undo.pop()
    if (last === undefined) return false
    applyToRun(
      this.#s,
      {
        network: applyChange(last.inverse)(this.#s.net),
        patches: last.inverse,
        inverse: last.patches,
      },
      'undo',
    )
    return true
  }

  pause(): void {
    if (this.#s.paused || this.#finished !== undefined) return
    this.#s.paused = true
    this.#s.emit({ type: 'paused' })
  }

  resume(): void {
    if (!this.#s.paused) return
    this.#s.paused = false
    this.#s.emit({ type: 'resumed' })
    pump(this.#s)
  }

  /** Stops at once: firings in flight are aborted, their locks released. */
  cancel(reason: unknown = new Stopped('the network was cancelled')): void {
    if (this.#finished !== undefined || this.#s.cancelled) return
    this.#s.cancelled = true
    this.#s.abort.abort(reason)
    wakeIdle(this.#s)
  }

  /** Lets nodes that can fire fire (auto nodes with a prompt start so); `startNetwork` does it once. */
  kick(): void {
    pump(this.#s)
  }

  /** Resolves when nothing is in flight and nothing can fire (or the run was cancelled). */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.#s.idle.push(resolve)
      pump(this.#s)
    })
  }

  /** Ends the run: cancels what is left, stops terminals, resolves with the outcome. */
  async stop(): Promise<NetworkOutcome> {
    if (this.#finished !== undefined) return this.#finished
    const s = this.#s
    if (s.inFlight > 0) this.cancel(new Stopped('the network was stopped'))
    for (const st of s.nodes.values()) st.timer?.abort()
    for (const inbox of s.inboxes.values()) inbox.close()
    const outcome = this.outcome()
    this.#finished = outcome
    s.finished = true
    this.control.remove(this.runId)
    s.emit({ type: 'finished', status: outcome.status })
    const terminals = Object.keys(s.net.nodes).filter((id) => s.startsIn(id))
    await Promise.all(terminals.map((id) => s.session.stop(id).catch(() => undefined)))
    await s.agents.close()
    await s.journal
    s.hub.close()
    return outcome
  }

  /** The outcome so far. */
  outcome(): NetworkOutcome {
    return outcomeOf(this.#s)
  }

  /**
   * Every inbox of the run: each node's inbox of messages from the user
   * (edge `undefined`, from `user`), then one per way of each edge, with how
   * many envelopes wait in it, whether a debounce holds one, and how many
   * were taken or dropped.
   */
  inboxes(): readonly InboxInfo[] {
    const s = this.#s
    const info = (route: InboxInfo['route'], inbox: Inbox): InboxInfo => ({
      route,
      delivery: inbox.delivery.type,
      waiting: inbox.size,
      holding: inbox.holding,
      delivered: inbox.delivered,
      dropped: inbox.dropped,
    })
    return [
      ...[...s.nodes].map(([id, st]) => info({ edgeId: undefined, from: USER, to: id }, st.user)),
      ...[...s.inboxes].map(([key, inbox]) => info(routeOf(key), inbox)),
    ]
  }

  /**
   * Every model call the run's CLI agents made through its proxies so far,
   * in the order they were answered: a tape that replays the run with no
   * API (`agents: { upstream: { _tag: 'replay', calls } }`).
   */
  modelCalls(): readonly ProxyCall[] {
    return this.#s.agents.calls()
  }

  /** What each sub-network's nodes used so far, by sub-network id (those that fired). */
  subnetworkUsage(): Readonly<Record<string, SubnetworkUsage>> {
    return Object.fromEntries(
      [...this.#s.subnetUsage].map(([id, u]): [string, SubnetworkUsage] => [id, { ...u }]),
    )
  }

  /** Usage of the whole network so far. */
  usage(): RunUsage {
    const { tokens, apiCalls, cost } = this.#s.netUsage
    return tokens + apiCalls + cost === 0 ? ZERO : { tokens, apiCalls, cost }
  }

  #require(api: string, nodeId: string): NodeRun {
    const st = this.#s.nodes.get(nodeId)
    if (st === undefined) {
      throw new UsageError(`NetworkRun.${api}`, `the network has no node "${nodeId}"`)
    }
    return st
  }
}

/**
 * Starts a network in a session: checks every node's provider first (a
 * missing CLI binary rejects with {@link MissingBinary} before anything
 * runs), registers the nodes, arms scheduled triggers, and sends auto nodes
 * with a prompt on their first iteration.
 *
 * @category network run
 */
export const startNetwork = async (
  net: Network,
  options: NetworkRunOptions,
): Promise<NetworkRun> => {
  if ((net as Network | undefined)?._tag !== 'Network') {
    throw new UsageError('startNetwork', 'expects a Network')
  }
  if (typeof (options as Partial<NetworkRunOptions> | undefined)?.root !== 'string') {
    throw new UsageError('startNetwork', 'options.root (the workspace directory) is required')
  }
  for (const node of Object.values(net.nodes)) await checkProvider(node)
  const r = new NetworkRun(net, options)
  setImmediate(() => {
    r.kick()
  })
  return r
}
