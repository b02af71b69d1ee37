import type { CompiledGraph } from '../../graph/compile.js'
import type { Step } from '../../graph/Step.js'
import type { Upstream, UsageReport } from '../../node/Interpreter.js'
import type { Node } from '../../node/Node.js'
import type { RunError } from '../RunError.js'
import type { RunState } from '../RunState.js'

/** What link resolution needs of the context that asks: its step and the steps resolving links. @internal */
export interface LinkAsker {
  readonly index: number
  readonly path: readonly string[]
  /** The steps whose links are being resolved, when materializing; else just the step. */
  readonly linkStack: readonly number[] | undefined
}

/**
 * What a step's context, its attempts and its links see of the graph run
 * they belong to (`GraphRun` implements it). Kept apart so that none of
 * them imports the scheduler.
 *
 * @internal
 */
export interface StepHost {
  readonly state: RunState
  readonly compiled: CompiledGraph
  readonly steps: readonly Step[]
  readonly ids: readonly string[]
  /** Aborted when the graph stops (made on first read). */
  readonly signal: AbortSignal
  /** The error the graph stopped with, if it stopped: what `signal` is aborted with. */
  readonly stopped: RunError | undefined
  /**
   * Calls `listener` once when the graph stops (not if it has already),
   * without making `signal`; the function returned takes it back.
   */
  onStop(listener: () => void): () => void
  /** One phase byte (see `phase.ts`) per step. */
  readonly phase: Uint8Array
  readonly attemptsOf: Int32Array
  readonly outputs: readonly unknown[]
  readonly inputs: readonly unknown[]
  readonly nodes: readonly (Node | undefined)[]
  /** The artifact of each linked step, made once per run. */
  artifacts: (Promise<unknown> | undefined)[] | undefined
  /** What each step's pending link resolutions wait for (step indices, repeated per call). */
  linkWaits: (number[] | undefined)[] | undefined
  /** What each step's running attempt holds of the session (see `occupancy.ts`), made on first need. */
  holds: ((() => void) | undefined)[] | undefined
  /** Whether the graph finished or stopped. */
  readonly done: boolean
  pathOf(i: number): readonly string[]
  /** The clock reading step `i` started at (its first attempt starts then too). */
  startOf(i: number): number
  upstreamOf(i: number): Upstream
  addUsage(i: number, usage: UsageReport): void
  /** Resolves when step `i` has finished with a value; rejects if the graph stops first. */
  whenDone(i: number): Promise<void>
  /** What `ctx.resolveLinks` does. */
  resolveLinks(ctx: LinkAsker, handle: string): Promise<readonly unknown[]>
  /** Step `i` waits for a link: its slot goes back to the pool (counted per wait). */
  releaseSlot(i: number): void
  /**
   * Step `i`'s wait ended: when it was its last, it takes a slot again, at
   * once (`undefined`) or when one frees (the promise), before new steps.
   */
  takeSlot(i: number): Promise<void> | undefined
  stop(error: RunError): void
}
