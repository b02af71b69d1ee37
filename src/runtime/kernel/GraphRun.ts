import { setMaxListeners } from 'node:events'
import type { Vertex } from '../../dag/Vertex.js'
import type { CompiledGraph } from '../../graph/compile.js'
import { stepInput, type Step } from '../../graph/Step.js'
import type { Interpreter, Upstream, UsageReport } from '../../node/Interpreter.js'
import type { Node } from '../../node/Node.js'
import { Cancelled, RunError, StepFailed } from '../RunError.js'
import {
  emitGraphCompleted,
  emitGraphStarted,
  emitStepComplete,
  emitStepStart,
} from '../RunEvent.js'
import type { RunState } from '../RunState.js'
import {
  makeTrace,
  recordParents,
  recordVertex,
  type RunStatus,
  type StepRecord,
  type StepStatus,
  type Trace,
} from '../Trace.js'
import { settleStep, type Outcome } from './attempt.js'
import { resolveLinks } from './links.js'
import { needsHandle } from './handles.js'
import { occupy, vacate } from './occupancy.js'
import { DONE, FAILED, RUNNING } from './phase.js'
import { Slots } from './Slots.js'
import { StepContext } from './StepContext.js'
import { executorOf, stepNode, upstreamOf } from './stepNode.js'
import type { LinkAsker, StepHost } from './StepHost.js'
import { StepUsage } from './StepUsage.js'
import { Waiters } from './Waiters.js'

/** What a graph run resolves with. @internal */
export interface GraphOutcome {
  readonly results: Readonly<Record<string, unknown>>
  readonly trace: Trace
}

const EMPTY_UPSTREAM: Upstream = Object.freeze({})

const noop = (): void => undefined

/** Calls a stop listener; what it throws is thrown later, as an abort listener's would be. */
const tell = (f: () => void): void => {
  try {
    f()
  } catch (e) {
    queueMicrotask(() => {
      throw e
    })
  }
}

/** Up to this many steps, a graph's results are a plain object (see `#finish`). */
const SMALL_GRAPH = 16

/**
 * The latest root graph run and one of its step contexts, kept until the
 * next run. V8's optimised code for the kernel refers to what it was
 * specialised on weakly: when a full collection finds no live graph run or
 * context, it deoptimises every kernel function ("weak objects"), and the
 * next run pays to optimise them again — five times the cost per step when
 * runs alternate with allocation-heavy work. A run that completed drops its
 * step data when it finishes, so this keeps only the kernel's own objects.
 */
const latest: { run: GraphRun | undefined; ctx: StepContext | undefined } = {
  run: undefined,
  ctx: undefined,
}

/** The step paths of root graphs (`[id]`), made once per compiled graph, not per run. */
const rootPaths = new WeakMap<CompiledGraph, (readonly string[] | undefined)[]>()

const isThenable = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === 'object' && u !== null && typeof (u as { then?: unknown }).then === 'function'

/**
 * One run of one graph (the root or a nested one): the scheduler. Steps are
 * indices; a step goes into the ready queue when its last dependency
 * finishes, and `pump` starts ready steps while fewer than `maxParallel` are
 * in flight (steps waiting for links give their slot back, and get one
 * again before new steps start). A step whose interpreter answers
 * synchronously completes inside the same `pump` loop (no promise, no
 * timer); others complete from their promise's callback, which pumps again.
 * Retries, timeouts, streams and policies go through `settleStep`; links
 * through `resolveLinks`; records and traces are made by `Trace`'s
 * functions, events by `RunEvent`'s.
 *
 * @internal
 */
