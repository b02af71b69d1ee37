import type { Vertex } from '../dag/Vertex.js'
import { UsageError } from '../errors.js'
import { requireName } from './name.js'
import type { Node } from './Node.js'
import type { NodeRegistry } from './NodeRegistry.js'

/**
 * The results of a step's dependencies, keyed by step id, in the order of
 * its `dependsOn`. Only dependencies appear, so a step sees the same
 * upstream whatever order parallel steps finish in.
 *
 * @category context
 */
export type Upstream = Readonly<Record<string, unknown>>

/**
 * Resources one call used, reported by an interpreter with
 * {@link NodeContext.reportUsage}; the runtime adds them up against the
 * run's budget. Every field is a non-negative amount; a missing one is 0.
 *
 * @category context
 */
export interface UsageReport {
  readonly tokens?: number
  readonly apiCalls?: number
  /** In the budget's currency unit (the runtime does not convert). */
  readonly cost?: number
}

/**
 * Cancellation that is cheap to check: whether it happened, a way to be
 * told when it does, and the `AbortSignal` itself, which may be made only
 * when something reads it (a runtime step's is: an `AbortSignal` costs
 * microseconds, more than a short step). `runAgent` takes one as its
 * `signal`, so a turn whose model and tools never read the signal makes
 * none.
 *
 * @category context
 */
export interface Cancellation {
  /** Whether it was cancelled; reading this makes no signal. */
  readonly aborted: boolean
  /** Aborted when cancelled; may be made when first read. */
  readonly signal: AbortSignal
  /**
   * Calls `listener` once when cancelled — not when it has been already —
   * without making the signal. The function returned takes it back.
   */
  onAbort(listener: () => void): () => void
}

/**
 * What the runtime hands to an interpreter (and through the function
 * interpreter, to a function node) for one attempt of one step. It is a pure
 * interface: the runtime implements it; tests may implement it by hand.
 *
 * @category context
 */
export interface NodeContext<I = unknown> {
  /** The step's input: its `input`, or `inputFn(upstream, graphInput)`, or else the graph's input. */
  readonly input: I
  /** The results of the step's dependencies, keyed by step id. */
  readonly upstream: Upstream
  /** Aborted when the run is cancelled or this attempt times out: stop promptly. */
  readonly signal: AbortSignal
  /**
   * The same cancellation as `signal`, for an interpreter that checks it
   * often and hands the signal on only now and then: checking it makes no
   * `AbortSignal` (the runtime makes a step's on first read). A context
   * made by hand may lack it.
   */
  readonly cancellation?: Cancellation
  /** The id of the whole run (the same in nested graphs). */
  readonly runId: string
  /** When the run started, in epoch milliseconds by the run's clock (`{timestamp}` in name templates). */
  readonly runStartedAt: number
  /** The id of the step being run. */
  readonly stepId: string
  /** Step ids from the root graph down to this step, inclusive: `['outer', 'inner']`. */
  readonly path: readonly string[]
  /** The attempt number, 1 for the first try, 2 for the first retry, … */
  readonly attempt: number
  /** The parser named by the step, for interpreters that parse output (terminals, LLMs). */
  readonly parser?: string
  /** Where `nodeRef`s are resolved: the session's nodes. */
  readonly session: NodeRegistry
  /** The interpreters of the run, by kind (for interpreters that run other nodes). */
  readonly interpreters: InterpreterRegistry
  /** Adds resources used by this attempt to the run's usage (checked against the budget). */
  reportUsage(usage: UsageReport): void
  /** Publishes a partial result: it becomes a `step_chunk` event carrying this step's path. */
  emit(chunk: unknown): void
  /**
   * The artifacts materialized by the steps this step links to under
   * `handle`, in the order the step's `links[handle]` lists them. Resolved
   * lazily and cached per run; rejects on a link cycle or an unknown handle.
   */
  resolveLinks(handle: string): Promise<readonly unknown[]>
  /**
   * Whether the step links to other steps under `handle`: an interpreter
   * whose links are optional asks this first, rather than have
   * `resolveLinks` reject (which costs an error). A context made by hand
   * may lack it.
   */
  hasLinks?(handle: string): boolean
  /**
   * Has `cleanup` run once when the whole run settles (completed, failed or
   * cancelled), before the run's promise does: how a resource made for the
   * run (a server started by `materialize`) is closed with it. Cleanups run
   * last given first; what they throw is ignored. A context made by hand
   * may lack it: then the resource lives until the step's signal aborts.
   */
  onRunEnd?(cleanup: () => unknown): void
  /**
   * The handle of the step's persistent node — what its interpreter's
   * `start` answered (a terminal kind's terminal) — from the session that
   * holds the node (which starts it on first use, if it had not), else
   * from the run, which starts the node on first use and stops it when the
   * run ends. `undefined` for a node that is not
   * persistent, or whose interpreter has no `start`; a context made by hand
   * may lack it.
   */
  readonly live?: unknown
}

/**
 * What {@link Interpreter.executeStream} returns: chunks, then the step's
 * result as the iterator's return value. `async function*` produces one:
 * `yield` each chunk, `return` the result. The runtime turns each chunk into
 * a `step_chunk` event and reads the result from the final
 * `{ done: true, value }`.
 *
 * @category interpreters
 */
export type ChunkStream<O = unknown> = AsyncIterable<unknown, O, undefined>

/**
 * What an interpreter's lifecycle capabilities receive (`start`, `stop`, `fork`).
 *
 * @category interpreters
 */
export interface LifecycleContext {
  readonly signal: AbortSignal
  readonly session: NodeRegistry
}

