/**
 * What happened to a node of a session: registered (`created`), a lifecycle
 * step (`starting`, `ready`, `busy`, `stopped`), made by a fork (`forked`,
 * with `from`, the name of the node it was forked from) or unregistered
 * (`removed`).
 *
 * @category session
 */
export type SessionEventType =
  'created' | 'starting' | 'ready' | 'busy' | 'stopped' | 'forked' | 'removed'

/**
 * One lifecycle event of a session, frozen. `session` is the session's id,
 * `name` the node's name in the session (for a persistent node inside a
 * registered graph that is not registered itself, its id), `time` an ISO 8601
 * timestamp by the session's clock.
 *
 * @category session
 */
export interface SessionEvent {
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
 * The publisher behind `Session.events()`: each subscriber gets every event
 * published after it subscribed, buffered until it reads them; `close` ends
 * every iteration once its buffer is drained.
 *
 * @internal
 */
export class EventHub {
  readonly #subscribers = new Set<Subscriber>()
  #closed = false

  get closed(): boolean {
    return this.#closed
  }

  /** Whether anyone listens (events need not be built when no one does). */
  get listening(): boolean {
    return this.#subscribers.size > 0
  }

  publish(event: SessionEvent): void {
    for (const s of this.#subscribers) s.push(event)
  }

  close(): void {
    this.#closed = true
    for (const s of this.#subscribers) s.end()
    this.#subscribers.clear()
  }

  subscribe(): AsyncIterableIterator<SessionEvent> {
    const subscriber = new Subscriber(() => this.#subscribers.delete(subscriber))
    if (this.#closed) subscriber.end()
    else this.#subscribers.add(subscriber)
    return subscriber
  }
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined })

class Subscriber implements AsyncIterableIterator<SessionEvent> {
  readonly #buffer: SessionEvent[] = []
  #waiting: ((r: IteratorResult<SessionEvent, undefined>) => void) | undefined
  #ended = false

  constructor(private readonly leave: () => void) {}

  push(event: SessionEvent): void {
    const waiting = this.#waiting
    if (waiting !== undefined) {
      this.#waiting = undefined
      waiting({ done: false, value: event })
    } else this.#buffer.push(event)
  }

  end(): void {
    this.#ended = true
    const waiting = this.#waiting
    this.#waiting = undefined
    waiting?.(DONE)
  }

  next(): Promise<IteratorResult<SessionEvent, undefined>> {
    const event = this.#buffer.shift()
    if (event !== undefined) return Promise.resolve({ done: false, value: event })
    if (this.#ended) return Promise.resolve(DONE)
    return new Promise((resolve) => {
      this.#waiting = resolve
    })
  }

  return(): Promise<IteratorResult<SessionEvent, undefined>> {
    this.#buffer.length = 0
    this.leave()
    this.end()
    return Promise.resolve(DONE)
  }

  [Symbol.asyncIterator](): this {
    return this
  }
}
