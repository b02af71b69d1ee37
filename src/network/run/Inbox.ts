import { UsageError } from '../../errors.js'
import type { Clock } from '../../runtime/index.js'
import type { Envelope } from '../model/Envelope.js'
import type { Delivery } from '../model/Network.js'

/**
 * The envelopes waiting on one way of one edge, delivered by the edge's
 * {@link Delivery}: `queue` hands out every envelope in order; `latest`
 * keeps only the newest not yet taken (`dropped` counts the others);
 * `debounce(ms)` holds the newest until `ms` have passed without a new one
 * (by the clock), then hands it out (`dropped` counts the ones it replaced).
 * `onReady` is called when an envelope becomes available to take.
 *
 * @category delivery
 * @example
 * import { Inbox } from 'nerve-agents/network'
 * import { systemClock } from 'nerve-agents/runtime'
 * import assert from 'assert'
 *
 * const inbox = new Inbox({ type: 'latest' }, systemClock, () => undefined)
 * const e = (id: string) => ({ id, kind: 'status' as const, fromNodeId: 'a', toNodeId: 'b', payload: { message: id }, time: 0 })
 * inbox.push(e('1'))
 * inbox.push(e('2'))
 * assert.strictEqual(inbox.take()?.id, '2')
 * assert.strictEqual(inbox.dropped, 1)
 * assert.strictEqual(inbox.take(), undefined)
 */
export class Inbox {
  #delivery: Delivery
  readonly #clock: Clock
  readonly #onReady: () => void
  /** Envelopes ready to take (queue: all; latest: at most one). */
  readonly #ready: Envelope[] = []
  #head = 0
  /** A debounce's held envelope and its timer. */
  #held: Envelope | undefined
  #timer: AbortController | undefined
  #dropped = 0
  #delivered = 0
  #closed = false

  constructor(delivery: Delivery, clock: Clock, onReady: () => void) {
    this.#delivery = delivery
    this.#clock = clock
    this.#onReady = onReady
  }

  get delivery(): Delivery {
    return this.#delivery
  }

  /** How many envelopes were replaced by newer ones without being taken. */
  get dropped(): number {
    return this.#dropped
  }

  /** How many envelopes were taken. */
  get delivered(): number {
    return this.#delivered
  }

  /** How many envelopes can be taken now. */
  get size(): number {
    return this.#ready.length - this.#head
  }

  /** Whether a debounce holds an envelope for later. */
  get holding(): boolean {
    return this.#held !== undefined
  }

  /** Adds an envelope; a closed inbox is a `UsageError`. */
  push(envelope: Envelope): void {
    if (this.#closed) throw new UsageError('Inbox.push', 'the inbox is closed')
    const d = this.#delivery
    if (d.type === 'queue') {
      this.#ready.push(envelope)
      this.#onReady()
    } else if (d.type === 'latest') {
      if (this.size > 0) {
        this.#dropped += this.size
        this.#ready.length = 0
        this.#head = 0
      }
      this.#ready.push(envelope)
      this.#onReady()
    } else {
      if (this.#held !== undefined) this.#dropped++
      this.#held = envelope
      this.#arm(d.ms)
    }
  }

  /** The next envelope, or `undefined`. */
  take(): Envelope | undefined {
    if (this.#head >= this.#ready.length) return undefined
    const e = this.#ready[this.#head++]!
    if (this.#head > 1024 && this.#head * 2 > this.#ready.length) {
      this.#ready.splice(0, this.#head)
      this.#head = 0
    }
    this.#delivered++
    return e
  }

  /** Every envelope waiting, ready or held, oldest first. */
  waiting(): readonly Envelope[] {
    const ready = this.#ready.slice(this.#head)
    return this.#held === undefined ? ready : [...ready, this.#held]
  }

  /** The next envelope without taking it. */
  peek(): Envelope | undefined {
    return this.#ready[this.#head]
  }

  /**
   * Changes the delivery (a live edit): what waits is kept — a queue
   * becoming `latest` keeps its newest, a debounce's held envelope is
   * released at once.
   */
  setDelivery(delivery: Delivery): void {
    this.#delivery = delivery
    this.#release()
    if (delivery.type === 'latest' && this.size > 1) {
      const newest = this.#ready[this.#ready.length - 1]!
      this.#dropped += this.size - 1
      this.#ready.length = 0
      this.#head = 0
      this.#ready.push(newest)
    }
  }

  /** Stops the debounce timer; what is ready stays takeable, nothing new is accepted. */
  close(): void {
    this.#closed = true
    this.#timer?.abort()
    this.#timer = undefined
  }

  #arm(ms: number): void {
    this.#timer?.abort()
    const timer = new AbortController()
    this.#timer = timer
    this.#clock.sleep(ms, timer.signal).then(
      () => {
        if (this.#timer === timer) this.#release()
      },
      () => undefined,
    )
  }

  #release(): void {
    this.#timer?.abort()
    this.#timer = undefined
    const held = this.#held
    if (held === undefined) return
    this.#held = undefined
    if (this.#delivery.type === 'latest' && this.size > 0) {
      this.#dropped += this.size
      this.#ready.length = 0
      this.#head = 0
    }
    this.#ready.push(held)
    this.#onReady()
  }
}
