/**
 * The order a replay answers its calls in: the order the recorded calls
 * ended. The runtime reads the clock as steps start and end, so a step's
 * times are the readings taken around it only when the steps end in the
 * recorded order; answered at once, a call that took 5 ms when recorded
 * would end before calls that ended before it, and the readings would land
 * on the wrong steps.
 *
 * @internal
 */

/** Answers calls by their rank in the recorded end order. @internal */
export interface EndOrder {
  /**
   * `give()`, once every call ranked before `rank` has been answered: a
   * synchronous call at once (it ended as it was asked), an asynchronous
   * one by a promise that settles in its turn, or with the signal's reason
   * when its step is cancelled first. A call without a rank (live, or from
   * an older recording) is answered at once.
   */
  answer(
    rank: number | undefined,
    async: boolean,
    signal: AbortSignal,
    give: () => unknown,
  ): unknown
}

/**
 * An {@link EndOrder} over `count` ranked calls. Each turn comes after a
 * macrotask, as the recorded calls ended on events of their own. When the
 * call whose turn it is has not been asked for by then (a replay that goes
 * live, or runs differently), the lowest-ranked call waiting goes next:
 * an answer may come out of order, never not at all.
 *
 * @internal
 */
export const endOrder = (count: number): EndOrder => {
  const ended: boolean[] = new Array<boolean>(count).fill(false)
  let next = 0
  const waiting = new Map<number, () => void>()
  let scheduled = false
  const release = (): void => {
    scheduled = false
    if (waiting.size === 0) return
    const go = waiting.get(next) ?? waiting.get(Math.min(...waiting.keys()))!
    go()
  }
  const schedule = (): void => {
    if (scheduled) return
    scheduled = true
    setImmediate(release)
  }
  const end = (rank: number): void => {
    ended[rank] = true
    while (next < count && ended[next] === true) next++
    schedule()
  }
  return {
    answer(rank, async, signal, give) {
      if (rank === undefined || rank >= count) return give()
      if (!async) {
        end(rank)
        return give()
      }
      return new Promise((resolve, reject) => {
        const stop = (): void => {
          waiting.delete(rank)
          end(rank)
          reject(signal.reason as Error)
        }
        if (signal.aborted) {
          stop()
          return
        }
        signal.addEventListener('abort', stop, { once: true })
        waiting.set(rank, () => {
          waiting.delete(rank)
          signal.removeEventListener('abort', stop)
          end(rank)
          try {
            resolve(give())
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)))
          }
        })
        schedule()
      })
    },
  }
}
