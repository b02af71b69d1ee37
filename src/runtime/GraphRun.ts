import { setMaxListeners } from 'node:events'
import { Vertex, type Meta } from '../dag/Vertex.js'
import type { CompiledGraph } from '../graph/compile.js'
import { stepInput, type Step } from '../graph/Step.js'
import type { Interpreter, Upstream, UsageReport } from '../node/Interpreter.js'
import type { Node } from '../node/Node.js'
import { expandName } from '../node/name.js'
import { settleStep, type Outcome } from './attempt.js'
import { Cancelled, MissingInterpreter, RunError, StepFailed, UnknownNodeRef } from './RunError.js'
import type { RunState } from './RunState.js'
import { StepContext } from './StepContext.js'
import type { RunStatus, StepRecord, StepStatus, Trace } from './Trace.js'

/** What a graph run resolves with. @internal */
export interface GraphOutcome {
  readonly results: Readonly<Record<string, unknown>>
  readonly trace: Trace
}

interface Waiter {
  readonly promise: Promise<void>
  readonly resolve: () => void
  readonly reject: (error: unknown) => void
}

interface MutableUsage {
  tokens: number
  apiCalls: number
  cost: number
}

/** Step phases. */
const RUNNING = 1
/** Finished with a value (completed, skipped, fallback). */
export const DONE = 2
const FAILED = 3

const EMPTY_UPSTREAM: Upstream = Object.freeze({})
const NO_PARENTS: readonly Vertex<StepRecord>[] = Object.freeze([])
const NO_META: Meta = Object.freeze({})

const isThenable = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === 'object' && u !== null && typeof (u as { then?: unknown }).then === 'function'

/**
 * One run of one graph (the root or a nested one): the scheduler. Steps are
 * indices; a step goes into the ready queue when its last dependency
 * finishes, and `pump` starts ready steps while fewer than `maxParallel` are
 * in flight. A step whose interpreter answers synchronously completes inside
 * the same `pump` loop (no promise, no timer); others complete from their
 * promise's callback, which pumps again. Retries, timeouts, streams and
 * policies go through `settleStep`.
 *
 * @internal
 */
export class GraphRun {
  readonly state: RunState
  readonly compiled: CompiledGraph
  readonly steps: readonly Step[]
  readonly ids: readonly string[]
  readonly input: unknown
  readonly path: readonly string[]
  readonly parent: GraphRun | undefined
  readonly parentIndex: number
  /** The context of the attempt that runs this graph, when nested. */
  readonly owner: StepContext | undefined
  readonly controller = new AbortController()
  readonly signal: AbortSignal
  readonly maxParallel: number
  readonly phase: Uint8Array
  readonly attemptsOf: Int32Array
  readonly outputs: unknown[]
  readonly inputs: unknown[]
  readonly nodes: (Node | undefined)[]
  readonly records: (Vertex<StepRecord> | undefined)[]
  artifacts: (Promise<unknown> | undefined)[] | undefined = undefined
  done = false
  readonly #remaining: Int32Array
  readonly #queue: Int32Array
  readonly #starts: Float64Array
  readonly #paths: (readonly string[] | undefined)[]
  readonly #upstreams: (Upstream | undefined)[]
  #usage: (MutableUsage | undefined)[] | undefined = undefined
  #waiters: (Waiter | undefined)[] | undefined = undefined
  #head = 0
  #tail = 0
  #inFlight = 0
  #pumping = false
  #start = 0
  readonly #parentSignal: AbortSignal | undefined
  #resolve: (outcome: GraphOutcome) => void = () => undefined
  #reject: (error: RunError) => void = () => undefined

  constructor(
    state: RunState,
    compiled: CompiledGraph,
    input: unknown,
    maxParallel: number,
    parentSignal: AbortSignal | undefined,
    owner: StepContext | undefined,
  ) {
    this.state = state
    this.compiled = compiled
    this.steps = compiled.steps
    this.ids = compiled.ids
    this.input = input
    this.owner = owner
    this.path = owner === undefined ? [] : owner.path
    this.parent = owner?.run
    this.parentIndex = owner === undefined ? -1 : owner.index
    this.signal = this.controller.signal
    // Every running attempt with a timeout, retry wait and nested graph listens to it.
    setMaxListeners(Infinity, this.signal)
    this.maxParallel = maxParallel
    this.#parentSignal = parentSignal
    const n = compiled.steps.length
    this.phase = new Uint8Array(n)
    this.attemptsOf = new Int32Array(n)
    this.outputs = new Array<unknown>(n)
    this.inputs = new Array<unknown>(n)
    this.nodes = new Array<Node | undefined>(n)
    this.records = new Array<Vertex<StepRecord> | undefined>(n)
    this.#starts = new Float64Array(n)
    this.#paths = new Array<readonly string[] | undefined>(n)
    this.#upstreams = new Array<Upstream | undefined>(n)
    this.#queue = new Int32Array(n)
    const offsets = compiled.dependencies.offsets
    this.#remaining = new Int32Array(n)
    for (let i = 0; i < n; i++) {
      const count = offsets[i + 1]! - offsets[i]!
      this.#remaining[i] = count
      if (count === 0) this.#queue[this.#tail++] = i
    }
  }