export class GraphRun implements StepHost {
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
  /** Made when someone first asks for {@link signal}: most runs never do. */
  #controller: AbortController | undefined = undefined
  /** Why the graph stopped; `undefined` while it runs or after it completed. */
  #stopped: RunError | undefined = undefined
  /** Told when the graph stops, without a signal (see {@link onStop}). */
  #onStop: Set<() => void> | undefined = undefined
  readonly phase: Uint8Array
  readonly attemptsOf: Int32Array
  readonly outputs: unknown[]
  readonly inputs: unknown[]
  readonly nodes: (Node | undefined)[]
  readonly records: (Vertex<StepRecord> | undefined)[]
  artifacts: (Promise<unknown> | undefined)[] | undefined = undefined
  linkWaits: (number[] | undefined)[] | undefined = undefined
  holds: ((() => void) | undefined)[] | undefined = undefined
  done = false
  readonly #remaining: Int32Array
  readonly #queue: Int32Array
  readonly #starts: Float64Array
  readonly #paths: (readonly string[] | undefined)[]
  readonly #upstreams: (Upstream | undefined)[]
  readonly #slots: Slots
  readonly #usage = new StepUsage()
  readonly #waiters = new Waiters()
  #head = 0
  #tail = 0
  #pumping = false
  /**
   * The clock reading of the step that just completed, while its `pump`
   * starts the steps it released (they start at that instant): one clock
   * read per step instead of two. `NaN` otherwise.
   */
  #reading = Number.NaN
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
    this.parent = owner?.run as GraphRun | undefined
    this.parentIndex = owner === undefined ? -1 : owner.index
    this.#parentSignal = parentSignal
    const n = compiled.steps.length
    this.#slots = new Slots(maxParallel, n)
    this.phase = new Uint8Array(n)
    this.attemptsOf = new Int32Array(n)
    this.outputs = new Array<unknown>(n)
    this.inputs = new Array<unknown>(n)
    this.nodes = new Array<Node | undefined>(n)
    this.records = new Array<Vertex<StepRecord> | undefined>(n)
    this.#starts = new Float64Array(n)
    if (owner === undefined) {
      let paths = rootPaths.get(compiled)
      if (paths === undefined)
        rootPaths.set(compiled, (paths = new Array<readonly string[] | undefined>(n)))
      this.#paths = paths
    } else this.#paths = new Array<readonly string[] | undefined>(n)
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

