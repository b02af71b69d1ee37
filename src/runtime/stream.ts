import { Stopped, UsageError } from '../errors.js'
import type { Graph } from '../graph/Graph.js'
import { prepare, type RunOptions } from './run.js'
import { streamLag, type RunEvent, type StreamEvent } from './RunEvent.js'

/**
 * The options of {@link stream}: those of `run`, and how many events it
 * keeps for a reader that falls behind.
 *
 * @category runtime
 */
export interface StreamOptions extends RunOptions {
  /**
   * The most events kept unread (default 10 000, an integer ≥ 1). Past it,
   * new events are dropped and counted; the reader gets a `stream_lag`
   * event with the count where they were, then the newer events. The
   * root's `graph_completed` is always kept.
   */
  readonly buffer?: number
}

const DEFAULT_BUFFER = 10_000

/**
 * Runs a graph as a stream of events: `graph_started`, then per step
 * `step_start` (one per attempt), `step_chunk`s, `step_error` (a failed
 * attempt) and `step_complete`, and `graph_completed`; nested graphs'
 * events come in between with their step's path. Each iteration starts its
 * own run (on the first `next`). When the run fails, the iteration throws
 * its error after the last event; leaving the loop early (`break`) cancels
 * the run. Events are buffered: the run does not wait for the reader, and
 * the buffer is bounded (`options.buffer`): a reader that falls behind gets
 * a `stream_lag` event counting the events it missed, never unbounded
 * memory. Same options as {@link run} (an `onEvent` there is not called).
 *
 * @category runtime
 * @example
 * import { addStep, chain, defaultInterpreters, fn, graph, stream } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const one = fn('one', () => 1)
 * const g = pipe(graph('g'), addStep({ id: 'a', node: one }), addStep({ id: 'b', node: one }), chain('a', 'b'))
 * const seen: string[] = []
 * for await (const e of stream(g, { interpreters: defaultInterpreters })) {
 *   seen.push(e.type === 'step_start' || e.type === 'step_complete' ? `${e.type} ${e.stepId}` : e.type)
 * }
 * assert.deepStrictEqual(seen, [
 *   'graph_started',
 *   'step_start a',
 *   'step_complete a',
 *   'step_start b',
 *   'step_complete b',
 *   'graph_completed',
 * ])
 */
export const stream = (g: Graph, options: StreamOptions): AsyncIterable<StreamEvent> => {
  if (typeof options !== 'object' || (options as unknown) === null) prepare('stream', g, options) // throws
  const { buffer = DEFAULT_BUFFER, ...runOptions } = options
  if (typeof buffer !== 'number' || !Number.isSafeInteger(buffer) || buffer < 1) {
    throw new UsageError('stream', `options.buffer must be an integer ≥ 1, got ${String(buffer)}`)
  }
  prepare('stream', g, runOptions) // checks the arguments now
  return {
    [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
      const closer = new AbortController()
      const signal =
        runOptions.signal === undefined
          ? closer.signal
          : AbortSignal.any([runOptions.signal, closer.signal])
      const launch = prepare('stream', g, { ...runOptions, signal })
      // A ring of `buffer` events, plus room for a lag notice and the last event.
      const ring = new Array<StreamEvent | undefined>(buffer + 2)
      let head = 0
      let size = 0
      let dropped = 0
      let wake: (() => void) | undefined
      let started = false
      let finished = false
      let failed = false
      let failure: unknown
      const enqueue = (event: StreamEvent): void => {
        ring[(head + size) % ring.length] = event
        size++
      }
      const push = (event: RunEvent): void => {
        const last = event.type === 'graph_completed' && event.path.length === 0
        if (!last && size + (dropped > 0 ? 2 : 1) > buffer) {
          dropped++
          return
        }
        if (dropped > 0) {
          enqueue(streamLag(event.runId, dropped))
          dropped = 0
        }
        enqueue(event)
        if (wake !== undefined) {
          const w = wake
          wake = undefined
          w()
        }
      }
      const settle = (): void => {
        finished = true
        wake?.()
      }
      const take = (): IteratorResult<StreamEvent> => {
        const value = ring[head]!
        ring[head] = undefined
        head = (head + 1) % ring.length
        size--
        return { value, done: false }
      }
      const waitForMore = async (): Promise<IteratorResult<StreamEvent>> => {
        while (true) {
          if (size > 0) return take()
          if (finished) {
            if (failed) {
              failed = false
              throw failure
            }
            return { value: undefined, done: true }
          }
          await new Promise<void>((resolve) => (wake = resolve))
        }
      }
      return {
        next(): Promise<IteratorResult<StreamEvent>> {
          if (!started) {
            started = true
            launch(push).then(settle, (e: unknown) => {
              failed = true
              failure = e
              settle()
            })
          }
          // A buffered event is handed out without an async function's overhead.
          return size > 0 ? Promise.resolve(take()) : waitForMore()
        },
        return(): Promise<IteratorResult<StreamEvent>> {
          if (!finished) closer.abort(new Stopped('the stream was closed by its reader'))
          finished = true
          failed = false
          size = 0
          ring.fill(undefined)
          return Promise.resolve({ value: undefined, done: true })
        },
      }
    },
  }
}
