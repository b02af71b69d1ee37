import { randomUUID } from 'node:crypto'
import { deepFreeze } from '../dag/freeze.js'
import type { Meta } from '../dag/Vertex.js'
import { UsageError } from '../errors.js'
import { graph, isGraph, type Graph } from '../graph/Graph.js'
import { addStep } from '../graph/build.js'
import { defaultInterpreters } from '../interpreters/index.js'
import type { NodeRegistry, StateCell } from '../node/Context.js'
import { interpreters as registry, type InterpreterRegistry } from '../node/Interpreter.js'
import { requireName } from '../node/name.js'
import { EMPTY_METADATA, isNode, type Node } from '../node/Node.js'
import { nodeInfo, type NodeInfo } from '../node/NodeInfo.js'
import { canTransition, showIllegalTransition, type NodeState } from '../node/NodeState.js'
import type { Budget } from '../runtime/Budget.js'
import { systemClock, type Clock } from '../runtime/Clock.js'
import { StepFailed } from '../runtime/RunError.js'
import type { RunEvent } from '../runtime/RunEvent.js'
import { run, type RunOptions } from '../runtime/run.js'
// forkStep.ts imports this module back (an import cycle): nothing of it is used at load time here.
import { graphParts, isStaticName } from './graphParts.js'
import { forkInterpreter } from './forkStep.js'
import { NameTaken, NodeStopped, SessionClosed, StartFailed, UnknownNode } from './SessionError.js'
import { EventHub, type SessionEvent, type SessionEventType } from './SessionEvent.js'

/**
 * Options of {@link createSession}.
 *
 * @category session
 */
export interface SessionOptions {
  /** Default: a random UUID. Follows the name rule. */
  readonly id?: string
  /** Default: the id. Follows the name rule. */
  readonly name?: string
  /** The interpreters of every run and lifecycle call. Default: `defaultInterpreters`; a `fork` interpreter is added unless there is one. */
  readonly interpreters?: InterpreterRegistry
  /** Stamps events, `created_at` and fork times, and drives the runs. Default: the system clock. */
  readonly clock?: Clock
  readonly tags?: readonly string[]
  readonly metadata?: Meta
  /** Told of every event, synchronously (an exception it throws is ignored). */
  readonly onEvent?: (event: SessionEvent) => void
}

/**
 * What {@link Session.info} answers: JSON-shaped.
 *
 * @category session
 */
export interface SessionInfo {
  readonly id: string
  readonly name: string
  readonly tags: readonly string[]
  readonly metadata: Meta
  readonly created_at: string
  readonly nodes: readonly NodeInfo[]
}

/**
 * Options of {@link Session.execute}.
 *
 * @category session
 */
export interface SessionExecuteOptions {
  readonly signal?: AbortSignal
  readonly budget?: Budget
  readonly onEvent?: (event: RunEvent) => void
  /** The parser of steps that name none (a terminal's answer is read with it). */
  readonly parser?: string
}

/** The lifecycle of one node as the session keeps it. */
interface Live {
  readonly node: Node
  /** The name in events: the registered name, or the id of a node inside a graph. */
  readonly name: string
  state: NodeState
  /** Executes in progress: `busy` while > 0. */
  busy: number
  starting: Promise<void> | undefined
  stopping: Promise<void> | undefined
}

const live = (node: Node, name: string, state: NodeState): Live => ({
  node,
  name,
  state,
  busy: 0,
  starting: undefined,
  stopping: undefined,
})

const settleAll = async (work: readonly Promise<void>[]): Promise<void> => {
  const outcomes = await Promise.allSettled(work)
  const failed = outcomes.find((o) => o.status === 'rejected')
  if (failed !== undefined) throw failed.reason
}

const NEVER = new AbortController().signal