  /**
   * Aborted with the run's error when the graph stops. An `AbortSignal`
   * costs microseconds to make, so it is made on first read: a graph whose
   * interpreters never look at their signal makes none, and one asked for
   * after the graph stopped comes aborted.
   */
  get signal(): AbortSignal {
    let c = this.#controller
    if (c === undefined) {
      c = this.#controller = new AbortController()
      // Every running attempt with a timeout, retry wait and nested graph listens to it.
      setMaxListeners(Infinity, c.signal)
      if (this.#stopped !== undefined) c.abort(this.#stopped)
    }
    return c.signal
  }

  /** The error the graph stopped with, if it stopped: its signal's reason, without making the signal. */
  get stopped(): RunError | undefined {
    return this.#stopped
  }

  onStop(listener: () => void): () => void {
    if (this.done) return noop
    const all = (this.#onStop ??= new Set())
    all.add(listener)
    return () => {
      all.delete(listener)
    }
  }

  /** Starts the graph; settles when every step finished or the run stopped. */
  begin(): Promise<GraphOutcome> {
    const promise = new Promise<GraphOutcome>((resolve, reject) => {
      this.#resolve = resolve
      this.#reject = reject
    })
    const st = this.state
    if (this.owner === undefined) latest.run = this
    this.#start = st.clock.now()
    emitGraphStarted(st, this.path, this.compiled.graph.id, this.#start)
    const parentSignal = this.#parentSignal
    if (parentSignal?.aborted === true) {
      this.stop(new Cancelled(this.path, parentSignal.reason))
      return promise
    }
    if (parentSignal !== undefined) {
      this.#onParentAbort = () => {
        this.stop(new Cancelled(this.path, parentSignal.reason))
      }
      parentSignal.addEventListener('abort', this.#onParentAbort, { once: true })
    }
    this.pump()
    return promise
  }

  /** Stops the graph when the parent signal aborts; made only when there is one. */
  #onParentAbort: (() => void) | undefined = undefined

  /** Starts ready steps while there is room; finishes the graph when nothing is left. */
  pump(): void {
    if (this.#pumping) return
    this.#pumping = true
    const slots = this.#slots
    while (!this.done && slots.inFlight < slots.max) {
      if (slots.resumeNext()) continue
      if (this.#head === this.#tail) break
      this.#startStep(this.#queue[this.#head++]!)
    }
    this.#pumping = false
    if (!this.done && slots.idle && this.#head === this.#tail) this.#finish()
  }

  /** When step `i` started: the clock reading taken as it did. */
  startOf(i: number): number {
    return this.#starts[i]!
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
    const found = stepNode(st, step, this.pathOf(i))
    const interpreter = found instanceof RunError ? found : executorOf(st, found, this.pathOf(i))
    if (interpreter instanceof RunError) {
      this.stop(interpreter)
      return
    }
    const node = found as Node // not a RunError: the interpreter would be that one
    this.nodes[i] = node
    this.phase[i] = RUNNING
    this.#slots.inFlight++
    let now = this.#reading
    if (Number.isNaN(now)) now = st.clock.now()
    else this.#reading = Number.NaN
    this.#starts[i] = now
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
    // A node the run must start first takes the slow path; one the session started runs on its handle.
    const held = needsHandle(node, interpreter)
      ? (st.session.handleOf?.(node, interpreter) ?? null)
      : undefined
    if (interpreter.executeStream !== undefined || step.timeoutMs !== undefined || held === null) {
      this.#slow(i, node, interpreter, input, undefined)
      return
    }
    // The fast path: one attempt, no timeout, `execute`.
    st.attempts++
    this.attemptsOf[i] = 1
    occupy(this, i, node)
    emitStepStart(st, this.pathOf(i), this.ids[i]!, node.id, node.kind, 1, now)
    const ctx = new StepContext(this, i, input, undefined, 1, undefined)
    if (held !== undefined) ctx.live = held.handle
    if (this.owner === undefined) latest.ctx = ctx
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
    // A failure that arrives after the graph stopped starts no retry and no fallback.
    if (this.done) return
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
    vacate(this, i)
    this.#slots.finish(i)
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
    emitStepComplete(st, path, this.ids[i]!, status, output, attempts, durationMs, end)
    const { offsets, targets } = this.compiled.dependents
    const remaining = this.#remaining
    for (let k = offsets[i]!, last = offsets[i + 1]!; k < last; k++) {
      const t = targets[k]!
      if (--remaining[t]! === 0) this.#queue[this.#tail++] = t
    }
    this.#waiters.done(i)
    this.#reading = end
    this.pump()
    this.#reading = Number.NaN
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
    const parents = recordParents(offsets, targets, this.records, i)
    const usage = this.#usage.of(i)
    const start = this.#starts[i]!
    return recordVertex(parents, {
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
  }

  /** The results of step `i`'s dependencies, by step id in `dependsOn` order; made once. */
  upstreamOf(i: number): Upstream {
    const { offsets, targets } = this.compiled.dependencies
    return (this.#upstreams[i] ??= upstreamOf(offsets, targets, this.ids, this.outputs, i))
  }

  /** Adds usage to step `i`, to the steps running the enclosing graphs, and to the run. */
  addUsage(i: number, usage: UsageReport): void {
    const st = this.state
    if (st.settled) return
    const tokens = usage.tokens ?? 0
    const apiCalls = usage.apiCalls ?? 0
    const cost = usage.cost ?? 0
    this.#usage.add(i, tokens, apiCalls, cost)
    for (let run = this.parent, j = this.parentIndex; run !== undefined;) {
      run.#usage.add(j, tokens, apiCalls, cost)
      j = run.parentIndex
      run = run.parent
    }
    st.tokens += tokens
    st.apiCalls += apiCalls
    st.cost += cost
    // Usage can go over a limit in the middle of a step (a long agent loop): stop the run there.
    const over = st.overBudget(this.pathOf(i), st.stepsStarted)
    if (over !== undefined) st.fail(over)
  }

  /** Resolves when step `i` has finished with a value; rejects if the graph stops first. */
  whenDone(i: number): Promise<void> {
    return this.phase[i] === DONE ? Promise.resolve() : this.#waiters.wait(i)
  }

  resolveLinks(ctx: LinkAsker, handle: string): Promise<readonly unknown[]> {
    return resolveLinks(this, ctx, handle)
  }

  releaseSlot(i: number): void {
    if (!this.done && this.phase[i] === RUNNING && this.#slots.release(i)) this.pump()
  }

  takeSlot(i: number): Promise<void> | undefined {
    return this.done ? undefined : this.#slots.retake(i)
  }

  #finish(): void {
    this.done = true
    if (this.#onParentAbort !== undefined)
      this.#parentSignal?.removeEventListener('abort', this.#onParentAbort)
    const trace = this.#trace('completed', this.state.clock.now())
    const n = this.ids.length
    let results: Record<string, unknown>
    if (n <= SMALL_GRAPH) {
      results = {}
      for (let i = 0; i < n; i++) results[this.ids[i]!] = this.outputs[i]
    } else {
      // Filled without a prototype, then given Object's: V8 keeps such an object a hash
      // table from the start, where a plain {} takes hundreds of keys one hidden class at a
      // time before it gives up on them (2–8× slower for 10³ steps). Changing a prototype
      // costs more than filling a few keys, hence the small graphs' plain object.
      results = Object.create(null) as Record<string, unknown>
      for (let i = 0; i < n; i++) results[this.ids[i]!] = this.outputs[i]
      Object.setPrototypeOf(results, Object.prototype)
    }
    this.#completed('completed', undefined, trace)
    this.#resolve({ results: Object.freeze(results), trace })
    // Every step has finished: the results and the trace hold what is needed.
    this.outputs.fill(undefined)
    this.inputs.fill(undefined)
    this.records.fill(undefined)
    this.#upstreams.fill(undefined)
    this.artifacts = undefined
    this.#onStop = undefined
  }

  /**
   * Stops the graph with `error`: nothing new starts, running attempts and
   * nested graphs see the signal abort, running steps are recorded as
   * cancelled, and the graph rejects at once (it does not wait for them).
   */
  stop(error: RunError): void {
    if (this.done) return
    this.done = true
    if (this.#onParentAbort !== undefined)
      this.#parentSignal?.removeEventListener('abort', this.#onParentAbort)
    this.#stopped = error
    this.#controller?.abort(error)
    const told = this.#onStop
    this.#onStop = undefined
    if (told !== undefined) for (const f of told) tell(f)
    const end = this.state.clock.now()
    for (let i = 0; i < this.phase.length; i++) {
      if (this.phase[i] !== RUNNING) continue
      vacate(this, i)
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
    this.#waiters.fail(error)
    this.#slots.cancel()
    const status: RunStatus = error instanceof Cancelled ? 'cancelled' : 'failed'
    const trace = this.#trace(status, end)
    error.trace ??= trace
    this.#completed(status, error, trace)
    this.#reject(error)
  }

  #completed(status: RunStatus, error: RunError | undefined, trace: Trace): void {
    if (this.owner !== undefined) this.owner.nested = trace
    const st = this.state
    emitGraphCompleted(
      st,
      this.path,
      this.compiled.graph.id,
      status,
      error,
      trace.durationMs,
      trace.end,
    )
    // The root settles the run: nothing reaches a listener after this.
    if (this.owner === undefined) st.settle()
  }

  #trace(status: RunStatus, end: number): Trace {
    return makeTrace(
      this.state.runId,
      this.compiled.graph.id,
      this.path,
      status,
      this.#start,
      end,
      this.records,
    )
  }
}
