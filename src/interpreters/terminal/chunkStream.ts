/**
 * Turns a callback-driven execute into an async generator of its chunks
 * whose return value is the execute's result. Internal: not exported from
 * the package.
 */

/** Characters queued for a slow reader before the producer is paused. */
const HIGH_WATER = 1024 * 1024

export interface ChunkSource<R, C = string> {
  /** Starts the work; `onChunk` receives its output until the promise settles. */
  run(onChunk: (chunk: C) => void): Promise<R>
  /** Stops the flow of output (backpressure). */
  pause(): void
  resume(): void
  /** Characters in a chunk, for the backpressure count; default: a string's length. */
  readonly size?: (chunk: C) => number
  /** Called when the reader leaves before the work settled; default: detach, the work goes on. */
  readonly leave?: () => Promise<void>
  /** Joins the chunks queued for a reader into one (a reader behind a flood takes them in one step); default: each is yielded. */
  readonly merge?: (chunks: readonly C[]) => C
}

/**
 * The chunks of `source.run`, then its result as the return value. A reader
 * that leaves early detaches (its output is dropped) and `source.leave` runs.
 */
export async function* chunkStream<R, C = string>(
  source: ChunkSource<R, C>,
): AsyncGenerator<C, R, undefined> {
  const sizeOf = source.size ?? ((chunk: C) => (chunk as string).length)
  const state = { queue: [] as C[], queued: 0, paused: false, settled: false, left: false }
  let wake: (() => void) | undefined
  const notify = (): void => {
    const w = wake
    wake = undefined
    w?.()
  }
  const result = source.run((chunk) => {
    if (state.left) return
    state.queue.push(chunk)
    state.queued += sizeOf(chunk)
    if (!state.paused && state.queued > HIGH_WATER) {
      state.paused = true
      source.pause()
    }
    notify()
  })
  const onSettled = (): void => {
    state.settled = true
    notify()
  }
  result.then(onSettled, onSettled)
  try {
    while (true) {
      if (state.queue.length > 0) {
        const batch = state.queue
        state.queue = []
        state.queued = 0
        if (state.paused) {
          state.paused = false
          source.resume()
        }
        if (source.merge !== undefined && batch.length > 1) yield source.merge(batch)
        else for (const chunk of batch) yield chunk
      } else if (state.settled) {
        return await result
      } else {
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
    }
  } finally {
    state.left = true
    if (state.paused) {
      state.paused = false
      source.resume()
    }
    if (!state.settled) await source.leave?.()
  }
}
