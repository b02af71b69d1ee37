import { appendFile } from 'node:fs/promises'
import { UsageError } from '../errors.js'
import { addStep, graph } from '../graph/index.js'
import {
  llmInterpreter,
  ptyInterpreter,
  workspaceTools,
  type Provider,
  type Tool,
} from '../interpreters/index.js'
import { interpreters, type Interpreter, type InterpreterRegistry } from '../node/index.js'
import { run, systemClock, type Clock, type RunUsage } from '../runtime/index.js'
import { createSession, type Session } from '../session/index.js'
import type { ArtifactStore } from './ArtifactStore.js'
import { applyChange, change, type NetworkChange, type NetworkEdit } from './edit.js'
import type { ArtifactRef, Envelope, EnvelopeKind, Payload } from './Envelope.js'
import { EnvelopeLog } from './EnvelopeLog.js'
import { FileLocks } from './FileLocks.js'
import { answerOf, digestOf, inputText, tickText } from './firing.js'
import { Inbox } from './Inbox.js'
import { loops, routesFrom, routesInto, type Network, type NetworkNode } from './Network.js'
import { MaxIterationsExceeded, StallError, type NetworkHalt } from './NetworkError.js'
import { NetworkEventHub, type NetworkEvent } from './NetworkEvent.js'
import { policyTools, type RiskPolicy } from './policy.js'
import { checkProvider, mockName, mockProvider, runCommand, sessionNodeOf } from './providers.js'
import { remainingBudget, scheduleTimer } from './runParts.js'
import { RunControl, type ApprovalRequest } from './RunControl.js'
import { roles, type AgentRole } from './AgentRole.js'

/**
 * Options of {@link startNetwork}. Only `root` is required.
 *
 * @category network run
 */
export interface NetworkRunOptions {
  /** The workspace: where tools, commands, CLI agents and locks work. */
  readonly root: string
  /** The session the nodes are registered in; default a new one on the run's clock. */
  readonly session?: Session
  /** API providers by the names `llm` providers use. */
  readonly providers?: Readonly<Record<string, Provider>>
  /** The tools nodes may name; default the workspace tools of `root`. Guarded by the workflow policy. */
  readonly tools?: readonly Tool[]
  readonly clock?: Clock
  readonly runId?: string
  /** Where the run is listed and approvals are asked; default a new one. */
  readonly control?: RunControl
  /** How long an approval request waits. Default 300 000 ms. */
  readonly approvalTimeoutMs?: number
  readonly risk?: RiskPolicy
  /** Where outputs, written files and verification results are stored. */
  readonly artifacts?: ArtifactStore
  readonly locks?: FileLocks
  /**
   * Reads the workspace after each auto iteration: a digest (the same one
   * `stallAfter` times in a row is a stall) and a diff summary for the next
   * tick. See {@link gitProgress}.
   */
  readonly progress?: () => Promise<{ readonly digest: string; readonly summary: string }>
  /** A JSONL file recording envelopes, patches, halts and decisions as they happen. */
  readonly journal?: string
  readonly onEvent?: (event: NetworkEvent) => void
  /**
   * The order in which nodes are offered a firing on each pass (default:
   * network order). A deterministic scheduler from `nerve/testing`
   * (`seededSchedule`) explores interleavings reproducibly.
   */
  readonly schedule?: (nodeIds: readonly string[]) => readonly string[]
}

/**
 * How a run ended: `done` (a node reached Done and nothing halted),
 * `halted` (a loop was stopped by a safety limit), `idle` (nothing left to
 * do), `cancelled`.
 *
 * @category network run
 */
export interface NetworkOutcome {
  readonly status: 'done' | 'halted' | 'idle' | 'cancelled'
  readonly done: readonly string[]
  readonly halts: readonly NetworkHalt[]
  readonly log: EnvelopeLog
  readonly usage: Readonly<Record<string, RunUsage>>
  /** Envelopes dropped by `latest` and `debounce` edges, by route (`edge:from>to`). */
  readonly dropped: Readonly<Record<string, number>>
  /** Envelopes never processed, kept, not lost: taken by a node halted before it fired, or still waiting in an inbox. */
  readonly unprocessed: readonly Envelope[]
}

