import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import { UsageError } from '../errors.js'
import { compile } from '../graph/compile.js'
import { isGraph, isMaxParallel, type Graph } from '../graph/Graph.js'
import type { InterpreterRegistry, NodeContext } from '../node/Interpreter.js'
import { nodeRegistry, type NodeRegistry } from '../node/NodeRegistry.js'
import { checkBudget, type Budget } from './Budget.js'
import { systemClock, type Clock } from './Clock.js'
import { LiveHandles } from './LiveHandles.js'
import { GraphRun, type GraphOutcome } from './kernel/GraphRun.js'
import { StepContext } from './kernel/StepContext.js'
import { summarize, type Metrics } from './Metrics.js'
import { BudgetExceeded, Cancelled, InvalidGraph, type RunError } from './RunError.js'
import type { RunEvent, StepChunk } from './RunEvent.js'
import { endRun, RunState } from './RunState.js'
import type { Trace } from './Trace.js'

/**
 * What a run needs besides the graph. Only `interpreters` is required.
 *
 * @category runtime
 */
export interface RunOptions {
  /** The graph's input: the input of every step without `input` or `inputFn`. */
  readonly input?: unknown
  /** The interpreters by kind, e.g. `defaultInterpreters` (function and graph). */
  readonly interpreters: InterpreterRegistry
  /** Where steps' `nodeRef`s are looked up. Default: an empty registry. */
  readonly session?: NodeRegistry
  /** Aborting it cancels the run. */
  readonly signal?: AbortSignal
  readonly budget?: Budget
  /** Overrides the root graph's `maxParallel` (nested graphs keep theirs). */
  readonly maxParallel?: number
  /** Default: a random UUID. */
  readonly runId?: string
  /** Default: {@link systemClock}. */
  readonly clock?: Clock
  /** A source of numbers in [0, 1) for retry jitter. Default: `Math.random`. */
  readonly random?: () => number
  /** The parser of steps that name none. */
  readonly parser?: string
  /**
   * Receives every event as it happens (see {@link stream}). Called
   * synchronously by the scheduler: keep it quick, and do not throw.
   */
  readonly onEvent?: (event: RunEvent) => void
  /**
   * Where the handles of the persistent nodes the run starts itself are
   * kept (those no session holds started): given, they outlive the run and
   * the caller stops them ({@link LiveHandles.stopAll}); by default the run
   * keeps its own and stops them when it ends.
   */
  readonly handles?: LiveHandles
}

/**
 * What {@link run} resolves with. `results` has every step's result by step
 * id (a nested graph's step has that graph's results).
 *
 * @category runtime
 */
export interface RunResult {
  readonly results: Readonly<Record<string, unknown>>
  readonly trace: Trace
  readonly metrics: Metrics
}

const OPTION_KEYS: ReadonlySet<string> = new Set([
  'input',
  'interpreters',
  'session',
  'signal',
  'budget',
  'maxParallel',
  'runId',
  'clock',
  'random',
  'parser',
  'onEvent',
  'handles',
])

const EMPTY_SESSION = nodeRegistry()

/** Checks `run`'s arguments (throwing `UsageError`s) and returns a launcher. @internal */
export const prepare = (api: string, g: Graph, options: RunOptions) => {
  if (!isGraph(g)) throw new UsageError(api, `expects a Graph, got ${String(g)}`)
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new UsageError(api, 'expects an options object with at least interpreters')
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new UsageError(api, `options.${key} is not an option`)
  }
  const { interpreters, maxParallel, clock, random, runId, onEvent, session, signal } = options
  if (typeof (interpreters as unknown as { get?: unknown } | undefined)?.get !== 'function') {
    throw new UsageError(
      api,
      'options.interpreters must be an interpreter registry (a Map by kind)',
    )
  }
  if (maxParallel !== undefined && !isMaxParallel(maxParallel)) {
    throw new UsageError(
      api,
      `options.maxParallel must be a positive integer or Infinity, got ${String(maxParallel)}`,
    )
  }
  if (runId !== undefined && (typeof runId !== 'string' || runId === '')) {
    throw new UsageError(api, 'options.runId must be a non-empty string')
  }
  if (random !== undefined && typeof random !== 'function') {
    throw new UsageError(api, 'options.random must be a function')
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw new UsageError(api, 'options.onEvent must be a function')
  }
  if (session !== undefined && typeof (session as { get?: unknown }).get !== 'function') {
    throw new UsageError(api, 'options.session must be a node registry')
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new UsageError(api, 'options.signal must be an AbortSignal')
  }
  const handles = options.handles
  if (handles !== undefined && !(handles instanceof LiveHandles)) {
    throw new UsageError(api, 'options.handles must be a LiveHandles')
  }
  const budget = checkBudget(api, options.budget)
  return (
    listener: ((event: RunEvent) => void) | undefined,
    started?: (top: GraphRun) => void,
    onChunk?: (event: StepChunk) => void,
  ): Promise<RunResult> => {
    const state = new RunState({
      runId: runId ?? randomUUID(),
      clock: clock ?? systemClock,
      random: random ?? Math.random,
      interpreters,
      session: session ?? EMPTY_SESSION,
      parser: options.parser,
      budget,
      onEvent: listener ?? onEvent,
      onChunk,
      handles,
    })
    return launch(state, g, options.input, maxParallel ?? g.maxParallel, signal, started)
  }
}

