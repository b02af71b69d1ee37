import type { Graph } from '../graph/Graph.js'
import { prepare, type RunOptions } from './run.js'
import type { RunEvent } from './RunEvent.js'

/**
 * Runs a graph as a stream of events: `graph_started`, then per step
 * `step_start` (one per attempt), `step_chunk`s, `step_error` (a failed
 * attempt) and `step_complete`, and `graph_completed`; nested graphs'
 * events come in between with their step's path. Each iteration starts its
 * own run (on the first `next`). When the run fails, the iteration throws
 * its error after the last event; leaving the loop early (`break`) cancels
 * the run. Events are buffered: the run does not wait for the reader. Same
 * options as {@link run} (an `onEvent` there is not called).
 *
 * @category runtime
 * @example
 * import { addStep, chain, defaultInterpreters, fn, graph, stream } from 'nerve'
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
export const stream = (g: Graph, options: RunOptions): AsyncIterable<RunEvent> => {
  prepare('stream', g, options) // checks the arguments now
  return {
    [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
      const closer = new AbortController()
      const signal =
        options.signal === undefined
          ? closer.signal
          : AbortSignal.any([options.signal, closer.signal])
      const launch = prepare('stream', g, { ...options, signal })
      let queue: (RunEvent | undefined)[] = []
      let head = 0
      let wake: (() => void) | undefined
      let started = false
      let finished = false
      let failed = false
      let failure: unknown
      const push = (event: RunEvent): void => {
        queue.push(event)
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
      const take = (): IteratorResult<RunEvent> => {
        const value = queue[head]!
        queue[head++] = undefined
        if (head > 4096 && head * 2 > queue.length) {
          queue = queue.slice(head)
          head = 0
        }
        return { value, done: false }
      }
      const waitForMore = async (): Promise<IteratorResult<RunEvent>> => {
        while (true) {
          if (head < queue.length) return take()
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
        next(): Promise<IteratorResult<RunEvent>> {
          if (!started) {
            started = true
            launch(push).then(settle, (e: unknown) => {
              failed = true
              failure = e
              settle()
            })
          }
          // A buffered event is handed out without an async function's overhead.
          return head < queue.length ? Promise.resolve(take()) : waitForMore()
        },
        return(): Promise<IteratorResult<RunEvent>> {
          if (!finished) closer.abort(new Error('the stream was closed by its reader'))
          finished = true
          failed = false
          return Promise.resolve({ value: undefined, done: true })
        },
      }
    },
  }
}
