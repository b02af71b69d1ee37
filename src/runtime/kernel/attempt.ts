import { afterAttempts, maxAttempts, retryDelay } from '../../graph/ErrorPolicy.js'
import type { ChunkStream, Interpreter } from '../../node/Interpreter.js'
import type { Node } from '../../node/Node.js'
import { MissingInterpreter, StepTimeout } from '../RunError.js'
import { emitStepError, emitStepStart } from '../RunEvent.js'
import type { StepStatus } from '../Trace.js'
import { needsHandle, startHandle } from './handles.js'
import { occupy, vacate } from './occupancy.js'
import { StepContext } from './StepContext.js'
import type { StepHost } from './StepHost.js'

/** How a step ended after its error policy. @internal */
export interface Outcome {
  readonly status: Exclude<StepStatus, 'cancelled'>
  readonly output: unknown
  readonly error: unknown
  readonly attempts: number
  readonly ctx: StepContext | undefined
  /** The node that gave the output (the fallback's, for `fallback`). */
  readonly node: Node
}

type Attempt =
  | { readonly ok: true; readonly output: unknown; readonly ctx: StepContext }
  | { readonly ok: false; readonly error: unknown; readonly ctx: StepContext }

const drain = async (chunks: ChunkStream, ctx: StepContext): Promise<unknown> => {
  const it = chunks[Symbol.asyncIterator]()
  while (true) {
    const r = await it.next()
    if (r.done === true) return r.value
    ctx.emit(r.value)
  }
}

/** `work`, or a rejection with the signal's reason as soon as it aborts. */
const untilAborted = <A>(work: Promise<A>, signal: AbortSignal): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error)
    }
    if (signal.aborted) {
      onAbort()
      return
    }
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- pass on what was thrown
        reject(e)
      },
    )
  })

/** Runs one attempt's work: `executeStream`, its chunks become events, else `execute`. */
const executeOn = (node: Node, interpreter: Interpreter, ctx: StepContext): Promise<unknown> =>
  interpreter.executeStream !== undefined
    ? drain(interpreter.executeStream(node, ctx), ctx)
    : Promise.resolve(interpreter.execute!(node, ctx))

/**
 * One attempt of step `i` with `node`: `executeStream` (chunks become
 * events) or `execute`. With a `timeoutMs`, the attempt gets its own signal,
 * aborted with a {@link StepTimeout} when the time passes, and the attempt
 * fails then even if the interpreter does not stop.
 */
const attemptOnce = async (
  run: StepHost,
  i: number,
  node: Node,
  interpreter: Interpreter,
  input: unknown,
  attempt: number,
): Promise<Attempt> => {
  const st = run.state
  const timeoutMs = run.steps[i]!.timeoutMs
  st.attempts++
  run.attemptsOf[i] = attempt
  // The first attempt starts with the step: the same reading as the fast path's, so a step
  // reads the clock as often whichever way its interpreter runs (a replay answers by `execute`).
  const at = attempt === 1 ? run.startOf(i) : st.clock.now()
  occupy(run, i, node)
  emitStepStart(st, run.pathOf(i), run.ids[i]!, node.id, node.kind, attempt, at)
  let signal: AbortSignal | undefined
  let attemptController: AbortController | undefined
  let timer: AbortController | undefined
  const onRunAbort = (): void => {
    attemptController?.abort(run.signal.reason)
  }
  if (timeoutMs !== undefined) {
    attemptController = new AbortController()
    timer = new AbortController()
    signal = attemptController.signal
    run.signal.addEventListener('abort', onRunAbort, { once: true })
    const c = attemptController
    st.clock.sleep(timeoutMs, timer.signal).then(
      () => {
        c.abort(new StepTimeout(run.pathOf(i), timeoutMs))
      },
      () => undefined,
    )
  }
  const ctx = new StepContext(run, i, input, signal, attempt, undefined)
  try {
    const held = needsHandle(node, interpreter)
      ? (st.session.handleOf?.(node, interpreter) ?? null)
      : undefined
    if (held !== undefined && held !== null) ctx.live = held.handle
    let work: Promise<unknown> =
      held === null
        ? startHandle(st, node, interpreter, run.pathOf(i)).then((live) => {
            ctx.live = live
            // A node its session has just started is held busy by this attempt too.
            if (!ctx.aborted) occupy(run, i, node)
            return executeOn(node, interpreter, ctx)
          })
        : executeOn(node, interpreter, ctx)
    if (attemptController !== undefined) work = untilAborted(work, attemptController.signal)
    return { ok: true, output: await work, ctx }
  } catch (error) {
    return { ok: false, error, ctx }
  } finally {
    if (timer !== undefined) {
      timer.abort()
      run.signal.removeEventListener('abort', onRunAbort)
    }
  }
}