/**
 * The run's `fail` callback. Made here, not inside `launch`: a closure there
 * would share launch's scope with the promise callbacks, and keeping the
 * graph run in that scope makes V8 promote every run's records to the old
 * generation (10× the full collections on a 10³-step chain).
 */
const stopsWith =
  (top: GraphRun) =>
  (error: RunError): void => {
    top.stop(error)
  }

const launch = (
  state: RunState,
  g: Graph,
  input: unknown,
  maxParallel: number,
  signal: AbortSignal | undefined,
  started: ((top: GraphRun) => void) | undefined,
): Promise<RunResult> => {
  const compiled = compile(g)
  if (E.isLeft(compiled)) return Promise.reject(new InvalidGraph([], compiled.left))
  const top = new GraphRun(state, compiled.right, input, maxParallel, signal, undefined)
  state.fail = stopsWith(top)
  started?.(top)
  const timer = timeLimit(state)
  const done = top.begin()
  const settle = (): void => timer?.abort()
  return done.then(
    (outcome) => {
      settle()
      if (state.cleanups === undefined) {
        state.ended = true
        return result(state, outcome)
      }
      return endRun(state).then(() => result(state, outcome))
    },
    (error: unknown) => {
      settle()
      if (state.cleanups === undefined) {
        state.ended = true
        throw error
      }
      return endRun(state).then(() => {
        throw error
      })
    },
  )
}

/** Arms the time limit's timer; the returned controller disarms it. */
const timeLimit = (state: RunState): AbortController | undefined => {
  const max = state.budget?.maxTimeMs
  if (max === undefined || max === Infinity) return undefined
  const timer = new AbortController()
  state.clock.sleep(max, timer.signal).then(
    () => {
      state.fail(new BudgetExceeded([], 'maxTimeMs', max, state.clock.now() - state.start))
    },
    () => undefined,
  )
  return timer
}

const result = (state: RunState, outcome: GraphOutcome): RunResult => {
  const metrics: Metrics = Object.freeze({
    steps: state.stepsDone,
    attempts: state.attempts,
    retries: state.retries,
    durationMs: outcome.trace.durationMs,
    latency: summarize(Float64Array.from(state.latencies)),
    usage: state.usage(),
    materializations: state.materializations,
    materializeCacheHits: state.cacheHits,
    linkFanOutDepth: state.linkDepth,
  })
  return Object.freeze({ results: outcome.results, trace: outcome.trace, metrics })
}