/**
 * What {@link Interpreter.stop} receives: the lifecycle context and the
 * handle that the node's `start` answered.
 *
 * @category interpreters
 */
export interface StopContext extends LifecycleContext {
  readonly live: unknown
}

/**
 * Where a fork starts in the state of the forked node: for an LLM node, a
 * vertex of its conversation or the number of messages to keep. Kinds whose
 * state has no history (terminals, bash) refuse it.
 *
 * @category interpreters
 */
export type ForkPoint = Vertex<unknown> | number

/**
 * What {@link Interpreter.fork} receives: the lifecycle context, the time to
 * stamp as `fork_time` (ISO 8601) and, when asked for, the point to fork from.
 * Only an LLM node's history has points: other kinds refuse `at`.
 *
 * @category interpreters
 */
export interface ForkContext extends LifecycleContext {
  /** Default: the interpreter's clock. */
  readonly time?: string
  readonly at?: ForkPoint
  /** The source's handle (what its `start` answered) when the source is started. */
  readonly live?: unknown
}

/**
 * Replaces a handle that no longer runs: stops it (what `stop` throws is
 * ignored — it is dead already), then starts a fresh one and answers it.
 * What a handle's keeper does when the interpreter says it is not `alive`.
 *
 * @internal
 */
export const respawn = <N extends Node>(
  interpreter: Interpreter<N>,
  node: N,
  dead: StopContext,
  ctx: LifecycleContext,
): Promise<unknown> =>
  Promise.resolve()
    .then(() => interpreter.stop?.(node, dead))
    .catch(() => undefined)
    .then(() => interpreter.start!(node, ctx))

/**
 * Refuses a fork point for a kind whose state has no history to fork from.
 *
 * @internal
 */
export const refuseForkPoint = (api: string, node: Node, ctx: ForkContext | undefined): void => {
  if (ctx?.at !== undefined) {
    throw new UsageError(api, `a ${node.kind} node cannot fork from an earlier point (at)`)
  }
}

/**
 * The effectful implementation of one node kind. Every member but `kind` is
 * an optional capability; the runtime uses what is there and never branches
 * on kind. Methods (not function properties), so an `Interpreter<FunctionNode>`
 * is an `Interpreter`.
 *
 * - `execute`: runs one attempt; returns the result or a promise of it (the
 *   runtime awaits it; a throw or rejection is the attempt's failure). It
 *   may also publish chunks with `ctx.emit`.
 * - `executeStream`: runs one attempt as a {@link ChunkStream}. A runtime
 *   uses it in preference to `execute` when both exist.
 * - `materialize`: turns a step's output into the artifact that steps
 *   linking to it receive from `ctx.resolveLinks`. Without it, the artifact is
 *   the output itself.
 * - `start` / `stop`: bring a persistent node's live state up and down.
 *   `start` resolves with the node's handle — what it runs on, a terminal
 *   kind's terminal — which its keeper holds: the session that holds the
 *   node (which drives the {@link NodeState} lifecycle around them and
 *   hands the handle out as `Session.live`), else the run that started the
 *   node on first use.
 *   Each step on the node gets the handle as `ctx.live`; `stop` gets it as
 *   `ctx.live`. The interpreter keeps none: it is stateless over handles.
 * - `alive`: whether a handle `start` answered still runs (a terminal
 *   whose program has exited does not). Before a step on the node, its
 *   keeper asks; on `false` it stops the dead handle and starts a fresh
 *   one for the step (a respawn). Without it, a handle runs until stopped.
 * - `fork`: a new persistent node with the given id whose live state starts
 *   as a copy of this one's (`ctx.live` is the source's handle when it is
 *   started). The session then starts the copy when the source is started.
 *
 * @category interpreters
 */
export interface Interpreter<N extends Node = Node> {
  readonly kind: N['kind']
  execute?(node: N, ctx: NodeContext): unknown
  executeStream?(node: N, ctx: NodeContext): ChunkStream
  materialize?(node: N, output: unknown, ctx: NodeContext): unknown
  start?(node: N, ctx: LifecycleContext): Promise<unknown>
  stop?(node: N, ctx: StopContext): Promise<void>
  alive?(node: N, live: unknown): boolean
  fork?(node: N, id: string, ctx: ForkContext): Promise<N>
}

/**
 * Interpreters by kind. Build one with {@link interpreters}.
 *
 * @category interpreters
 */
export type InterpreterRegistry = ReadonlyMap<string, Interpreter>

/**
 * An {@link InterpreterRegistry} of the given interpreters. Two interpreters
 * for one kind are a {@link UsageError}; to replace one, build a new registry
 * from the ones you keep.
 *
 * @category interpreters
 * @example
 * import { interpreters } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const echo = { kind: 'echo', execute: (_node: unknown, ctx: { input: unknown }) => ctx.input }
 * const registry = interpreters(echo)
 * assert.strictEqual(registry.get('echo'), echo)
 * assert.throws(() => interpreters(echo, echo), /two interpreters for kind "echo"/)
 */
export const interpreters = (...list: readonly Interpreter[]): InterpreterRegistry => {
  const byKind = new Map<string, Interpreter>()
  list.forEach((interpreter, i) => {
    if (typeof interpreter !== 'object' || (interpreter as unknown) === null) {
      throw new UsageError('interpreters', `argument ${i} is not an interpreter`)
    }
    const kind = requireName('interpreters', `the kind of argument ${i}`, interpreter.kind)
    if (byKind.has(kind)) {
      throw new UsageError('interpreters', `two interpreters for kind "${kind}"`)
    }
    byKind.set(kind, interpreter)
  })
  return byKind
}
