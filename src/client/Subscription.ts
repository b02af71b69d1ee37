/**
 * A subscription seen from the client: the engine's events for one filter,
 * read as an AsyncIterable. The client keeps at most `maxQueued` unread
 * events; past that the oldest are dropped and a `LAGGED { dropped }` event
 * takes their place, as the engine does for a slow connection. The
 * iteration ends after `SERVER_SHUTDOWN`, on `unsubscribe()`, or when a
 * `for await` loop breaks; it throws the {@link ConnectionError} when the
 * connection is lost.
 */
import type { EngineEvent, LaggedEvent } from '../protocol/index.js'
import type { ConnectionError } from './ConnectionError.js'

/**
 * 10 000: unread events a subscription keeps before it drops the oldest.
 *
 * @category client
 */
export const DEFAULT_MAX_QUEUED = 10_000

/**
 * A live subscription: iterate it for its events.
 *
 * @category client
 */
export class Subscription<E extends EngineEvent = EngineEvent> implements AsyncIterable<E> {
  private readonly queue: (E | LaggedEvent)[] = []
  private head = 0
  private dropped = 0
  private waiter: ((r: IteratorResult<E>) => void) | undefined
  private failWaiter: ((e: Error) => void) | undefined
  /** `undefined` while live, `null` when ended normally, the error when the connection was lost. */
  private end: Error | null | undefined

  constructor(
    /** The engine's subscription id. */
    readonly id: string,
    private readonly stop: (id: string) => Promise<void>,
    private readonly maxQueued = DEFAULT_MAX_QUEUED,
  ) {}

  /** @internal An event for this subscription arrived. */
  push(event: E): void {
    if (this.end !== undefined) return
    const w = this.waiter
    if (w !== undefined) {
      this.waiter = this.failWaiter = undefined
      w({ value: event, done: false })
    } else {
      if (this.queue.length - this.head >= this.maxQueued) {
        this.head++
        this.dropped++
      }
      this.queue.push(event)
    }
    if (event.type === 'SERVER_SHUTDOWN') this.finish(null)
  }

  /** @internal The subscription ended: normally (`null`) or with the lost connection's error. */
  finish(error: ConnectionError | null): void {
    if (this.end !== undefined) return
    this.end = error
    const w = this.waiter
    const f = this.failWaiter
    this.waiter = this.failWaiter = undefined
    if (error !== null && f !== undefined) f(error)
    else w?.({ value: undefined, done: true })
  }

  /** Whether it still receives events. */
  get active(): boolean {
    return this.end === undefined
  }

  /** Ends it here and on the daemon (a lost connection ends it anyway). */
  async unsubscribe(): Promise<void> {
    if (this.end !== undefined) return
    this.finish(null)
    await this.stop(this.id).catch(() => undefined)
  }

  /** The next event, waiting for one; `undefined` once it ended normally. */
  private next(): Promise<IteratorResult<E>> {
    if (this.dropped > 0) {
      const lagged = { type: 'LAGGED', time: new Date().toISOString(), dropped: this.dropped }
      this.dropped = 0
      return Promise.resolve({ value: lagged as unknown as E, done: false })
    }
    if (this.head < this.queue.length) {
      const value = this.queue[this.head++]! as E
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head)
        this.head = 0
      }
      return Promise.resolve({ value, done: false })
    }
    if (this.end === null) return Promise.resolve({ value: undefined, done: true })
    if (this.end !== undefined) return Promise.reject(this.end)
    return new Promise((resolve, reject) => {
      this.waiter = resolve
      this.failWaiter = reject
    })
  }

  [Symbol.asyncIterator](): AsyncIterator<E> {
    return {
      next: () => this.next(),
      return: async () => {
        await this.unsubscribe()
        return { value: undefined, done: true }
      },
    }
  }
}
