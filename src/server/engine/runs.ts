import { randomUUID } from 'node:crypto'
import type { Graph } from '../../graph/index.js'
import * as E from 'fp-ts/lib/Either.js'
import { run, type RunEvent, type RunResult, type Trace } from '../../runtime/index.js'
import type { Session } from '../../session/index.js'
import { recorder, replay, type Recording } from '../../store/index.js'
import type {
  EngineEvent,
  RunInfo,
  RunStateName,
  RunSummary,
  TraceJson,
  TraceStep,
} from '../../protocol/index.js'
import { errorCategory } from '../../errors.js'
import { UnknownRun } from './errors.js'
import { errorShape } from './json.js'

/** A JSON-shaped trace. */
export const traceJson = (trace: Trace): TraceJson =>
  Object.freeze({
    runId: trace.runId,
    graphId: trace.graphId,
    status: trace.status,
    durationMs: trace.durationMs,
    steps: trace.records.map((v): TraceStep => {
      const r = v.data
      return {
        id: v.id,
        stepId: r.stepId,
        path: r.path,
        nodeId: r.nodeId,
        kind: r.kind,
        status: r.status,
        output: r.output,
        ...(r.error !== undefined && r.error !== null && { error: errorShape(r.error) }),
        attempts: r.attempts,
        durationMs: r.durationMs,
        tokens: r.tokens,
        cost: r.cost,
        parents: v.parents.map((p) => p.id),
        ...(r.nested !== undefined && { nested: traceJson(r.nested) }),
      }
    }),
  })

interface Entry {
  readonly runId: string
  readonly sessionId: string
  readonly graphId: string
  readonly startedAt: string
  readonly controller: AbortController
  readonly done: Promise<void>
  /** The graph file it ran, when given (a replay of its recording, or a run again, needs it). */
  readonly file: unknown
  /** The run's input. */
  readonly input: unknown
  state: RunStateName
  info: RunInfo | undefined
  /** While it runs: the latest event of each step that started, by path. */
  readonly steps: Map<string, NonNullable<RunInfo['steps']>[number]>
}

/**
 * The graph runs of an engine, by run id: running ones, and the last
 * `kept` finished ones (their state, results or error, and trace).
 */
export class Runs {
  readonly #entries = new Map<string, Entry>()
  readonly #finished: string[] = []
  readonly #kept: number
  readonly #keep: ((recording: Recording, graph: unknown) => string) | undefined
  readonly #ended: ((trace: Trace, sessionId: string) => void) | undefined

  /**
   * `keep` saves a recorded run's recording (and the graph file it ran) and
   * answers its id; `ended` is given the trace of each run that ended (to
   * store it).
   */
  constructor(
    kept: number,
    keep?: (recording: Recording, graph: unknown) => string,
    ended?: (trace: Trace, sessionId: string) => void,
  ) {
    this.#kept = kept
    this.#keep = keep
    this.#ended = ended
  }

