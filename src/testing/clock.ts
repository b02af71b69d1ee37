import { UsageError } from '../errors.js'
import type { Clock } from '../runtime/Clock.js'

/**
 * A {@link Clock} that moves only when told: `advance(ms)`, or by itself
 * when `auto` is on and everything else has settled.
 *
 * @category clocks
 */
export interface FakeClock extends Clock {
  /**
   * Moves time forward by `ms`, waking sleepers in time order; after each
   * wake-up, lets the work it releases run (so sleeps it starts within the
   * window wake up too). Resolves when time has reached `now() + ms`.
   */
  advance(ms: number): Promise<void>
  /** How many sleeps are waiting. */
  readonly pending: number
}

/**
 * Options of {@link fakeClock}.
 *
 * @category clocks
 */
export interface FakeClockOptions {
  /** The first reading of `now()`. Default 0. */
  readonly start?: number
  /**
   * Jump to the next sleeper's wake-up time whenever all other work has
   * settled (checked once the microtask queue is empty, with `setImmediate`).
   * Right when everything the test waits for goes through the clock. Default false.
   */
  readonly auto?: boolean
}

interface Sleeper {
  readonly at: number
  readonly seq: number
  readonly resolve: () => void
  readonly cancel: () => void
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * A fake clock for tests: retries' delays, timeouts and time budgets run
 * without sleeping.
 *
 * @category clocks
 * @example
 * import { fakeClock } from 'nerve-agents/testing'
 * import assert from 'assert'
 *
 * const clock = fakeClock()
 * let woke = false
 * void clock.sleep(1000).then(() => (woke = true))
 * await clock.advance(999)
 * assert.strictEqual(woke, false)
 * await clock.advance(1)
 * assert.strictEqual(woke, true)
 * assert.strictEqual(clock.now(), 1000)
 */
export const fakeClock = (options?: FakeClockOptions): FakeClock => {
  const start = options?.start ?? 0
  if (typeof start !== 'number' || !Number.isFinite(start)) {
    throw new UsageError('fakeClock', `options.start must be a finite number, got ${String(start)}`)
  }
  const auto = options?.auto ?? false
  let now = start
  let seq = 0
  let sleepers: Sleeper[] = []
  let ticking = false

  const earliest = (): Sleeper | undefined => {
    let best: Sleeper | undefined
    for (const s of sleepers) {
      if (best === undefined || s.at < best.at || (s.at === best.at && s.seq < best.seq)) best = s
    }
    return best
  }
  const wake = (s: Sleeper): void => {
    sleepers = sleepers.filter((x) => x !== s)
    if (s.at > now) now = s.at
    s.resolve()
  }
  const tick = (): void => {
    ticking = false
    const next = earliest()
    if (next === undefined) return
    wake(next)
    schedule()
  }
  const schedule = (): void => {
    if (!auto || ticking || sleepers.length === 0) return
    ticking = true
    setImmediate(tick)
  }

  return new Fake(
    () => now,
    (ms: number, signal?: AbortSignal): Promise<void> => {
      if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0) {
        return Promise.reject(new UsageError('sleep', `ms must be a number ≥ 0, got ${String(ms)}`))
      }
      if (signal?.aborted === true) return Promise.reject(signal.reason as Error)
      return new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          sleepers = sleepers.filter((x) => x !== sleeper)
          reject(signal!.reason as Error)
        }
        const sleeper: Sleeper = {
          at: now + ms,
          seq: seq++,
          resolve: () => {
            signal?.removeEventListener('abort', onAbort)
            resolve()
          },
          cancel: onAbort,
        }
        sleepers.push(sleeper)
        signal?.addEventListener('abort', onAbort, { once: true })
        schedule()
      })
    },
    async (ms: number): Promise<void> => {
      if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0) {
        throw new UsageError('advance', `ms must be a number ≥ 0, got ${String(ms)}`)
      }
      const target = now + ms
      await settle()
      while (true) {
        const next = earliest()
        if (next === undefined || next.at > target) break
        wake(next)
        await settle()
      }
      now = target
    },
    () => sleepers.length,
  )
}

/** The clock {@link fakeClock} makes, its count of sleepers read through the prototype. */
class Fake implements FakeClock {
  readonly #pending: () => number

  constructor(
    readonly now: () => number,
    readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    readonly advance: (ms: number) => Promise<void>,
    pending: () => number,
  ) {
    this.#pending = pending
  }

  get pending(): number {
    return this.#pending()
  }
}
