import type { Meta } from '../dag/Vertex.js'
import { UsageError } from '../errors.js'
import { isGraph, type Graph } from '../graph/Graph.js'
import { graphParts, isStaticName } from '../graph/graphParts.js'
import { respawn, type InterpreterRegistry } from '../node/Interpreter.js'
import type { NodeRegistry, StateCell } from '../node/NodeRegistry.js'
import { requireName } from '../node/name.js'
import { isNode, type Node } from '../node/Node.js'
import type { NodeInfo } from '../node/NodeInfo.js'
import { canTransition, type NodeState } from '../node/NodeState.js'
import type { Clock } from '../runtime/Clock.js'
import { run } from '../runtime/run.js'
import { runNode } from '../runtime/runNode.js'
import { executeRunOptions } from './executeRun.js'
import {
  forkGraphNodes,
  forkNode,
  type ForkGraphOptions,
  type ForkHost,
  type ForkOptions,
} from './forkNodes.js'
import { infoOf, live, NodeTable, type Live } from './NodeTable.js'
import { isoTime } from './isoTime.js'
import {
  ExecuteTimeout,
  IllegalNodeTransition,
  NameTaken,
  NodeStopped,
  SessionClosed,
  StartFailed,
  UnknownNode,
} from './SessionError.js'
import {
  DEFAULT_EVENT_BUFFER,
  EventHub,
  type SessionEvent,
  type SessionEventType,
  type SessionNodeEvent,
} from './SessionEvent.js'
import type { SessionConfig, SessionExecuteOptions, SessionInfo } from './SessionOptions.js'

const settleAll = async (work: readonly Promise<void>[]): Promise<void> => {
  const outcomes = await Promise.allSettled(work)
  const failed = outcomes.find((o) => o.status === 'rejected')
  if (failed !== undefined) throw failed.reason
}

const NEVER = new AbortController().signal

/**
 * The one mutable cell of Nerve: nodes registered by name, the lifecycle
 * ({@link NodeState}) and live state of persistent nodes, their state cells,
 * and the events of all that. Build one with {@link createSession}; it is the
 * {@link NodeRegistry} that runs look `nodeRef`s up in.
 *
 * Lifecycle: `register` leaves a node `created`; `start` brings it to
 * `ready` (a persistent node through its interpreter's `start`, a graph by
 * starting the persistent nodes inside it, any other node at once);
 * `execute` makes it `busy` while it runs; `stop` ends it (`stopped` is
 * final). The session keeps the handle that a persistent node's interpreter
 * `start` answers, hands it to each step on the node (`ctx.live`) and to the
 * interpreter's `stop`; a run's first step on a node it holds but has not
 * started starts it.
 *
 * @category session
 */