  /**
   * Starts `g` in `session` (its nodes and interpreters; `nodeRef`s resolve
   * there). Events go to `onEvent`. Persistent nodes the file itself
   * described (not registered in the session) are stopped when the run ends.
   */
  start(
    session: Session,
    g: Graph,
    input: unknown,
    onEvent: (e: RunEvent) => void,
    now: () => string,
    record = false,
    file?: unknown,
  ): string {
    // A recorded run answers from wrapped interpreters, clock and random source (see nerve/store).
    const rec = record
      ? recorder({ interpreters: session.interpreters, clock: session.clock })
      : undefined
    return this.#track(session, g, now, {
      file,
      input,
      execute: (runId, signal) =>
        run(g, {
          interpreters: rec?.interpreters ?? session.interpreters,
          session,
          clock: rec?.clock ?? session.clock,
          ...(rec !== undefined && { random: rec.random }),
          signal,
          runId,
          input,
          onEvent,
        }),
      recording:
        rec &&
        ((runId, failed) => {
          const r = rec.recording(runId, g.id, input, failed)
          return { recording: r, ...this.#saved(r, file) }
        }),
    })
  }

  /**
   * Runs `g` again from `recorded` as a new run in `session`: every step
   * answered from the recording, or with `from` the steps before it, and
   * from it on live with the session's interpreters. `recordingId` names
   * the recording (the run's `replayOf`).
   */
  replay(
    session: Session,
    g: Graph,
    recorded: Recording,
    recordingId: string,
    from: string | readonly string[] | undefined,
    onEvent: (e: RunEvent) => void,
    now: () => string,
    file?: unknown,
  ): string {
    return this.#track(session, g, now, {
      replayOf: recordingId,
      file,
      input: recorded.input,
      execute: async (runId, signal) => {
        const outcome = await replay({ ...recorded, runId }, g, {
          ...(from !== undefined && { from, live: session.interpreters }),
          clock: session.clock,
          run: { session, signal, onEvent },
        })
        if (E.isLeft(outcome)) throw outcome.left
        return outcome.right
      },
    })
  }

  /** A recording and the graph file it ran, of a recorded run kept here (by its run or recording id). */
  recorded(id: string): { readonly recording: Recording; readonly graph: unknown } | undefined {
    for (const e of this.#entries.values()) {
      const r = e.info?.recording as Recording | undefined
      if (r !== undefined && (e.runId === id || e.info?.recordingId === id))
        return { recording: r, graph: e.file }
    }
    return undefined
  }

  #track(
    session: Session,
    g: Graph,
    now: () => string,
    how: {
      readonly execute: (runId: string, signal: AbortSignal) => Promise<RunResult>
      readonly recording?: ((runId: string, failed: boolean) => Partial<RunInfo>) | undefined
      readonly file?: unknown
      readonly input?: unknown
      readonly replayOf?: string
    },
  ): string {
    const runId = randomUUID()
    const controller = new AbortController()
    const recording = (failed: boolean) => how.recording?.(runId, failed) ?? {}
    const replayOf = how.replayOf === undefined ? {} : { replayOf: how.replayOf }
    const entry: Entry = {
      runId,
      sessionId: session.id,
      graphId: g.id,
      startedAt: now(),
      controller,
      file: how.file,
      input: how.input,
      state: 'running',
      info: undefined,
      steps: new Map(),
      done: how.execute(runId, controller.signal).then(
        (r) => {
          this.#finish(
            entry,
            'completed',
            {
              results: r.results,
              trace: traceJson(r.trace),
              ...recording(false),
              ...replayOf,
            },
            r.trace,
          )
        },
        (e: unknown) => {
          const trace = (e as { trace?: Trace } | null)?.trace
          this.#finish(
            entry,
            errorCategory(e) === 'cancelled' ? 'cancelled' : 'failed',
            {
              error: errorShape(e),
              ...(trace !== undefined && { trace: traceJson(trace) }),
              ...recording(true),
              ...replayOf,
            },
            trace,
          )
        },
      ),
    }
    this.#entries.set(runId, entry)
    return runId
  }

  /** Whether it holds the run with this id (running, or among the last finished). */
  has(runId: string): boolean {
    return this.#entries.has(runId)
  }

  get(runId: string): RunInfo {
    const entry = this.#entries.get(runId)
    if (entry === undefined) throw new UnknownRun(runId)
    return entry.info ?? infoOf(entry, { steps: [...entry.steps.values()] })
  }

  /** Notes a run's event: a step's latest, while the run runs (what `get` answers of it). */
  saw(e: EngineEvent): void {
    if (e.type !== 'STEP_STARTED' && e.type !== 'STEP_FAILED' && e.type !== 'STEP_COMPLETED') return
    const entry = this.#entries.get(e.runId)
    if (entry?.state === 'running') entry.steps.set(e.path.join('/'), e)
  }

  /** The runs it knows (running ones and the last finished), oldest first; of one session when named. */
  list(sessionId?: string): RunSummary[] {
    return [...this.#entries.values()]
      .filter((e) => sessionId === undefined || e.sessionId === sessionId)
      .map((e) => ({
        runId: e.runId,
        sessionId: e.sessionId,
        graphId: e.graphId,
        state: e.state,
        startedAt: e.startedAt,
      }))
  }

  /** Cancels a running run; false when it had ended. */
  cancel(runId: string, reason: unknown): boolean {
    const entry = this.#entries.get(runId)
    if (entry === undefined) throw new UnknownRun(runId)
    if (entry.state !== 'running') return false
    entry.controller.abort(reason)
    return true
  }

  /** Cancels every running run and waits until they have ended. */
  async cancelAll(reason: unknown): Promise<void> {
    const running = [...this.#entries.values()].filter((e) => e.state === 'running')
    for (const e of running) e.controller.abort(reason)
    await Promise.allSettled(running.map((e) => e.done))
  }

  /** Saves a recording where the engine keeps them: its id, or nothing when there is no such place or it failed. */
  #saved(recording: Recording, file: unknown): { readonly recordingId?: string } {
    try {
      return this.#keep === undefined ? {} : { recordingId: this.#keep(recording, file) }
    } catch {
      return {} // the recording still travels in the run's info
    }
  }

  #finish(
    entry: Entry,
    state: RunStateName,
    fields: Partial<RunInfo>,
    trace: Trace | undefined,
  ): void {
    entry.state = state
    entry.info = infoOf(entry, fields)
    if (trace !== undefined) this.#ended?.(trace, entry.sessionId)
    entry.steps.clear()
    this.#finished.push(entry.runId)
    while (this.#finished.length > this.#kept) this.#entries.delete(this.#finished.shift()!)
  }
}

const infoOf = (entry: Entry, fields: Partial<RunInfo>): RunInfo =>
  Object.freeze({
    runId: entry.runId,
    sessionId: entry.sessionId,
    graphId: entry.graphId,
    state: entry.state,
    startedAt: entry.startedAt,
    ...(entry.file !== undefined && { graph: entry.file }),
    ...(entry.input !== undefined && { input: entry.input }),
    ...fields,
  })