/**
 * Runs a graph: each step starts as soon as its dependencies have finished,
 * at most `maxParallel` at once (the graph's, default `Infinity`, or
 * `options.maxParallel`). Each step's node is run by the interpreter of its
 * kind; the runtime never looks at kinds itself. Resolves with every step's
 * result, the trace and the metrics.
 *
 * Rejects with a {@link RunError} carrying the partial trace:
 * `StepFailed` (a step failed after its error policy; its dependents did not
 * run), `BudgetExceeded`, `Cancelled` (the signal was aborted),
 * `MissingInterpreter`, `UnknownNodeRef`, `InvalidGraph`.
 *
 * **Steps in flight when the run stops** (a step failed for good, a budget
 * limit was hit, the signal was aborted): nothing new starts; their
 * `ctx.signal` is aborted with the run's error; they are recorded in the
 * partial trace as `cancelled`; and the run settles at once, without waiting
 * for them. Whatever they return later is ignored. Interpreters should stop
 * their work when their signal aborts.
 *
 * A step whose interpreter answers synchronously costs no promise and no
 * timer, so long chains of cheap steps run fast and without deep stacks.
 * A `UsageError` is thrown at once for bad arguments.
 *
 * @category runtime
 * @example
 * import { addStep, defaultInterpreters, fn, graph, run } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const add = fn('add', (ctx) => Object.values(ctx.upstream).reduce((a: number, b) => a + Number(b), 0))
 * const g = pipe(
 *   graph('sum'),
 *   addStep({ id: 'a', node: fn('two', () => 2) }),
 *   addStep({ id: 'b', node: fn('three', async () => 3) }),
 *   addStep({ id: 'total', node: add, dependsOn: ['a', 'b'] }),
 * )
 * const { results, trace } = await run(g, { interpreters: defaultInterpreters })
 * assert.deepStrictEqual(results, { a: 2, b: 3, total: 5 })
 * assert.deepStrictEqual(trace.records[2]!.parents.map((p) => p.data.stepId), ['a', 'b'])
 */
export const run = (g: Graph, options: RunOptions): Promise<RunResult> =>
  prepare('run', g, options)(undefined)

/**
 * A run started by {@link startRun}: what it resolves with, and a way to
 * cancel it that needs no `AbortSignal`.
 *
 * @internal
 */
export interface StartedRun {
  readonly result: Promise<RunResult>
  /**
   * Cancels the run as aborting its signal would: it rejects with a
   * `Cancelled` carrying `reason`. Nothing once it has settled.
   */
  readonly cancel: (reason: unknown) => void
}

/**
 * {@link run}, with a handle to cancel it. For a caller that runs many short
 * graphs, each of which it may have to cancel (a chat's turns): an
 * `AbortController` made per run only to be able to cancel it costs more
 * than a small run. `onChunk`, for a caller that reads only what steps
 * emit, is told the step chunks and nothing else: the run builds no other
 * event for it (`options.onEvent` is still told every event).
 *
 * @internal
 */
export const startRun = (
  g: Graph,
  options: RunOptions,
  onChunk?: (event: StepChunk) => void,
): StartedRun => {
  let top: GraphRun | undefined
  const result = prepare('run', g, options)(
    undefined,
    (t) => {
      top = t
    },
    onChunk,
  )
  return {
    result,
    cancel: (reason) => {
      top?.stop(new Cancelled(top.path, reason))
    },
  }
}

/**
 * Runs a graph inside a step, for interpreters that run graphs (the graph
 * interpreter does): when `ctx` is the runtime's, the nested graph shares
 * the run — its events carry the step's path, its usage and steps count
 * towards the run's budget and the step's record, its trace becomes the
 * step's `nested` trace, and it stops when the step's signal aborts.
 * Otherwise (a context made by hand) it is a run of its own with the
 * context's interpreters, session, signal and run id, whose usage is
 * reported to `ctx`. Resolves with the nested graph's results; rejects with
 * the nested run's error.
 *
 * @category runtime
 */
export const runGraph = (
  g: Graph,
  ctx: NodeContext,
): Promise<Readonly<Record<string, unknown>>> => {
  if (ctx instanceof StepContext) {
    const compiled = compile(g)
    if (E.isLeft(compiled)) return Promise.reject(new InvalidGraph(ctx.path, compiled.left))
    const nested = new GraphRun(
      ctx.run.state,
      compiled.right,
      ctx.input,
      g.maxParallel,
      ctx.signal,
      ctx,
    )
    return nested.begin().then((outcome) => outcome.results)
  }
  return run(g, {
    input: ctx.input,
    interpreters: ctx.interpreters,
    session: ctx.session,
    signal: ctx.signal,
    runId: ctx.runId,
    ...(ctx.parser !== undefined && { parser: ctx.parser }),
  }).then((r) => {
    ctx.reportUsage(r.metrics.usage)
    return r.results
  })
}
