import { UsageError } from '../errors.js'

/**
 * What happened to a node of a session: registered (`created`), a lifecycle
 * step (`starting`, `ready`, `busy`, `stopped`), its program started again
 * in place of one that exited (`respawned`, the state unchanged), made by a fork (`forked`,
 * with `from`, the name of the node it was forked from) or unregistered
 * (`removed`).
 *
 * @category session
 */
export type SessionEventType =
  'created' | 'starting' | 'ready' | 'busy' | 'respawned' | 'stopped' | 'forked' | 'removed'

/**
 * One lifecycle event of a session's node, frozen. `session` is the
 * session's id, `name` the node's name in the session (for a persistent
 * node inside a registered graph that is not registered itself, its id),
 * `time` an ISO 8601 timestamp by the session's clock.
 *
 * @category session
 */
export interface SessionNodeEvent {
  readonly type: SessionEventType
  readonly session: string
  readonly name: string
  readonly nodeId: string
  readonly kind: string
  readonly time: string
  /** For `forked`: the name of the node it was forked from. */
  readonly from?: string
}

/**
 * What a reader of `Session.events()` gets in place of the events it was
 * too slow to read: its buffer holds a bounded number of events, and when
 * it is full the oldest are dropped. `dropped` counts them; `time` is when
 * the reader was told.
 *
 * @category session
 */
export interface SessionLagEvent {
  readonly type: 'lagged'
  readonly session: string
  readonly dropped: number
  readonly time: string
}

/**
 * What `Session.events()` yields: a node's lifecycle event, or the notice
 * that the reader lagged behind and missed some.
 *
 * @category session
 */
export type SessionEvent = SessionNodeEvent | SessionLagEvent

/**
 * How many events a reader of `Session.events()` may leave unread before
 * the oldest are dropped (and it is told so with a {@link SessionLagEvent}).
 *
 * @category session
 */
export const DEFAULT_EVENT_BUFFER = 1024

/**
 * The publisher behind `Session.events()`: each subscriber gets every event
 * published after it subscribed, buffered until it reads them, at most
 * `capacity` of them: past that the oldest are dropped and the reader's
 * next read is a {@link SessionLagEvent} counting them. `close` ends every
 * iteration once its buffer is drained.
 *
 * @internal
 */
export class EventHub {
  readonly #subscribers = new Set<Subscriber>()
  #closed = false

  /** `lagged` builds the notice of `dropped` missed events (stamped when it is read). */
  constructor(private readonly lagged: (dropped: number) => SessionLagEvent) {}

  get closed(): boolean {
    return this.#closed
  }

  /** Whether anyone listens (events need not be built when no one does). */
  get listening(): boolean {
    return this.#subscribers.size > 0
  }

  publish(event: SessionNodeEvent): void {
    for (const s of this.#subscribers) s.push(event)
  }

  close(): void {
    this.#closed = true
    for (const s of this.#subscribers) s.end()
    this.#subscribers.clear()
  }

  subscribe(capacity = DEFAULT_EVENT_BUFFER): AsyncIterableIterator<SessionEvent> {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new UsageError('Session.events', `buffer must be a positive integer, got ${capacity}`)
    }
    const subscriber = new Subscriber(capacity, this.lagged, () =>
      this.#subscribers.delete(subscriber),
    )
    if (this.#closed) subscriber.end()
    else this.#subscribers.add(subscriber)
    return subscriber
  }
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined })

class Subscriber implements AsyncIterableIterator<SessionEvent> {
  /** A ring of at most `capacity` unread events: `#count` of them from `#head`. */
  readonly #ring: (SessionNodeEvent | undefined)[]
  #head = 0
  #count = 0
  /** Events dropped since the reader last read. */
  #dropped = 0
  #waiting: ((r: IteratorResult<SessionEvent, undefined>) => void) | undefined
  #ended = false

  constructor(
    capacity: number,
    private readonly lagged: (dropped: number) => SessionLagEvent,
    private readonly leave: () => void,
  ) {
    this.#ring = new Array<SessionNodeEvent | undefined>(capacity)
  }

  push(event: SessionNodeEvent): void {
    const waiting = this.#waiting
    if (waiting !== undefined) {
      this.#waiting = undefined
      waiting({ done: false, value: event })
      return
    }
    const capacity = this.#ring.length
    if (this.#count === capacity) {
      this.#ring[this.#head] = undefined
      this.#head = (this.#head + 1) % capacity
      this.#count--
      this.#dropped++
    }
    this.#ring[(this.#head + this.#count) % capacity] = event
    this.#count++
  }

  end(): void {
    this.#ended = true
    const waiting = this.#waiting
    this.#waiting = undefined
    waiting?.(DONE)
  }

  #take(): SessionEvent | undefined {
    if (this.#dropped > 0) {
      const notice = this.lagged(this.#dropped)
      this.#dropped = 0
      return notice
    }
    if (this.#count === 0) return undefined
    const event = this.#ring[this.#head]!
    this.#ring[this.#head] = undefined
    this.#head = (this.#head + 1) % this.#ring.length
    this.#count--
    return event
  }

  next(): Promise<IteratorResult<SessionEvent, undefined>> {
    const event = this.#take()
    if (event !== undefined) return Promise.resolve({ done: false, value: event })
    if (this.#ended) return Promise.resolve(DONE)
    return new Promise((resolve) => {
      this.#waiting = resolve
    })
  }

  return(): Promise<IteratorResult<SessionEvent, undefined>> {
    this.#ring.fill(undefined)
    this.#count = 0
    this.#dropped = 0
    this.leave()
    this.end()
    return Promise.resolve(DONE)
  }

  [Symbol.asyncIterator](): this {
    return this
  }
}