interface NodeRun {
  iterations: number
  inFlight: boolean
  done: boolean
  halted: NetworkHalt | undefined
  started: boolean
  manual: string[]
  due: boolean
  rr: number
  digests: string[]
  lastProgress: string | undefined
  sameProgress: number
  notes: string[]
  written: ArtifactRef[]
  usage: { tokens: number; apiCalls: number; cost: number; timeMs: number; firings: number }
  user: Inbox
  timer: AbortController | undefined
}

const USER = 'user'
const ZERO: RunUsage = Object.freeze({ tokens: 0, apiCalls: 0, cost: 0 })

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
  readonly log = new EnvelopeLog()
  readonly control: RunControl
  readonly locks: FileLocks
  readonly #options: NetworkRunOptions
  readonly #clock: Clock
  readonly #hub = new NetworkEventHub()
  readonly #nodes = new Map<string, NodeRun>()
  readonly #inboxes = new Map<string, Inbox>()
  readonly #halts: NetworkHalt[] = []
  readonly #unprocessed: Envelope[] = []
  readonly #undo: NetworkChange[] = []
  readonly #abort = new AbortController()
  readonly #registry: InterpreterRegistry
  readonly #pty = ptyInterpreter()
  readonly #llm = new Map<string, Interpreter>()
  readonly #providers: Record<string, Provider>
  #net: Network
  #loopOf = new Map<string, readonly string[]>()
  #inFlight = 0
  #seq = 0
  #paused = false
  #cancelled = false
  #finished: NetworkOutcome | undefined
  #idle: (() => void)[] = []
  #pumping = false
  #journal: Promise<void> = Promise.resolve()
  readonly #started: number
  readonly #netUsage = { tokens: 0, apiCalls: 0, cost: 0, timeMs: 0, firings: 0 }

  /** @internal use {@link startNetwork}. */
  constructor(net: Network, options: NetworkRunOptions) {
    this.#options = options
    this.#clock = options.clock ?? systemClock
    this.runId = options.runId ?? `run-${net.id}`
    this.session = options.session ?? createSession({ clock: this.#clock })
    this.control = options.control ?? new RunControl({ clock: this.#clock })
    this.locks = options.locks ?? new FileLocks()
    this.#providers = { ...options.providers }
    this.#net = net
    this.#started = this.#clock.now()
    const llmDispatch: Interpreter = {
      kind: 'llm',
      execute: (node, ctx) => this.#llmOf(node.id).execute!(node, ctx),
    }
    this.#registry = interpreters(...this.session.interpreters.values(), llmDispatch, this.#pty)
    for (const node of Object.values(net.nodes)) this.#addNode(node)
    this.#syncEdges()
    this.control.add({
      runId: this.runId,
      label: net.id,
      get status() {
        return 'running'
      },
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
    return this.#net
  }

  get status(): 'running' | 'paused' | 'finished' {
    return this.#finished !== undefined ? 'finished' : this.#paused ? 'paused' : 'running'
  }

  /** Each call subscribes to the events from now on; the iteration ends with the run. */
  events(): AsyncGenerator<NetworkEvent, void, undefined> {
    return this.#hub.subscribe()
  }

  /** Sends a user message to a node (interactive input); it fires by its mode. */
  send(nodeId: string, message: string, payload: Omit<Payload, 'message'> = {}): Envelope {
    const st = this.#require('send', nodeId)
    const e = this.#record('message', USER, nodeId, { message, ...payload }, [])
    st.user.push(e)
    return e
  }

  /** Fires a node now (a `manual` node's only way to fire), with `message` if given. */
  trigger(nodeId: string, message = 'manual trigger'): void {
    this.#require('trigger', nodeId).manual.push(message)
    this.#pump()
  }

  /**
   * Applies edits to the running network as one change: new nodes join,
   * removed ones stop firing (what waits for them is kept), edges and their
   * deliveries follow. Published as a `patch` event and journaled; {@link NetworkRun.undo}
   * applies the inverse.
   */
  edit(...edits: readonly NetworkEdit[]): NetworkChange {
    const c = change(...edits)(this.#net)
    this.#apply(c, edits.map((e) => e.label).join(', '))
    if (c.patches.length > 0) this.#undo.push(c)
    return c
  }

  /** Undoes the last edit not undone yet; false when there is none. */
  undo(): boolean {
    const last = this.#undo.pop()
    if (last === undefined) return false
    this.#apply(
      {
        network: applyChange(last.inverse)(this.#net),
        patches: last.inverse,
        inverse: last.patches,
      },
      'undo',
    )
    return true
  }

  pause(): void {
    if (this.#paused || this.#finished !== undefined) return
    this.#paused = true
    this.#emit({ type: 'paused', runId: this.runId })
  }

  resume(): void {
    if (!this.#paused) return
    this.#paused = false
    this.#emit({ type: 'resumed', runId: this.runId })
    this.#pump()
  }

  /** Stops at once: firings in flight are aborted, their locks released. */
  cancel(reason: unknown = new Error('cancelled')): void {
    if (this.#finished !== undefined || this.#cancelled) return
    this.#cancelled = true
    this.#abort.abort(reason)
    this.#wakeIdle()
  }

  /** Lets nodes that can fire fire (auto nodes with a prompt start so); `startNetwork` does it once. */
  kick(): void {
    this.#pump()
  }

  /** Resolves when nothing is in flight and nothing can fire (or the run was cancelled). */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.#idle.push(resolve)
      this.#pump()
    })
  }

  /** Ends the run: cancels what is left, stops terminals, resolves with the outcome. */
  async stop(): Promise<NetworkOutcome> {
    if (this.#finished !== undefined) return this.#finished
    if (this.#inFlight > 0) this.cancel(new Error('stopped'))
    for (const st of this.#nodes.values()) st.timer?.abort()
    for (const inbox of this.#inboxes.values()) inbox.close()
    const outcome = this.outcome()
    this.#finished = outcome
    this.control.remove(this.runId)
    this.#emit({ type: 'finished', runId: this.runId, status: outcome.status })
    await this.#pty.stopAll()
    await this.#journal
    this.#hub.close()
    return outcome
  }

  /** The outcome so far. */
  outcome(): NetworkOutcome {
    const done = [...this.#nodes].filter(([, s]) => s.done).map(([id]) => id)
    const usage: Record<string, RunUsage> = {}
    for (const [id, s] of this.#nodes) {
      usage[id] = { tokens: s.usage.tokens, apiCalls: s.usage.apiCalls, cost: s.usage.cost }
    }
    const dropped: Record<string, number> = {}
    for (const [key, inbox] of this.#inboxes) if (inbox.dropped > 0) dropped[key] = inbox.dropped
    return Object.freeze({
      status: this.#cancelled
        ? 'cancelled'
        : this.#halts.length > 0
          ? 'halted'
          : done.length > 0
            ? 'done'
            : 'idle',
      done,
      halts: [...this.#halts],
      log: this.log,
      usage,
      dropped,
      unprocessed: [
        ...this.#unprocessed,
        ...[...this.#nodes.values()].flatMap((n) => n.user.waiting()),
        ...[...this.#inboxes.values()].flatMap((i) => i.waiting()),
      ],
    })
  }

  /** Usage of the whole network so far. */
  usage(): RunUsage {
    const { tokens, apiCalls, cost } = this.#netUsage
    return tokens + apiCalls + cost === 0 ? ZERO : { tokens, apiCalls, cost }
  }

  // ---- set-up and live edits ----

  #require(api: string, nodeId: string): NodeRun {
    const st = this.#nodes.get(nodeId)
    if (st === undefined) {
      throw new UsageError(`NetworkRun.${api}`, `the network has no node "${nodeId}"`)
    }
    return st
  }

  #addNode(node: NetworkNode): void {
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
      written: [],
      usage: { tokens: 0, apiCalls: 0, cost: 0, timeMs: 0, firings: 0 },
      user: new Inbox({ type: 'queue' }, this.#clock, () => {
        this.#pump()
      }),
      timer: undefined,
    }
    this.#nodes.set(node.id, st)
    if (node.provider.type === 'mock') {
      this.#providers[mockName(node.id)] = mockProvider(mockName(node.id), node.provider.script)
    }
    if (!this.session.has(node.id))
      this.session.register(sessionNodeOf(node, this.#options.root), node.id)
    this.#arm(node, st)
  }

  #arm(node: NetworkNode, st: NodeRun): void {
    st.timer?.abort()
    st.timer = undefined
    if (node.trigger.type !== 'scheduled') return
    st.timer = scheduleTimer(node.trigger, this.#clock, () => {
      st.due = true
      this.#pump()
    })
  }

  #llmOf(nodeId: string): Interpreter {
    const known = this.#llm.get(nodeId)
    if (known !== undefined) return known
    const root = this.#options.root
    const tools = policyTools(this.#options.tools ?? workspaceTools({ root }), {
      nodeId,
      root,
      workflow: () => this.#net.workflow,
      assignment: () => this.#net.nodes[nodeId]?.assignment,
      ...(this.#options.risk !== undefined && { risk: this.#options.risk }),
      approve: (action, target, reason) => this.#approve(nodeId, action, target, reason),
      onRefused: (e) => {
        this.#emit({
          type: 'refused',
          runId: this.runId,
          nodeId,
          tool: e.tool,
          target: e.target,
          reason: e.reason,
        })
      },
      onWrite: async (path, content) => {
        const store = this.#options.artifacts
        if (store === undefined) return
        const type = path.startsWith('docs/') ? 'plan' : 'file'
        const info = await store.put(type, content, { name: path, nodeId })
        this.#nodes.get(nodeId)?.written.push({ type: info.type, ref: info.ref })
      },
      locks: { locks: this.locks, owner: nodeId },
    })
    const made = llmInterpreter({ providers: this.#providers, tools, clock: this.#clock })
    this.#llm.set(nodeId, made)
    return made
  }

  /**
   * Asks for an approval through run control. When the network has an
   * approving node (the Orchestrator role) other than the asker, the request
   * is routed to it first: it is sent the request as a message and its
   * answer (APPROVE or DENY) decides; an answer that says neither leaves the
   * request to a human until it times out.
   */
  async #approve(nodeId: string, action: string, target: string, reason: string): Promise<boolean> {
    const asked = this.control.request(
      { runId: this.runId, nodeId, action, target, reason },
      this.#options.approvalTimeoutMs ?? 300_000,
      this.#abort.signal,
    )
    const request = this.control.pending().at(-1)
    if (request !== undefined) this.#emit({ type: 'approval', runId: this.runId, request })
    const approver = Object.values(this.#net.nodes).find(
      (n) =>
        n.id !== nodeId &&
        (roles as Readonly<Record<string, AgentRole>>)[n.role]?.approves === true,
    )
    if (approver !== undefined && request !== undefined) void this.#askApprover(approver, request)
    const d = await asked
    this.#emit({ type: 'decision', runId: this.runId, decision: d })
    return d.decision === 'approved'
  }

  async #askApprover(approver: NetworkNode, request: ApprovalRequest): Promise<void> {
    const text = `Approval request ${request.id} from "${request.nodeId}": ${request.action} ${JSON.stringify(request.target)} (${request.reason}). Answer APPROVE or DENY.`
    const asked = this.#record(
      'message',
      request.nodeId,
      approver.id,
      { message: text, structured: { approval: request.id } },
      [],
    )
    try {
      const step = this.session.get(approver.id) ?? sessionNodeOf(approver, this.#options.root)
      const result = await run(
        addStep({ id: approver.id, node: step })(graph(`${approver.id}-approval`)),
        {
          input: text,
          interpreters: this.#registry,
          session: this.session,
          clock: this.#clock,
          signal: this.#abort.signal,
          runId: `${this.runId}.${approver.id}.${request.id}`,
        },
      )
      const answer = answerOf(result.results[approver.id]).text
      this.#record('status', approver.id, request.nodeId, { message: answer }, [asked.id])
      const verdict = /\bDENY\b/i.test(answer)
        ? 'deny'
        : /\bAPPROVE\b/i.test(answer)
          ? 'approve'
          : undefined
      if (verdict === undefined || !this.control.pending().some((p) => p.id === request.id)) return
      if (verdict === 'approve') this.control.approve(request.id, approver.id, answer)
      else this.control.deny(request.id, approver.id, answer)
    } catch {
      // the approver failed: the request waits for a human until it times out
    }
  }

  #apply(c: NetworkChange, label: string): void {
    const before = this.#net
    this.#net = c.network
    if (c.patches.length === 0) return
    for (const id of Object.keys(before.nodes)) {
      if (c.network.nodes[id] === undefined) {
        this.#nodes.get(id)?.timer?.abort()
        this.#nodes.delete(id)
        this.session.unregister(id)
      }
    }
    for (const node of Object.values(c.network.nodes)) {
      const old = before.nodes[node.id]
      if (old === undefined) this.#addNode(node)
      else if (old.trigger !== node.trigger) this.#arm(node, this.#nodes.get(node.id)!)
    }
    this.#syncEdges()
    this.#emit({ type: 'patch', runId: this.runId, label, patches: c.patches, inverse: c.inverse })
    this.#pump()
  }

  /** One inbox per way of each edge; a removed edge's inbox stays until drained. */
  #syncEdges(): void {
    const live = new Set<string>()
    for (const id of Object.keys(this.#net.nodes)) {
      for (const r of routesInto(this.#net, id)) {
        const key = routeKey(r.edge.id, r.from, r.to)
        live.add(key)
        const inbox = this.#inboxes.get(key)
        if (inbox === undefined) {
          this.#inboxes.set(
            key,
            new Inbox(r.edge.delivery, this.#clock, () => {
              this.#pump()
            }),
          )
        } else if (inbox.delivery !== r.edge.delivery) inbox.setDelivery(r.edge.delivery)
      }
    }
    for (const [key, inbox] of this.#inboxes) {
      if (!live.has(key)) {
        inbox.close()
        if (inbox.size === 0) this.#inboxes.delete(key)
      }
    }
    this.#loopOf = new Map()
    for (const loop of loops(this.#net)) for (const id of loop) this.#loopOf.set(id, loop)
  }

  // ---- envelopes ----

  #record(
    kind: EnvelopeKind,
    from: string,
    to: string,
    payload: Payload,
    causedBy: readonly string[],
  ): Envelope {
    const e: Envelope = Object.freeze({
      id: `e${++this.#seq}`,
      kind,
      fromNodeId: from,
      toNodeId: to,
      payload: Object.freeze(payload),
      ...(causedBy.length > 0 && { causedBy: Object.freeze([...causedBy]) }),
      time: this.#clock.now() - this.#started,
    })
    this.log.add(e)
    this.#emit({ type: 'envelope', runId: this.runId, envelope: e })
    return e
  }

  /** Sends along every way out of `from`; a `done` ends an auto receiver's loop instead of waking it. */
  #send(from: string, kind: EnvelopeKind, payload: Payload, causedBy: readonly string[]): void {
    for (const r of routesFrom(this.#net, from)) {
      const e = this.#record(kind, from, r.to, payload, causedBy)
      if (kind === 'done') {
        const target = this.#net.nodes[r.to]
        const st = this.#nodes.get(r.to)
        if (target?.mode === 'auto' && st !== undefined && !st.done)
          this.#finish(r.to, st, `done from ${from}`)
        continue
      }
      this.#inboxes.get(routeKey(r.edge.id, r.from, r.to))?.push(e)
    }
  }

  #finish(nodeId: string, st: NodeRun, reason: string): void {
    st.done = true
    st.timer?.abort()
    this.#emit({ type: 'done', runId: this.runId, nodeId, reason })
  }

  #halt(nodes: readonly string[], error: NetworkHalt): void {
    this.#halts.push(error)
    for (const id of nodes) {
      const st = this.#nodes.get(id)
      if (st === undefined) continue
      st.halted ??= error
      st.timer?.abort()
    }
    this.#emit({
      type: 'halt',
      runId: this.runId,
      nodes,
      error: error.name,
      message: error.message,
    })
  }

  #emit(event: NetworkEvent): void {
    this.#hub.publish(event)
    try {
      this.#options.onEvent?.(event)
    } catch {
      // a listener's failure does not stop the run
    }
    const journal = this.#options.journal
    if (journal !== undefined) {
      const line = `${JSON.stringify(event)}\n`
      this.#journal = this.#journal.then(() => appendFile(journal, line)).catch(() => undefined)
    }
  }

  // ---- scheduling ----

  #pump(): void {
    if (this.#pumping) return
    this.#pumping = true
    try {
      while (this.#finished === undefined && !this.#cancelled && !this.#paused) {
        if (this.#inFlight >= this.#net.limits.maxInFlight) break
        let fired = false
        const ids = [...this.#nodes.keys()]
        for (const id of this.#options.schedule?.(ids) ?? ids) {
          if (this.#inFlight >= this.#net.limits.maxInFlight) break
          const node = this.#net.nodes[id]
          const st = this.#nodes.get(id)
          if (
            node === undefined ||
            st === undefined ||
            st.inFlight ||
            st.done ||
            st.halted !== undefined
          )
            continue
          const input = this.#select(node, st)
          if (input === undefined) continue
          fired = true
          void this.#fire(node, st, input.envelopes, input.message)
        }
        if (!fired) break
      }
    } finally {
      this.#pumping = false
    }
    this.#checkIdle()
  }

  #checkIdle(): void {
    if (this.#idle.length === 0) return
    if (!this.#cancelled) {
      if (this.#inFlight > 0 || this.control.pending().some((p) => p.runId === this.runId)) return
      if ([...this.#inboxes.values()].some((i) => i.holding)) return
    }
    this.#wakeIdle()
  }

  #wakeIdle(): void {
    const waiting = this.#idle
    this.#idle = []
    for (const w of waiting) w()
  }

  /** What a node fires with now, if it can: the envelopes it takes, and a message without envelopes. */
  #select(
    node: NetworkNode,
    st: NodeRun,
  ): { readonly envelopes: Envelope[]; readonly message?: string } | undefined {
    const ins = routesInto(this.#net, node.id).map((r) =>
      this.#inboxes.get(routeKey(r.edge.id, r.from, r.to))!,
    )
    const stale = [...this.#inboxes]
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
    if (node.trigger.type === 'manual' || node.trigger.type === 'scheduled') return undefined
    if (node.mode === 'auto') {
      if (!st.started && node.prompt !== undefined) return { envelopes: takeAll() }
      const ready =
        st.user.size > 0 ||
        stale.length > 0 ||
        (node.trigger.type === 'all'
          ? ins.length > 0 && ins.every((i) => i.size > 0)
          : ins.some((i) => i.size > 0))
      return ready ? { envelopes: takeAll() } : undefined
    }
    const user = st.user.take()
    if (user !== undefined) return { envelopes: [user] }
    if (node.trigger.type === 'all') {
      if (ins.length === 0 || !ins.every((i) => i.size > 0)) return undefined
      return { envelopes: ins.map((i) => i.take()!) }
    }
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

  async #fire(
    node: NetworkNode,
    st: NodeRun,
    envelopes: readonly Envelope[],
    message: string | undefined,
  ): Promise<void> {
    const loop = this.#loopOf.get(node.id) ?? (node.mode === 'auto' ? [node.id] : undefined)
    const max = this.#net.limits.maxIterations
    if (loop !== undefined && st.iterations >= max) {
      this.#unprocessed.push(...envelopes)
      this.#halt(loop, new MaxIterationsExceeded(loop, node.id, max))
      return
    }
    const budget = remainingBudget(
      node.budget,
      st.usage,
      this.#net.budget,
      this.#netUsage,
      this.#clock.now() - this.#started,
    )
    if (budget.exceeded !== undefined) {
      this.#unprocessed.push(...envelopes)
      this.#halt([node.id], budget.exceeded)
      return
    }
    st.iterations++
    st.inFlight = true
    this.#inFlight++
    const iteration = st.iterations
    let causes = envelopes.map((e) => e.id)
    let text: string
    if (node.mode === 'auto') {
      const first = !st.started
      st.started = true
      const notes = st.notes.splice(0)
      text =
        first && node.prompt !== undefined
          ? [node.prompt, envelopes.length > 0 ? inputText(envelopes) : '']
              .filter((s) => s !== '')
              .join('\n\n')
          : tickText(iteration, envelopes, message === undefined ? notes : [message, ...notes])
      if (!first || node.prompt === undefined) {
        causes = [this.#record('tick', node.id, node.id, { message: text }, causes).id]
      }
    } else {
      text = [message, envelopes.length > 0 ? inputText(envelopes) : undefined]
        .filter((s): s is string => s !== undefined)
        .join('\n\n')
    }
    this.#emit({ type: 'firing', runId: this.runId, nodeId: node.id, iteration, causedBy: causes })
    const began = this.#clock.now()
    let ok = true
    try {
      const release =
        node.assignment === undefined
          ? undefined
          : await this.locks.acquire(
              node.id,
              node.assignment.map((path) => ({ path, mode: 'write' as const })),
              this.#abort.signal,
            )
      let output: unknown
      let failure: unknown
      try {
        const step = this.session.get(node.id) ?? sessionNodeOf(node, this.#options.root)
        const result = await run(addStep({ id: node.id, node: step })(graph(`${node.id}-firing`)), {
          input: text,
          interpreters: this.#registry,
          session: this.session,
          clock: this.#clock,
          signal: this.#abort.signal,
          runId: `${this.runId}.${node.id}.${iteration}`,
          ...(budget.budget !== undefined && { budget: budget.budget }),
        })
        output = result.results[node.id]
        this.#addUsage(st, result.metrics.usage)
      } catch (e) {
        failure = e
        this.#addUsage(st, usageOfTrace(e))
      } finally {
        release?.()
      }
      if (this.#cancelled) return
      await this.#settle(node, st, causes, output, failure)
      ok = failure === undefined
    } catch (e) {
      ok = false
      if (!this.#cancelled) this.#halt([node.id], e instanceof Error ? e : new Error(String(e)))
    } finally {
      const elapsed = this.#clock.now() - began
      st.usage.timeMs += elapsed
      this.#netUsage.timeMs += elapsed
      st.inFlight = false
      this.#inFlight--
      this.locks.releaseAll(node.id)
      this.#emit({
        type: 'fired',
        runId: this.runId,
        nodeId: node.id,
        iteration,
        ok,
        durationMs: elapsed,
      })
      this.#pump()
    }
  }

  #addUsage(st: NodeRun, u: RunUsage): void {
    st.usage.tokens += u.tokens
    st.usage.apiCalls += u.apiCalls
    st.usage.cost += u.cost
    st.usage.firings++
    this.#netUsage.tokens += u.tokens
    this.#netUsage.apiCalls += u.apiCalls
    this.#netUsage.cost += u.cost
    this.#netUsage.firings++
  }

  /** Turns a firing's result into envelopes, Done, and stall checks. */
  async #settle(
    node: NetworkNode,
    st: NodeRun,
    causes: readonly string[],
    output: unknown,
    failure: unknown,
  ): Promise<void> {
    const store = this.#options.artifacts
    const artifacts = st.written.splice(0)
    if (failure !== undefined) {
      const cause = (failure as { cause?: unknown }).cause ?? failure
      const message = cause instanceof Error ? cause.message : JSON.stringify(cause)
      if ((failure as { _tag?: string })._tag === 'BudgetExceeded') {
        this.#halt([node.id], failure as Error)
      }
      this.#send(node.id, 'error', { message }, causes)
      this.#checkStall(node, st, `error:${message}`, 'same-error', message)
      return
    }
    const answer = answerOf(output)
    if (store !== undefined) {
      const type = node.provider.type === 'command' ? 'log' : 'report'
      const info = await store.put(type, answer.text, { nodeId: node.id })
      artifacts.push({ type: info.type, ref: info.ref })
    }
    let done = answer.done
    if (node.acceptance !== undefined) {
      const check = await runCommand(
        node.acceptance.command,
        this.#options.root,
        this.#abort.signal,
        node.acceptance.timeoutMs,
      )
      const verdict = `verification: \`${node.acceptance.command}\` exited ${check.exitCode}\n${check.output.slice(-2000)}`
      if (store !== undefined) {
        const info = await store.put('verification', verdict, { nodeId: node.id })
        artifacts.push({ type: info.type, ref: info.ref })
      }
      if (check.exitCode === 0) done = true
      else st.notes.push(verdict)
    }
    const payload: Payload = {
      message: answer.text,
      ...(answer.structured !== undefined && { structured: answer.structured }),
      ...(artifacts.length > 0 && { artifacts }),
    }
    if (done) {
      this.#send(node.id, 'done', payload, causes)
      this.#finish(node.id, st, node.acceptance !== undefined ? 'acceptance passed' : 'Done signal')
      return
    }
    const kind: EnvelopeKind =
      node.provider.type === 'command' ? 'status' : node.mode === 'auto' ? 'message' : 'handoff'
    this.#send(node.id, kind, payload, causes)
    const stalled = this.#checkStall(
      node,
      st,
      `${answer.failed ? 'error' : 'output'}:${answer.text}`,
      answer.failed ? 'same-error' : 'same-output',
      answer.text,
    )
    if (!stalled && node.mode === 'auto' && this.#options.progress !== undefined) {
      const p = await this.#options.progress()
      st.notes.push(`changes: ${p.summary === '' ? 'none' : p.summary}`)
      st.sameProgress = p.digest === st.lastProgress ? st.sameProgress + 1 : 0
      st.lastProgress = p.digest
      if (st.sameProgress >= this.#net.limits.stallAfter) {
        const loop = this.#loopOf.get(node.id) ?? [node.id]
        this.#halt(
          loop,
          new StallError(loop, {
            kind: 'no-file-changes',
            nodeId: node.id,
            digest: p.digest,
            count: st.sameProgress,
          }),
        )
      }
    }
  }

  /** Records a digest; the same one `stallAfter` times in a row in a loop halts it. */
  #checkStall(
    node: NetworkNode,
    st: NodeRun,
    text: string,
    kind: 'same-output' | 'same-error',
    sample: string,
  ): boolean {
    const loop = this.#loopOf.get(node.id) ?? (node.mode === 'auto' ? [node.id] : undefined)
    if (loop === undefined) return false
    const d = digestOf(text)
    st.digests.push(d)
    const n = this.#net.limits.stallAfter
    if (st.digests.length > n) st.digests.shift()
    if (st.digests.length < n || st.digests.some((x) => x !== d)) return false
    this.#halt(
      loop,
      new StallError(loop, {
        kind,
        nodeId: node.id,
        digest: d,
        count: n,
        sample: sample.slice(0, 200),
      }),
    )
    return true
  }
}

/** What the steps of a failed firing's partial trace used. */
const usageOfTrace = (e: unknown): RunUsage => {
  const records =
    (e as { trace?: { records?: readonly { data: RunUsage }[] } }).trace?.records ?? []
  let tokens = 0
  let apiCalls = 0
  let cost = 0
  for (const r of records) {
    tokens += r.data.tokens
    apiCalls += r.data.apiCalls
    cost += r.data.cost
  }
  return { tokens, apiCalls, cost }
}

const routeKey = (edgeId: string, from: string, to: string): string => `${edgeId}:${from}>${to}`

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