/** A session's cell for one node id: methods on a prototype, so handing one out allocates one small object. */
class Cell implements StateCell {
  readonly #cells: Map<string, unknown>
  readonly #id: string
  constructor(cells: Map<string, unknown>, id: string) {
    this.#cells = cells
    this.#id = id
  }
  get(): unknown {
    return this.#cells.get(this.#id)
  }
  set(value: unknown): void {
    this.#cells.set(this.#id, value)
  }
}

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
 * final). A persistent node's interpreter `stop` is called on every stop,
 * even from `created`, since a run may have started it behind the session's
 * back (terminal interpreters start on first use).
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
  readonly #registered = new Map<string, Live>()
  /** Persistent nodes inside registered graphs, by node id, when not registered themselves. */
  readonly #embedded = new Map<string, Live>()
  readonly #byNode = new WeakMap<Node, Live>()
  /** Names held by forks in progress. */
  readonly #reserved = new Set<string>()
  readonly #cells = new Map<string, unknown>()
  /** How many registered names hold a node of each id (a cell is forgotten with the last). */
  readonly #ids = new Map<string, number>()
  /** The last reading of the clock in whole ms, and its ISO text (formatting costs ~1.5 µs). */
  #lastMs = NaN
  #lastIso = ''
  readonly #hub = new EventHub()
  readonly #onEvent: ((event: SessionEvent) => void) | undefined
  readonly #lifetime = new AbortController()
  #closing: Promise<void> | undefined

  /** @internal use {@link createSession}. */
  constructor(options: SessionOptions, api: string) {
    const id = options.id ?? randomUUID()
    this.id = requireName(api, 'options.id', id)
    this.name = requireName(api, 'options.name', options.name ?? id)
    const tags: unknown = options.tags ?? []
    if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) {
      throw new UsageError(api, 'options.tags must be an array of strings')
    }
    this.tags = Object.freeze([...(tags as readonly string[])])
    const metadata = options.metadata ?? EMPTY_METADATA
    if (typeof metadata !== 'object' || (metadata as unknown) === null) {
      throw new UsageError(api, 'options.metadata must be an object')
    }
    this.metadata = deepFreeze({ ...metadata })
    const given = options.interpreters ?? defaultInterpreters
    if (typeof (given as { get?: unknown }).get !== 'function') {
      throw new UsageError(api, 'options.interpreters must be an interpreter registry')
    }
    this.interpreters = given.has('fork') ? given : registry(...given.values(), forkInterpreter)
    this.clock = options.clock ?? systemClock
    if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
      throw new UsageError(api, 'options.onEvent must be a function')
    }
    this.#onEvent = options.onEvent
    this.createdAt = this.#now()
    Object.freeze(this)
  }

  /** The number of registered nodes. */
  get size(): number {
    return this.#registered.size
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
    if (this.#taken(name)) throw new NameTaken(this.id, name)
    const entry = live(node, name, 'created')
    this.#add(entry)
    this.#emit('created', entry)
    return node
  }

  /**
   * Forgets a node and its state cell, without stopping it (a live process
   * keeps running). False when the session has no such name.
   */
  unregister(name: string): boolean {
    const entry = this.#registered.get(name)
    if (entry === undefined) return false
    this.#registered.delete(name)
    if (this.#byNode.get(entry.node) === entry) this.#byNode.delete(entry.node)
    const id = entry.node.id
    const holders = (this.#ids.get(id) ?? 1) - 1
    if (holders > 0) this.#ids.set(id, holders)
    else {
      this.#ids.delete(id)
      this.#cells.delete(id)
    }
    this.#emit('removed', entry)
    return true
  }

  /** The node registered under `name`. */
  get(name: string): Node | undefined {
    return this.#registered.get(name)?.node
  }

  has(name: string): boolean {
    return this.#registered.has(name)
  }

  /** The registered names, in registration order. */
  names(): readonly string[] {
    return [...this.#registered.keys()]
  }

  /** The state of the node registered under `name`. */
  state(name: string): NodeState | undefined {
    return this.#registered.get(name)?.state
  }

  /** Every registered node with its state; `id` is the name it is registered under. */
  listNodes(): readonly NodeInfo[] {
    return [...this.#registered.values()].map(infoOf)
  }

  /** The registered nodes in state `ready`. */
  listReadyNodes(): readonly NodeInfo[] {
    return [...this.#registered.values()].filter((e) => e.state === 'ready').map(infoOf)
  }

  /** The cell holding the live value of the node with this id (an LLM node's conversation head). */
  cell(nodeId: string): StateCell {
    return new Cell(this.#cells, nodeId)
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
    const idle = [...this.#registered.values()].filter((e) => e.state === 'created')
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
    const all = [...this.#registered.values(), ...this.#embedded.values()]
    return settleAll(all.map((e) => this.#stopLive(e)))
  }

  /**
   * Runs the node registered under `name` on `input`, starting it first if
   * it is `created`; it is `busy` meanwhile. A graph answers its results by
   * step id and rejects with the run's error. Any other node runs as a
   * one-step graph and answers its result; when it fails, the rejection is
   * the node's own error (the runtime's `StepFailed` is unwrapped), while
   * errors of the run itself (`Cancelled`, `BudgetExceeded`,
   * `MissingInterpreter`) come as they are. {@link NodeStopped} for a node
   * that is stopped, {@link UnknownNode}, {@link SessionClosed}.
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
    const node = entry.node
    this.#acquire(entry)
    const held = new Map<string, Live>()
    try {
      if (isGraph(node)) return (await run(node, this.#runOptions(input, options, held))).results
      const one = addStep({ id: name, node })(graph(name))
      try {
        return (await run(one, this.#runOptions(input, options, held))).results[name]
      } catch (e) {
        throw e instanceof StepFailed ? e.cause : e
      }
    } finally {
      for (const l of held.values()) this.#release(l)
      this.#release(entry)
    }
  }

  /**
   * Each call subscribes to the events from now on. The iteration ends when
   * the session is closed (after the `stopped` events of the close); leaving
   * it early unsubscribes. Events wait in a buffer until read.
   */
  events(): AsyncIterableIterator<SessionEvent> {
    return this.#hub.subscribe()
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

  // ---- internals shared with fork.ts ----

  /** @internal throws SessionClosed once the session is closing. */
  static requireOpen(s: Session): void {
    s.#requireOpen()
  }

  /** @internal the signal aborted when the session closes. */
  static lifetime(s: Session): AbortSignal {
    return s.#lifetime.signal
  }

  /** @internal the current time, ISO 8601. */
  static now(s: Session): string {
    return s.#now()
  }

  /** @internal the state of a node (registered or inside a graph). */
  static stateOf(s: Session, node: Node): NodeState {
    return (s.#byNode.get(node) ?? s.#embedded.get(node.id))?.state ?? 'created'
  }

  /** @internal holds names for a fork in progress (NameTaken if one is taken); returns the release. */
  static reserve(s: Session, names: readonly string[]): () => void {
    for (const name of names) if (s.#taken(name)) throw new NameTaken(s.id, name)
    const distinct = names.length === 1 ? names : [...new Set(names)]
    distinct.forEach((n) => s.#reserved.add(n))
    return () => {
      for (const n of distinct) s.#reserved.delete(n)
    }
  }

  /** @internal registers a fork, born in `state`, and tells of it (`forked`). */
  static adopt(s: Session, name: string, node: Node, state: NodeState, from: string): void {
    const entry = live(node, name, state)
    s.#add(entry)
    s.#emit('forked', entry, from)
  }

  // ---- lifecycle ----

  #requireOpen(): void {
    if (this.#closing !== undefined) throw new SessionClosed(this.id)
  }

  #now(): string {
    const ms = Math.floor(this.clock.now())
    if (ms !== this.#lastMs) {
      this.#lastMs = ms
      this.#lastIso = new Date(ms).toISOString()
    }
    return this.#lastIso
  }

  /** Adds a registered entry. */
  #add(entry: Live): void {
    this.#registered.set(entry.name, entry)
    if (!this.#byNode.has(entry.node)) this.#byNode.set(entry.node, entry)
    const id = entry.node.id
    this.#ids.set(id, (this.#ids.get(id) ?? 0) + 1)
  }

  #taken(name: string): boolean {
    return this.#registered.has(name) || this.#reserved.has(name)
  }

  #require(name: string): Live {
    const entry = this.#registered.get(name)
    if (entry === undefined) throw new UnknownNode(this.id, name)
    return entry
  }

  /** The live of a node inside a graph: its registered one, else one of its own. */
  #liveOf(node: Node): Live {
    const known = this.#byNode.get(node) ?? this.#embedded.get(node.id)
    if (known !== undefined) return known
    const entry = live(node, node.id, 'created')
    this.#embedded.set(node.id, entry)
    return entry
  }

  #set(entry: Live, to: NodeState): void {
    if (!canTransition(entry.state, to)) {
      throw new Error(
        `Session: node "${entry.name}": ${showIllegalTransition({ _tag: 'IllegalTransition', from: entry.state, to })}`,
      )
    }
    entry.state = to
    if (to !== 'stopping') this.#emit(to, entry)
  }

  #emit(type: SessionEventType, entry: Live, from?: string): void {
    if (!this.#hub.listening && this.#onEvent === undefined) return
    const event: SessionEvent = Object.freeze({
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
      return settleAll(inside.map((n) => this.#startLive(this.#liveOf(n))))
    }
    if (!node.persistent) return
    const interpreter = this.interpreters.get(node.kind)
    if (interpreter === undefined) {
      throw new UsageError(
        'Session.start',
        `the session has no interpreter for kind "${node.kind}"`,
      )
    }
    await interpreter.start?.(node, { signal: this.#lifetime.signal, session: this })
  }

  /** Starts the registered nodes a graph refers to (and those they refer to); a stopped one is NodeStopped. */
  async #startRefs(g: Graph, seen: Set<string>): Promise<void> {
    for (const ref of graphParts(g).refs) {
      const entry = isStaticName(ref) && !seen.has(ref) ? this.#registered.get(ref) : undefined
      if (entry === undefined) continue
      seen.add(ref)
      await this.#startLive(entry)
      if (isGraph(entry.node)) await this.#startRefs(entry.node, seen)
    }
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
      if (isGraph(node)) {
        const inside = graphParts(node).nodes.filter((n) => n.persistent)
        await settleAll(inside.map((n) => this.#stopLive(this.#liveOf(n))))
      } else if (node.persistent) {
        await this.interpreters.get(node.kind)?.stop?.(node, { signal: NEVER, session: this })
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

  #runOptions(input: unknown, options: SessionExecuteOptions, held: Map<string, Live>): RunOptions {
    const { signal, budget, onEvent, parser } = options
    // Events cost the runtime something only when someone listens: track only when there is a persistent node.
    const track =
      this.#embedded.size > 0 || [...this.#registered.values()].some((e) => e.node.persistent)
    const listener = track
      ? (event: RunEvent) => {
          this.#track(event, held)
          onEvent?.(event)
        }
      : onEvent
    return {
      input,
      interpreters: this.interpreters,
      session: this,
      clock: this.clock,
      ...(signal !== undefined && { signal }),
      ...(budget !== undefined && { budget }),
      ...(parser !== undefined && { parser }),
      ...(listener !== undefined && { onEvent: listener }),
    }
  }

  /** Marks the persistent nodes a run's steps execute `busy` while they do (ready ones only). */
  #track(event: RunEvent, held: Map<string, Live>): void {
    if (
      event.type !== 'step_start' &&
      event.type !== 'step_error' &&
      event.type !== 'step_complete'
    )
      return
    const key = event.path.join('/')
    const before = held.get(key)
    if (before !== undefined) {
      held.delete(key)
      this.#release(before)
    }
    if (event.type !== 'step_start') return
    const entry = this.#registered.get(event.nodeId) ?? this.#embedded.get(event.nodeId)
    if (entry === undefined || entry.node.id !== event.nodeId || !entry.node.persistent) return
    if (entry.state !== 'ready' && entry.state !== 'busy') return
    held.set(key, entry)
    this.#acquire(entry)
  }
}

const infoOf = (entry: Live): NodeInfo =>
  entry.name === entry.node.id
    ? nodeInfo(entry.state)(entry.node)
    : Object.freeze({ ...nodeInfo(entry.state)(entry.node), id: entry.name })

/**
 * A new, empty {@link Session}. The id (default: a random UUID) and the name
 * (default: the id) follow the name rule. Unless `interpreters` has a `fork`
 * kind, the session's interpreters add `forkInterpreter`, so graphs may
 * fork nodes as a step (`forkOp`).
 *
 * @category session
 * @example
 * import { createSession, fn } from 'nerve'
 * import assert from 'assert'
 *
 * const session = createSession({ name: 'demo' })
 * session.register(fn('double', (ctx) => Number(ctx.input) * 2))
 * assert.strictEqual(await session.execute('double', 21), 42)
 * assert.deepStrictEqual(session.listNodes().map((n) => [n.id, n.state]), [['double', 'ready']])
 * await session.close()
 */
export const createSession = (options: SessionOptions = {}): Session => {
  const given: unknown = options
  if (typeof given !== 'object' || given === null) {
    throw new UsageError(
      'createSession',
      `options must be an object, got ${given === null ? 'null' : typeof given}`,
    )
  }
  return new Session(options, 'createSession')
}