/**
 * Runs step `i` under its error policy, after a failed first attempt
 * (`failed`) or from the start: retries with their delays (by the run's
 * clock and random source), then skip, fallback or fail. `undefined` when
 * the graph stopped meanwhile (the step is then recorded as cancelled): no
 * retry and no fallback starts after that.
 *
 * @internal
 */
export const settleStep = async (
  run: StepHost,
  i: number,
  node: Node,
  interpreter: Interpreter,
  input: unknown,
  failed: { readonly error: unknown; readonly ctx: StepContext } | undefined,
): Promise<Outcome | undefined> => {
  const st = run.state
  const policy = run.steps[i]!.onError
  const most = maxAttempts(policy)
  let attempt = failed === undefined ? 0 : 1
  let error = failed?.error
  let ctx = failed?.ctx
  while (true) {
    if (attempt > 0) {
      const final = attempt >= most
      vacate(run, i)
      emitStepError(st, run.pathOf(i), run.ids[i]!, attempt, error, final, st.clock.now())
      if (final || policy._tag !== 'retry') break
      const delay = retryDelay(policy, attempt, st.random())
      if (delay > 0) {
        try {
          await st.clock.sleep(delay, run.signal)
        } catch {
          return undefined
        }
      }
      if (run.done) return undefined
      const over = st.overBudget(run.pathOf(i), st.stepsStarted)
      if (over !== undefined) {
        st.fail(over)
        return undefined
      }
      st.retries++
    }
    attempt++
    const r = await attemptOnce(run, i, node, interpreter, input, attempt)
    if (run.done) return undefined
    ctx = r.ctx
    if (r.ok)
      return {
        status: 'completed',
        output: r.output,
        error: undefined,
        attempts: attempt,
        ctx,
        node,
      }
    error = r.error
  }
  const then = afterAttempts(policy)
  switch (then._tag) {
    case 'skip':
      return { status: 'skipped', output: then.value, error, attempts: attempt, ctx, node }
    case 'fallback': {
      const other = then.node
      const otherInterpreter = st.interpreters.get(other.kind)
      if (
        otherInterpreter === undefined ||
        (otherInterpreter.execute === undefined && otherInterpreter.executeStream === undefined)
      ) {
        run.stop(new MissingInterpreter(run.pathOf(i), other.kind))
        return undefined
      }
      attempt++
      const r = await attemptOnce(run, i, other, otherInterpreter, input, attempt)
      if (run.done) return undefined
      if (r.ok) {
        return {
          status: 'fallback',
          output: r.output,
          error,
          attempts: attempt,
          ctx: r.ctx,
          node: other,
        }
      }
      vacate(run, i)
      emitStepError(st, run.pathOf(i), run.ids[i]!, attempt, r.error, true, st.clock.now())
      return {
        status: 'failed',
        output: undefined,
        error: r.error,
        attempts: attempt,
        ctx: r.ctx,
        node: other,
      }
    }
    case 'fail':
      return { status: 'failed', output: undefined, error, attempts: attempt, ctx, node }
  }
}
