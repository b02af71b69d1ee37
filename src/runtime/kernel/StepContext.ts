import { UsageError } from '../../errors.js'
import type {
  Cancellation,
  InterpreterRegistry,
  NodeContext,
  Upstream,
  UsageReport,
} from '../../node/Interpreter.js'
import type { NodeRegistry } from '../../node/NodeRegistry.js'
import { emitStepChunk } from '../RunEvent.js'
import type { Trace } from '../Trace.js'
import type { StepHost } from './StepHost.js'

const checkUsage = (usage: UsageReport): UsageReport => {
  if (typeof usage !== 'object' || (usage as unknown) === null) {
    throw new UsageError('reportUsage', `expects a usage object, got ${typeof usage}`)
  }
  for (const key of ['tokens', 'apiCalls', 'cost'] as const) {
    const v = usage[key]
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
      throw new UsageError('reportUsage', `usage.${key} must be a finite number ≥ 0, got ${v}`)
    }
  }
  return usage
}

/**
 * The runtime's {@link NodeContext}: one per attempt (and one per
 * `materialize` call). Reads what it can from its graph run instead of
 * copying it, so making one is cheap.
 *
 * @internal
 */
export class StepContext implements NodeContext, Cancellation {
  readonly input: unknown
  readonly attempt: number
  declare readonly parser?: string
  /** @internal the graph run of the step. */
  readonly run: StepHost
  /** @internal the step's index in its graph. */
  readonly index: number
  /** @internal the steps whose links are being resolved, when materializing. */
  readonly linkStack: readonly number[] | undefined
  /** @internal the trace of the graph this attempt ran, if it ran one. */
  nested: Trace | undefined = undefined
  /** The handle of the step's persistent node (see {@link NodeContext.live}), set before the attempt runs. */
  live: unknown = undefined
  #path: readonly string[] | undefined = undefined
  /** The attempt's own signal (one with a timeout); `undefined`: the graph run's. */
  readonly #signal: AbortSignal | undefined

  constructor(
    run: StepHost,
    index: number,
    input: unknown,
    signal: AbortSignal | undefined,
    attempt: number,
    linkStack: readonly number[] | undefined,
  ) {
    this.run = run
    this.index = index
    this.input = input
    this.#signal = signal
    this.attempt = attempt
    this.linkStack = linkStack
    const parser = run.steps[index]!.parser ?? run.state.parser
    if (parser !== undefined) (this as { parser?: string }).parser = parser
  }

  /** The attempt's signal, else the graph run's, made when first read. */
  get signal(): AbortSignal {
    return this.#signal ?? this.run.signal
  }

  /** Whether the signal is aborted, without making it. */
  get aborted(): boolean {
    const own = this.#signal
    return own !== undefined ? own.aborted : this.run.stopped !== undefined
  }

  onAbort(listener: () => void): () => void {
    const own = this.#signal
    if (own === undefined) return this.run.onStop(listener)
    own.addEventListener('abort', listener, { once: true })
    return () => {
      own.removeEventListener('abort', listener)
    }
  }

  /** The context itself: its `aborted`, `signal` and `onAbort`. */
  get cancellation(): Cancellation {
    return this
  }

  get upstream(): Upstream {
    return this.run.upstreamOf(this.index)
  }

  get runId(): string {
    return this.run.state.runId
  }

  get runStartedAt(): number {
    return this.run.state.startedAt
  }

  get stepId(): string {
    return this.run.ids[this.index]!
  }

  get path(): readonly string[] {
    return (this.#path ??= this.run.pathOf(this.index))
  }

  get session(): NodeRegistry {
    return this.run.state.session
  }

  get interpreters(): InterpreterRegistry {
    return this.run.state.interpreters
  }

  /**
   * Usage counts towards the step; usage reported while materializing an
   * artifact counts towards the step that asked for it (the first of the
   * link stack), whose attempt is waiting for it.
   */
  reportUsage(usage: UsageReport): void {
    const checked = checkUsage(usage)
    this.run.addUsage(this.linkStack === undefined ? this.index : this.linkStack[0]!, checked)
  }

  emit(chunk: unknown): void {
    const run = this.run
    if (run.done) return
    emitStepChunk(run.state, this.path, this.stepId, this.attempt, chunk)
  }

  onRunEnd(cleanup: () => unknown): void {
    const st = this.run.state
    if (st.ended)
      void Promise.resolve()
        .then(cleanup)
        .catch(() => undefined)
    else (st.cleanups ??= []).push(cleanup)
  }

  resolveLinks(handle: string): Promise<readonly unknown[]> {
    return this.run.resolveLinks(this, handle)
  }

  hasLinks(handle: string): boolean {
    return Object.hasOwn(this.run.steps[this.index]!.links, handle)
  }
}