export class Session implements NodeRegistry {
  readonly id: string
  readonly name: string
  readonly tags: readonly string[]
  readonly metadata: Meta
  /** ISO 8601, by the session's clock. */
  readonly createdAt: string
  readonly interpreters: InterpreterRegistry
  readonly clock: Clock
  readonly #nodes: NodeTable
  readonly #now: () => string
  readonly #hub = new EventHub((dropped) =>
    Object.freeze({ type: 'lagged' as const, session: this.id, dropped, time: this.#now() }),
  )
  readonly #onEvent: ((event: SessionNodeEvent) => void) | undefined
  readonly #lifetime = new AbortController()
  readonly #forkHost: ForkHost
  #closing: Promise<void> | undefined

  /** @internal use {@link createSession}, which checks the options. */
  constructor(config: SessionConfig) {
    this.id = config.id
    this.name = config.name
    this.tags = config.tags
    this.metadata = config.metadata
    this.interpreters = config.interpreters
    this.clock = config.clock
    this.#onEvent = config.onEvent
    this.#now = isoTime(config.clock)
    this.createdAt = this.#now()
    this.#nodes = new NodeTable(this.id, (entry, from) => {
      this.#emit('forked', entry, from)
    })
    this.#forkHost = Object.freeze({
      nodes: this.#nodes,
      session: this,
      interpreters: this.interpreters,
      lifetime: this.#lifetime.signal,
      isClosed: () => this.closed,
      now: this.#now,
    })
    Object.freeze(this)
  }

  /** The number of registered nodes. */
  get size(): number {
    return this.#nodes.registered.size
  }

  /** Whether {@link Session.close} was called. */
  get closed(): boolean {
    return this.#closing !== undefined
  }

  /**
   * Registers a node under `name` (default: its id), in state `created`.
   * Throws {@link NameTaken} for a name the session has, {@link SessionClosed}
   * after `close`, a `UsageError` for a name that breaks the name rule.
   */
  register<N extends Node>(node: N, name: string = node.id): N {
    this.#requireOpen()
    if (!isNode(node))
      throw new UsageError('Session.register', `expects a Node, got ${String(node)}`)
    requireName('Session.register', 'the name', name)
    if (this.#nodes.taken(name)) throw new NameTaken(this.id, name)
    const entry = live(node, name, 'created')
    this.#nodes.add(entry)
    this.#emit('created', entry)
    return node
  }

  /**
   * Forgets a node and its state cell, without stopping it (a live process
   * keeps running). False when the session has no such name.
   */
  unregister(name: string): boolean {
    const entry = this.#nodes.remove(name)
    if (entry === undefined) return false
    this.#emit('removed', entry)
    return true
  }

  /** The node registered under `name`. */
  get(name: string): Node | undefined {
    return this.#nodes.registered.get(name)?.node
  }

  has(name: string): boolean {
    return this.#nodes.registered.has(name)
  }

  /**
   * What the persistent node registered under `name` runs on while it is
   * started — its handle, what its interpreter's `start` answered (a
   * terminal for a terminal kind); `undefined` for a node not started.
   */
  live(name: string): unknown {
    const entry = this.#nodes.registered.get(name)
    return entry?.up === true ? entry.handle : undefined
  }

  /**
   * Where the session keeps the handle of `node` (registered under its id,
   * or inside a registered graph) while it is `ready` or `busy`, for a run
   * that steps it with the session's interpreter of its kind or a wrapper
   * that keeps its `start` (a recorder): what the step gets as `ctx.live`.
   * Another interpreter (one with a `start` of its own) gets `undefined`,
   * and its run starts the node itself.
   */
  handleOf(node: Node, interpreter: object): { readonly handle: unknown } | undefined {
    const entry = this.#nodes.runningOf(node)
    if (entry === undefined || !entry.up || (entry.state !== 'ready' && entry.state !== 'busy')) {
      return undefined
    }
    return this.#startsWith(node, interpreter) && !this.#exited(entry) ? entry : undefined
  }

  /**
   * Starts, for a run's step, a persistent node the session holds (as
   * {@link Session.handleOf} finds it) that is `created` or `starting`,
   * and resolves with its handle: a registered node not started yet starts
   * on its first use, and stays up for the runs after it. A node `ready`
   * or `busy` whose handle is no longer alive (its interpreter's `alive`
   * says so: a terminal whose program exited) is respawned: the dead
   * handle stopped, a fresh one started in its place, and a `respawned`
   * event told.
   */
  startFor(node: Node, interpreter: object): Promise<unknown> | undefined {
    const entry = this.#nodes.runningOf(node)
    if (entry === undefined || this.closed) return undefined
    if (!this.#startsWith(node, interpreter)) return undefined
    if (entry.state === 'created' || entry.state === 'starting') {
      return this.#startLive(entry).then(() => entry.handle)
    }
    if ((entry.state === 'ready' || entry.state === 'busy') && this.#exited(entry)) {
      return this.#respawn(entry).then(() => entry.handle)
    }
    return undefined
  }

  /** Whether the handle of a started node is being replaced, or its interpreter says it no longer runs. */
  #exited(entry: Live): boolean {
    if (entry.respawning !== undefined) return true
    const interpreter = this.interpreters.get(entry.node.kind)
    return entry.up && interpreter?.alive?.(entry.node, entry.handle) === false
  }

  /** Whether `interpreter` is the session's for `node`'s kind, or a wrapper keeping its `start`. */
  #startsWith(node: Node, interpreter: object): boolean {
    const own = this.interpreters.get(node.kind)
    return (
      own === interpreter ||
      (own?.start !== undefined && own.start === (interpreter as { start?: unknown }).start)
    )
  }

  /** The registered names, in registration order. */
  names(): readonly string[] {
    return [...this.#nodes.registered.keys()]
  }

  /** The state of the node registered under `name`. */
  state(name: string): NodeState | undefined {
    return this.#nodes.registered.get(name)?.state
  }

  /** Every registered node with its state; `id` is the name it is registered under. */
  listNodes(): readonly NodeInfo[] {
    return [...this.#nodes.registered.values()].map(infoOf)
  }

  /** The registered nodes in state `ready`. */
  listReadyNodes(): readonly NodeInfo[] {
    return [...this.#nodes.registered.values()].filter((e) => e.state === 'ready').map(infoOf)
  }

  /** The cell holding the live value of the node with this id (an LLM node's conversation head). */
  cell(nodeId: string): StateCell {
    return this.#nodes.cell(nodeId)
  }

  /**
   * Starts the node registered under `name`, or every registered node not
   * started yet (stopped ones are skipped). Resolves when they are `ready`;
   * a failed start leaves its node `stopped` and rejects with
   * {@link StartFailed} (after the other starts have settled).
   */
  async start(name?: string): Promise<void> {
    this.#requireOpen()
    if (name !== undefined) return this.#startLive(this.#require(name))
    const idle = [...this.#nodes.registered.values()].filter((e) => e.state === 'created')
    return settleAll(idle.map((e) => this.#startLive(e)))
  }

  /**
   * Stops the node registered under `name` (a graph: with the persistent
   * nodes directly inside it), or every node. Idempotent. A failing
   * interpreter `stop` still leaves its node `stopped`, and rejects after
   * the other stops have settled.
   */
  async stop(name?: string): Promise<void> {
    if (name !== undefined) return this.#stopLive(this.#require(name))
    const all = [...this.#nodes.registered.values(), ...this.#nodes.embedded.values()]
    return settleAll(all.map((e) => this.#stopLive(e)))
  }

  /**
   * Runs the node registered under `name` on `input`, starting it first if
   * it is `created`; it is `busy` meanwhile. A graph answers its results by
   * step id and rejects with the run's error. Any other node runs as the
   * kernel's one step (its events those of a graph `name` holding only
   * that step) and answers its result; when it fails, the rejection is
   * the node's own error (the runtime's `StepFailed` is unwrapped), while
   * errors of the run itself (`Cancelled`, `BudgetExceeded`,
   * `MissingInterpreter`) come as they are. {@link NodeStopped} for a node
   * that is stopped, {@link UnknownNode}, {@link SessionClosed}; past
   * `timeoutMs`, {@link ExecuteTimeout}; stopped by {@link Session.interrupt},
   * the reason given there.
   */
  async execute(
    name: string,
    input: unknown,
    options: SessionExecuteOptions = {},
  ): Promise<unknown> {
    this.#requireOpen()
    const entry = this.#require(name)
    await this.#startLive(entry)
    if (isGraph(entry.node)) await this.#startRefs(entry.node, new Set([name]))
    if (entry.state !== 'ready' && entry.state !== 'busy') {
      throw new NodeStopped(this.id, name, entry.state === 'stopping' ? 'stopping' : 'stopped')
    }
    const { signal, timeoutMs } = options
    // The execute's own signal: the caller's forwarded to it, and how an interrupt or the timeout stops it.
    const own = new AbortController()
    const forward = (): void => {
      own.abort(signal?.reason)
    }
    if (signal?.aborted === true) forward()
    else signal?.addEventListener('abort', forward, { once: true })
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            own.abort(new ExecuteTimeout(this.id, name, timeoutMs))
          }, timeoutMs)
    const running = (entry.running ??= new Set())
    running.add(own)
    this.#acquire(entry)
    try {
      return await this.#run(name, entry.node, input, { ...options, signal: own.signal })
    } catch (e) {
      // Stopped by an interrupt or the timeout (not by the caller's signal): the reason is the answer.
      const stopped = own.signal.aborted && signal?.aborted !== true
      throw stopped ? own.signal.reason : e
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', forward)
      running.delete(own)
      this.#release(entry)
    }
  }

  /** A graph's results by step id; any other node's result, by the kernel's one step. */
  async #run(
    name: string,
    node: Node,
    input: unknown,
    options: SessionExecuteOptions,
  ): Promise<unknown> {
    const runOptions = executeRunOptions(this, input, options)
    return isGraph(node) ? (await run(node, runOptions)).results : runNode(node, name, runOptions)
  }

  /**
   * Stops the executes in progress on the node registered under `name`, or
   * on every node: their runs are cancelled (a terminal is interrupted) and
   * each rejects with `reason`. Answers how many there were.
   */
  interrupt(name: string | undefined, reason: unknown): number {
    const entries =
      name === undefined ? [...this.#nodes.registered.values()] : [this.#nodes.registered.get(name)]
    let count = 0
    for (const entry of entries) {
      for (const c of entry?.running ?? []) {
        c.abort(reason)
        count++
      }
    }
    return count
  }

  /**
   * What the runtime calls as a step starts an attempt on a persistent
   * node of this session (registered under its id, or inside a registered
   * graph): the node is `busy` until the returned function is called.
   * `undefined` for a node the session does not run, or one not `ready`
   * nor `busy`.
   */
  occupy(node: Node): (() => void) | undefined {
    const entry = this.#nodes.runningOf(node)
    if (entry === undefined || (entry.state !== 'ready' && entry.state !== 'busy')) return undefined
    this.#acquire(entry)
    return () => {
      this.#release(entry)
    }
  }

  /**
   * Each call subscribes to the events from now on. The iteration ends when
   * the session is closed (after the `stopped` events of the close); leaving
   * it early unsubscribes. Events wait in a buffer until read, at most
   * `buffer` of them (default {@link DEFAULT_EVENT_BUFFER}): a reader that
   * falls further behind loses the oldest and reads a `lagged` event
   * counting them in their place.
   */
  events(options: { readonly buffer?: number } = {}): AsyncIterableIterator<SessionEvent> {
    return this.#hub.subscribe(options.buffer ?? DEFAULT_EVENT_BUFFER)
  }

  info(): SessionInfo {
    return Object.freeze({
      id: this.id,
      name: this.name,
      tags: this.tags,
      metadata: this.metadata,
      created_at: this.createdAt,
      nodes: Object.freeze(this.listNodes()),
    })
  }

  toJSON(): SessionInfo {
    return this.info()
  }

  /**
   * Stops every node and ends the event iterations; afterwards register,
   * start, execute and fork reject with {@link SessionClosed}. Idempotent.
   */
  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing
    this.#lifetime.abort(new SessionClosed(this.id))
    this.#closing = this.stop().finally(() => {
      this.#hub.close()
    })
    return this.#closing
  }

  /**
   * Forks the node registered as `name` into a new node registered as
   * `newName`: what {@link fork} does (see there), and the capability a
   * graph's fork step uses.
   */
  fork(name: string, newName: string, options: ForkOptions = {}): Promise<Node> {
    // Not async: forkNode's promise is the answer, with no promise of ours around it.
    return this.#closing === undefined
      ? forkNode(this.#forkHost, name, newName, options)
      : Promise.reject(new SessionClosed(this.id))
  }

  /** Forks a registered graph deeply: what {@link forkGraph} does (see there). */
  forkGraph(name: string, prefix: string, options: ForkGraphOptions = {}): Promise<Graph> {
    return this.#closing === undefined
      ? forkGraphNodes(this.#forkHost, name, prefix, options)
      : Promise.reject(new SessionClosed(this.id))
  }

  // ---- lifecycle ----

  #requireOpen(): void {
    if (this.#closing !== undefined) throw new SessionClosed(this.id)
  }

  #require(name: string): Live {
    const entry = this.#nodes.registered.get(name)
    if (entry === undefined) throw new UnknownNode(this.id, name)
    return entry
  }

  #set(entry: Live, to: NodeState): void {
    if (!canTransition(entry.state, to)) {
      throw new IllegalNodeTransition(this.id, entry.name, entry.state, to)
    }
    entry.state = to
    if (to !== 'stopping') this.#emit(to, entry)
  }

  #emit(type: SessionEventType, entry: Live, from?: string): void {
    if (!this.#hub.listening && this.#onEvent === undefined) return
    const event: SessionNodeEvent = Object.freeze({
      type,
      session: this.id,
      name: entry.name,
      nodeId: entry.node.id,
      kind: entry.node.kind,
      time: this.#now(),
      ...(from !== undefined && { from }),
    })
    this.#hub.publish(event)
    try {
      this.#onEvent?.(event)
    } catch {
      // a listener's failure does not break the lifecycle
    }
  }

  #startLive(entry: Live): Promise<void> {
    switch (entry.state) {
      case 'ready':
      case 'busy':
        return Promise.resolve()
      case 'starting':
        return entry.starting!
      case 'stopping':
      case 'stopped':
        return Promise.reject(new NodeStopped(this.id, entry.name, entry.state))
      case 'created':
        break
    }
    this.#set(entry, 'starting')
    entry.starting = this.#bringUp(entry).then(
      () => {
        entry.starting = undefined
        if (entry.state === 'starting') this.#set(entry, 'ready')
      },
      (e: unknown) => {
        entry.starting = undefined
        if (entry.state === 'starting') this.#set(entry, 'stopped')
        throw e instanceof StartFailed ? e : new StartFailed(this.id, entry.name, e)
      },
    )
    return entry.starting
  }

  async #bringUp(entry: Live): Promise<void> {
    const { node } = entry
    if (isGraph(node)) {
      const inside = graphParts(node).nodes.filter((n) => n.persistent)
      return settleAll(inside.map((n) => this.#startLive(this.#nodes.liveOf(n))))
    }
    if (!node.persistent) return
    const interpreter = this.interpreters.get(node.kind)
    if (interpreter === undefined) {
      throw new UsageError(
        'Session.start',
        `the session has no interpreter for kind "${node.kind}"`,
      )
    }
    if (interpreter.start === undefined) return
    entry.handle = await interpreter.start(node, { signal: this.#lifetime.signal, session: this })
    entry.up = true
  }

  /** Starts the registered nodes a graph refers to (and those they refer to); a stopped one is NodeStopped. */
  async #startRefs(g: Graph, seen: Set<string>): Promise<void> {
    for (const ref of graphParts(g).refs) {
      const entry =
        isStaticName(ref) && !seen.has(ref) ? this.#nodes.registered.get(ref) : undefined
      if (entry === undefined) continue
      seen.add(ref)
      await this.#startLive(entry)
      if (isGraph(entry.node)) await this.#startRefs(entry.node, seen)
    }
  }

  /**
   * Replaces the dead handle of a started node: stops it (what that throws
   * is ignored), starts a fresh one and tells `respawned`. A start that
   * fails leaves the node `stopped` and rejects with {@link StartFailed}.
   */
  #respawn(entry: Live): Promise<void> {
    if (entry.respawning !== undefined) return entry.respawning
    const { node } = entry
    const interpreter = this.interpreters.get(node.kind)!
    const dead = { signal: NEVER, session: this, live: entry.handle }
    entry.respawning = respawn(interpreter, node, dead, {
      signal: this.#lifetime.signal,
      session: this,
    }).then(
      (handle) => {
        entry.respawning = undefined
        entry.handle = handle
        this.#emit('respawned', entry)
      },
      (e: unknown) => {
        entry.respawning = undefined
        entry.up = false
        entry.handle = undefined
        void this.#stopLive(entry)
        throw new StartFailed(this.id, entry.name, e)
      },
    )
    return entry.respawning
  }

  #stopLive(entry: Live): Promise<void> {
    if (entry.state === 'stopped') return Promise.resolve()
    if (entry.stopping !== undefined) return entry.stopping
    entry.stopping = this.#takeDown(entry).finally(() => {
      entry.stopping = undefined
    })
    return entry.stopping
  }

  async #takeDown(entry: Live): Promise<void> {
    const { node } = entry
    const starting = entry.starting
    if (entry.state !== 'created') this.#set(entry, 'stopping')
    try {
      await starting?.catch(() => undefined)
      await entry.respawning?.catch(() => undefined)
      if (isGraph(node)) {
        const inside = graphParts(node).nodes.filter((n) => n.persistent)
        await settleAll(inside.map((n) => this.#stopLive(this.#nodes.liveOf(n))))
      } else if (entry.up) {
        const live = entry.handle
        entry.up = false
        entry.handle = undefined
        await this.interpreters.get(node.kind)?.stop?.(node, { signal: NEVER, session: this, live })
      }
    } finally {
      this.#set(entry, 'stopped')
    }
  }

  #acquire(entry: Live): void {
    if (entry.busy++ === 0 && entry.state === 'ready') this.#set(entry, 'busy')
  }

  #release(entry: Live): void {
    if (--entry.busy === 0 && entry.state === 'busy') this.#set(entry, 'ready')
  }
}
