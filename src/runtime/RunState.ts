import type { InterpreterRegistry } from '../node/Interpreter.js'
import type { NodeRegistry } from '../node/NodeRegistry.js'
import { overBudget, type Budget, type RunUsage } from './Budget.js'
import type { Clock } from './Clock.js'
import type { LiveHandles } from './LiveHandles.js'
import { BudgetExceeded, type RunError } from './RunError.js'
import type { RunEvent, StepChunk } from './RunEvent.js'

/**
 * What one run shares across its graphs (the root and nested ones): the
 * settings, the usage and step counters the budget is checked against, and
 * the figures that become its metrics. It knows no graph run: the root's
 * run gives it `fail`, and clears `onEvent` when it settles (listeners get
 * nothing after the root's `graph_completed`).
 *
 * @internal
 */
export class RunState {
  readonly runId: string
  readonly clock: Clock
  readonly random: () => number
  readonly interpreters: InterpreterRegistry
  readonly session: NodeRegistry
  readonly parser: string | undefined
  readonly budget: Budget | undefined
  /** The listener; `undefined` once the run has settled. */
  onEvent: ((event: RunEvent) => void) | undefined
  /** The listener of step chunks alone; `undefined` once the run has settled. */
  onChunk: ((event: StepChunk) => void) | undefined
  /** The clock's reading when the run started. */
  readonly start: number
  /** The run's start in whole milliseconds: `{timestamp}` and `ctx.runStartedAt`. */
  readonly startedAt: number
  /** Whether the root graph has finished, failed or been cancelled. */
  settled = false
  stepsStarted = 0
  stepsDone = 0
  attempts = 0
  retries = 0
  tokens = 0
  apiCalls = 0
  cost = 0
  readonly latencies: number[] = []
  materializations = 0
  cacheHits = 0
  linkDepth = 0
  /** What `ctx.onRunEnd` was given, to run when the run settles; `undefined` for none yet. */
  cleanups: (() => unknown)[] | undefined = undefined
  /** Where the run keeps the handles of the persistent nodes it starts itself (the given table, else its own, made on first need). */
  handles: LiveHandles | undefined
  /** Whether the cleanups have been run: one given later runs at once. */
  ended = false
  /** Stops the whole run (every graph of it) with `error`; set by the root graph's run. */
  fail: (error: RunError) => void = () => undefined

  constructor(settings: {
    runId: string
    clock: Clock
    random: () => number
    interpreters: InterpreterRegistry
    session: NodeRegistry
    parser: string | undefined
    budget: Budget | undefined
    onEvent: ((event: RunEvent) => void) | undefined
    onChunk?: ((event: StepChunk) => void) | undefined
    handles?: LiveHandles | undefined
  }) {
    this.handles = settings.handles
    this.runId = settings.runId
    this.clock = settings.clock
    this.random = settings.random
    this.interpreters = settings.interpreters
    this.session = settings.session
    this.parser = settings.parser
    this.budget = settings.budget
    this.onEvent = settings.onEvent
    this.onChunk = settings.onChunk
    this.start = settings.clock.now()
    this.startedAt = Math.floor(this.start)
  }

  /** The run settled: later events go nowhere, later usage counts nowhere. */
  settle(): void {
    this.settled = true
    this.onEvent = undefined
    this.onChunk = undefined
  }

  usage(): RunUsage {
    return Object.freeze({ tokens: this.tokens, apiCalls: this.apiCalls, cost: this.cost })
  }

  /** The budget error if the run has gone over a limit, `steps` counting the one about to start. */
  overBudget(path: readonly string[], steps: number): BudgetExceeded | undefined {
    if (this.budget === undefined) return undefined
    const over = overBudget(this.budget, steps, this.clock.now() - this.start, this)
    return over === undefined
      ? undefined
      : new BudgetExceeded(path, over.limit, over.max, over.used)
  }
}

/**
 * Runs a run's cleanups, last given first, each once; waits for them all.
 * A cleanup that throws or rejects is ignored: the run has settled already.
 *
 * @internal
 */
export const endRun = async (state: RunState): Promise<void> => {
  state.ended = true
  const list = state.cleanups
  state.cleanups = undefined
  if (list === undefined) return
  for (let i = list.length - 1; i >= 0; i--) {
    try {
      await list[i]!()
    } catch {
      // Nothing to report it to: the run has its outcome.
    }
  }
}