  /** Starts the graph; settles when every step finished or the run stopped. */
  begin(): Promise<GraphOutcome> {
    const promise = new Promise<GraphOutcome>((resolve, reject) => {
      this.#resolve = resolve
      this.#reject = reject
    })
    const st = this.state
    this.#start = st.clock.now()
    st.onEvent?.({
      type: 'graph_started',
      runId: st.runId,
      path: this.path,
      graphId: this.compiled.graph.id,
      time: this.#start,
    })
    const parentSignal = this.#parentSignal
    if (parentSignal?.aborted === true) {
      this.stop(new Cancelled(this.path, parentSignal.reason))
      return promise
    }
    parentSignal?.addEventListener('abort', this.#onParentAbort, { once: true })
    this.pump()
    return promise
  }

  readonly #onParentAbort = (): void => {
    this.stop(new Cancelled(this.path, this.#parentSignal?.reason))
  }

  /** Starts ready steps while there is room; finishes the graph when nothing is left. */
  pump(): void {
    if (this.#pumping) return
    this.#pumping = true
    while (!this.done && this.#inFlight < this.maxParallel && this.#head < this.#tail) {
      this.#startStep(this.#queue[this.#head++]!)
    }
    this.#pumping = false
    if (!this.done && this.#inFlight === 0 && this.#head === this.#tail) this.#finish()
  }

  /** The path of step `i`: the graph's path and the step id. */
  pathOf(i: number): readonly string[] {
    const known = this.#paths[i]
    if (known !== undefined) return known
    const id = this.ids[i]!
    const path = Object.freeze(this.path.length === 0 ? [id] : [...this.path, id])
    this.#paths[i] = path
    return path
  }

  #startStep(i: number): void {
    const st = this.state
    const step = this.steps[i]!
    st.stepsStarted++
    if (st.budget !== undefined) {
      const over = st.overBudget(this.pathOf(i), st.stepsStarted)
      if (over !== undefined) {
        st.fail(over)
        return
      }
    }
    const node =
      step.node ??
      st.session.get(expandName(step.nodeRef, { run_id: st.runId, timestamp: String(st.start) }))
    if (node === undefined) {
      this.stop(new UnknownNodeRef(this.pathOf(i), String(step.nodeRef)))
      return
    }
    const interpreter = st.interpreters.get(node.kind)
    if (interpreter === undefined) {
      this.stop(new MissingInterpreter(this.pathOf(i), node.kind))
      return
    }
    if (interpreter.execute === undefined && interpreter.executeStream === undefined) {
      this.stop(new MissingInterpreter(this.pathOf(i), node.kind, 'the interpreter cannot execute'))
      return
    }
    this.nodes[i] = node
    this.phase[i] = RUNNING
    this.#inFlight++
    this.#starts[i] = st.clock.now()
    let input: unknown
    try {
      // Only an inputFn reads upstream here; a context builds it when asked.
      input = stepInput(
        step,
        step.inputFn !== undefined ? this.upstreamOf(i) : EMPTY_UPSTREAM,
        this.input,
      )
    } catch (e) {
      this.complete(i, 'failed', undefined, e, 0, undefined, node)
      return
    }
    this.inputs[i] = input
    if (interpreter.executeStream !== undefined || step.timeoutMs !== undefined) {
      this.#slow(i, node, interpreter, input, undefined)
      return
    }
    // The fast path: one attempt, no timeout, `execute`.
    st.attempts++
    this.attemptsOf[i] = 1
    if (st.onEvent !== undefined) this.emitStart(i, node, 1)
    const ctx = new StepContext(this, i, input, this.signal, 1, undefined)
    let out: unknown
    try {
      out = interpreter.execute!(node, ctx)
    } catch (e) {
      this.#slow(i, node, interpreter, input, { error: e, ctx })
      return
    }
    if (isThenable(out)) {
      out.then(
        (value) => {
          this.complete(i, 'completed', value, undefined, 1, ctx, node)
        },
        (e: unknown) => {
          this.#slow(i, node, interpreter, input, { error: e, ctx })
        },
      )
    } else {
      this.complete(i, 'completed', out, undefined, 1, ctx, node)
    }
  }

  #slow(
    i: number,
    node: Node,
    interpreter: Interpreter,
    input: unknown,
    failed: { error: unknown; ctx: StepContext } | undefined,
  ): void {
    settleStep(this, i, node, interpreter, input, failed).then(
      (o: Outcome | undefined) => {
        if (o !== undefined)
          this.complete(i, o.status, o.output, o.error, o.attempts, o.ctx, o.node)
      },
      (e: unknown) => {
        this.stop(
          e instanceof RunError ? e : new StepFailed(this.pathOf(i), e, this.attemptsOf[i]!),
        )
      },
    )
  }

  /** Step `i` finished (the last attempt's context carries a nested trace). */
  complete(
    i: number,
    status: Exclude<StepStatus, 'cancelled'>,
    output: unknown,
    error: unknown,
    attempts: number,
    ctx: StepContext | undefined,
    node: Node,
  ): void {
    if (this.done) return
    this.#inFlight--
    const st = this.state
    const end = st.clock.now()
    const path = this.pathOf(i)
    this.nodes[i] = node
    this.records[i] = this.#record(i, path, status, output, error, attempts, end, ctx?.nested, node)
    if (status === 'failed') {
      this.phase[i] = FAILED
      this.stop(new StepFailed(path, error, attempts))
      return
    }
    this.phase[i] = DONE
    this.outputs[i] = output
    const durationMs = end - this.#starts[i]!
    st.stepsDone++
    st.latencies.push(durationMs)
    st.onEvent?.({
      type: 'step_complete',
      runId: st.runId,
      path,
      stepId: this.ids[i]!,
      status,
      output,
      attempts,
      durationMs,
      time: end,
    })
    const { offsets, targets } = this.compiled.dependents
    const remaining = this.#remaining
    for (let k = offsets[i]!, last = offsets[i + 1]!; k < last; k++) {
      const t = targets[k]!
      if (--remaining[t]! === 0) this.#queue[this.#tail++] = t
    }
    const waiter = this.#waiters?.[i]
    if (waiter !== undefined) waiter.resolve()
    this.pump()
  }

  #record(
    i: number,
    path: readonly string[],
    status: StepStatus,
    output: unknown,
    error: unknown,
    attempts: number,
    end: number,
    nested: Trace | undefined,
    node: Node,
  ): Vertex<StepRecord> {
    const { offsets, targets } = this.compiled.dependencies
    const first = offsets[i]!
    const count = offsets[i + 1]! - first
    // A vertex keeps a single parent inline, so only build a tuple for several.
    let parents: Vertex<StepRecord> | readonly Vertex<StepRecord>[] = NO_PARENTS
    if (count === 1) parents = this.records[targets[first]!]!
    else if (count > 1) {
      const list: Vertex<StepRecord>[] = []
      for (let k = 0; k < count; k++) list.push(this.records[targets[first + k]!]!)
      parents = Object.freeze(list)
    }
    const usage = this.#usage?.[i]
    const start = this.#starts[i]!
    const data: StepRecord = Object.freeze({
      stepId: this.ids[i]!,
      path,
      nodeId: node.id,
      kind: node.kind,
      status,
      input: this.inputs[i],
      output,
      error,
      attempts,
      start,
      end,
      durationMs: end - start,
      tokens: usage?.tokens ?? 0,
      apiCalls: usage?.apiCalls ?? 0,
      cost: usage?.cost ?? 0,
      nested,
    })
    return new Vertex(parents, data, path.length === 1 ? path[0]! : path.join('/'), NO_META)
  }

  /** The results of step `i`'s dependencies, by step id in `dependsOn` order; made once. */
  upstreamOf(i: number): Upstream {
    return (this.#upstreams[i] ??= this.#makeUpstream(i))
  }

  #makeUpstream(i: number): Upstream {
    const { offsets, targets } = this.compiled.dependencies
    const first = offsets[i]!
    const last = offsets[i + 1]!
    if (first === last) return EMPTY_UPSTREAM
    // Without a prototype: V8 keeps such an object as a small hash table,
    // instead of making a hidden class per step id (2 µs per step at 10⁴ ids).
    const up = Object.create(null) as Record<string, unknown>
    for (let k = first; k < last; k++) {
      const d = targets[k]!
      up[this.ids[d]!] = this.outputs[d]
    }
    return Object.freeze(up)
  }

  emitStart(i: number, node: Node, attempt: number): void {
    const st = this.state
    st.onEvent?.({
      type: 'step_start',
      runId: st.runId,
      path: this.pathOf(i),
      stepId: this.ids[i]!,
      nodeId: node.id,
      kind: node.kind,
      attempt,
      time: st.clock.now(),
    })
  }

  emitError(i: number, attempt: number, error: unknown, final: boolean): void {
    const st = this.state
    st.onEvent?.({
      type: 'step_error',
      runId: st.runId,
      path: this.pathOf(i),
      stepId: this.ids[i]!,
      attempt,
      error,
      final,
      time: st.clock.now(),
    })
  }

  emitChunk(i: number, attempt: number, chunk: unknown): void {
    const st = this.state
    if (this.done || st.onEvent === undefined) return
    st.onEvent({
      type: 'step_chunk',
      runId: st.runId,
      path: this.pathOf(i),
      stepId: this.ids[i]!,
      attempt,
      chunk,
    })
  }

  /** Adds usage to step `i`, to the steps running the enclosing graphs, and to the run. */
  addUsage(i: number, usage: UsageReport): void {
    const tokens = usage.tokens ?? 0
    const apiCalls = usage.apiCalls ?? 0
    const cost = usage.cost ?? 0
    this.#addOwnUsage(i, tokens, apiCalls, cost)
    for (let run = this.parent, j = this.parentIndex; run !== undefined;) {
      run.#addOwnUsage(j, tokens, apiCalls, cost)
      j = run.parentIndex
      run = run.parent
    }
    const st = this.state
    st.tokens += tokens
    st.apiCalls += apiCalls
    st.cost += cost
    // Usage can go over a limit in the middle of a step (a long agent loop): stop the run there.
    const over = st.overBudget(this.pathOf(i), st.stepsStarted)
    if (over !== undefined) st.fail(over)
  }

  #addOwnUsage(i: number, tokens: number, apiCalls: number, cost: number): void {
    const slot = ((this.#usage ??= [])[i] ??= { tokens: 0, apiCalls: 0, cost: 0 })
    slot.tokens += tokens
    slot.apiCalls += apiCalls
    slot.cost += cost
  }

  /** Resolves when step `i` has finished with a value; rejects if the graph stops first. */
  whenDone(i: number): Promise<void> {
    if (this.phase[i] === DONE) return Promise.resolve()
    const all = (this.#waiters ??= [])
    let waiter = all[i]
    if (waiter === undefined) {
      let resolve: () => void = () => undefined
      let reject: (e: unknown) => void = () => undefined
      const promise = new Promise<void>((res, rej) => {
        resolve = res
        reject = rej
      })
      waiter = { promise, resolve, reject }
      all[i] = waiter
    }
    return waiter.promise
  }

  #finish(): void {
    this.done = true
    this.#parentSignal?.removeEventListener('abort', this.#onParentAbort)
    const trace = this.#trace('completed', this.state.clock.now())
    const results: Record<string, unknown> = {}
    for (let i = 0; i < this.ids.length; i++) results[this.ids[i]!] = this.outputs[i]
    this.#completed('completed', undefined, trace)
    this.#resolve({ results: Object.freeze(results), trace })
  }

  /**
   * Stops the graph with `error`: nothing new starts, running attempts and
   * nested graphs see the signal abort, running steps are recorded as
   * cancelled, and the graph rejects at once (it does not wait for them).
   */
  stop(error: RunError): void {
    if (this.done) return
    this.done = true
    this.#parentSignal?.removeEventListener('abort', this.#onParentAbort)
    this.controller.abort(error)
    const end = this.state.clock.now()
    for (let i = 0; i < this.phase.length; i++) {
      if (this.phase[i] !== RUNNING) continue
      this.records[i] = this.#record(
        i,
        this.pathOf(i),
        'cancelled',
        undefined,
        error,
        this.attemptsOf[i]!,
        end,
        undefined,
        this.nodes[i]!,
      )
    }
    if (this.#waiters !== undefined) for (const w of this.#waiters) w?.reject(error)
    const status: RunStatus = error instanceof Cancelled ? 'cancelled' : 'failed'
    const trace = this.#trace(status, end)
    error.trace ??= trace
    this.#completed(status, error, trace)
    this.#reject(error)
  }

  #completed(status: RunStatus, error: RunError | undefined, trace: Trace): void {
    if (this.owner !== undefined) this.owner.nested = trace
    const st = this.state
    st.onEvent?.({
      type: 'graph_completed',
      runId: st.runId,
      path: this.path,
      graphId: this.compiled.graph.id,
      status,
      error,
      durationMs: trace.durationMs,
      time: trace.end,
    })
  }

  #trace(status: RunStatus, end: number): Trace {
    const records: Vertex<StepRecord>[] = []
    for (const r of this.records) if (r !== undefined) records.push(r)
    return Object.freeze({
      runId: this.state.runId,
      graphId: this.compiled.graph.id,
      path: this.path,
      status,
      start: this.#start,
      end,
      durationMs: end - this.#start,
      records: Object.freeze(records),
    })
  }
}
