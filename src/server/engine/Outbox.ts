import type { EngineEvent, EventType } from '../../protocol/index.js'
import { toJson } from './json.js'

/**
 * What a subscription lets through: events of this session, node, run,
 * network and of these types (each given criterion must hold).
 * `SERVER_SHUTDOWN` passes every filter.
 */
export interface EventFilter {
  readonly sessionId?: string
  readonly nodeId?: string
  readonly runId?: string
  readonly networkId?: string
  readonly types?: readonly EventType[]
}

/** Whether `event` passes `filter`. */
export const passes = (filter: EventFilter, event: EngineEvent): boolean => {
  if (event.type === 'SERVER_SHUTDOWN') return true
  const e = event as { sessionId?: string; nodeId?: string; runId?: string; networkId?: string }
  if (filter.sessionId !== undefined && e.sessionId !== filter.sessionId) return false
  if (filter.nodeId !== undefined && e.nodeId !== filter.nodeId) return false
  if (filter.runId !== undefined && e.runId !== filter.runId) return false
  if (filter.networkId !== undefined && e.networkId !== filter.networkId) return false
  if (filter.types !== undefined && !filter.types.includes(event.type)) return false
  return true
}

interface Subscription {
  readonly id: string
  readonly filter: EventFilter
  /** The JSON of events waiting while the connection is congested, oldest first. */
  readonly held: string[]
  /** The characters of `held`. */
  heldBytes: number
  /** The characters of the newest held event larger than the byte bound on its own (0: none); it does not count toward the bound. */
  oversize: number
  /** How many held events, from the oldest, up to and including that one. */
  oversizeAt: number
  /** Events dropped from `held` since the last `LAGGED`. */
  dropped: number
}

/** The fallback JSON of an event whose payload cannot be written (a cycle in an output). */
const unwritable = (event: EngineEvent): string =>
  JSON.stringify({
    type: 'ERROR',
    time: event.time,
    error: { tag: 'Unserialisable', message: `a ${event.type} event could not be written as JSON` },
  })

/**
 * The outgoing side of one connection: responses go out at once; events go
 * to its subscriptions and out while the transport keeps up. Once `send`
 * answers false (congested), events wait in a buffer per subscription
 * bounded by count and by size (characters of JSON; the newest event is
 * always kept), the oldest dropped on overflow, until `drained`: then each
 * subscription first gets one `LAGGED { dropped }` if it lost any, then what
 * it held, in order.
 */
export class Outbox {
  readonly #send: (line: string) => boolean
  readonly #capacity: number
  readonly #maxBytes: number
  readonly #now: () => string
  readonly #subs = new Map<string, Subscription>()
  #congested = false
  #closed = false
  #next = 1

  constructor(
    send: (line: string) => boolean,
    capacity: number,
    now: () => string,
    maxBytes = Number.POSITIVE_INFINITY,
  ) {
    this.#send = send
    this.#capacity = capacity
    this.#maxBytes = maxBytes
    this.#now = now
  }

  get size(): number {
    return this.#subs.size
  }

  /** Sends a response or another line that is never held back (nothing after `close`); whether the transport keeps up. */
  line(line: string): boolean {
    if (this.#closed) return false
    let ok: boolean
    try {
      ok = this.#send(line)
    } catch {
      ok = false // a transport that throws is treated as congested; the host closes it
    }
    if (!ok) this.#congested = true
    return ok
  }

  subscribe(filter: EventFilter): string {
    const id = `s${this.#next++}`
    this.#subs.set(id, {
      id,
      filter,
      held: [],
      heldBytes: 0,
      oversize: 0,
      oversizeAt: 0,
      dropped: 0,
    })
    return id
  }

  unsubscribe(id: string): boolean {
    return this.#subs.delete(id)
  }

  /** Offers an event to every subscription; `json` is the event's JSON when the caller has it. */
  publish(event: EngineEvent, json?: string): string | undefined {
    let text = json
    for (const sub of this.#subs.values()) {
      if (!passes(sub.filter, event)) continue
      text ??= toJson(event) ?? unwritable(event)
      if (this.#congested || sub.held.length > 0 || sub.dropped > 0) this.#hold(sub, text)
      else this.#emit(sub, text)
    }
    return text
  }

  /** The transport can take more: flush what is held until it is congested again. */
  drained(): void {
    if (this.#closed) return
    this.#congested = false
    for (const sub of this.#subs.values()) {
      if (sub.dropped > 0) {
        const dropped = sub.dropped
        sub.dropped = 0
        if (!this.#emit(sub, JSON.stringify({ type: 'LAGGED', time: this.#now(), dropped }))) return
      }
      while (sub.held.length > 0) if (!this.#emit(sub, this.#shift(sub))) return
    }
  }

  close(): void {
    this.#closed = true
    this.#subs.clear()
  }

  /**
   * Holds `text`, dropping the oldest held events while more than the
   * capacity or the byte bound is held. The newest event is always kept,
   * and an event larger than the whole bound is kept beside the others, not
   * in their place (its size does not count toward the bound): a command's
   * answer of megabytes does not push out the last of its output before it.
   * It goes like any other, once it is the oldest and newer events fill the
   * bound (or a newer event that large comes).
   */
  #hold(sub: Subscription, text: string): void {
    sub.held.push(text)
    sub.heldBytes += text.length
    if (text.length > this.#maxBytes) {
      sub.oversize = text.length
      sub.oversizeAt = sub.held.length
    }
    while (
      sub.held.length > 1 &&
      (sub.held.length > this.#capacity || sub.heldBytes - sub.oversize > this.#maxBytes)
    ) {
      this.#shift(sub)
      sub.dropped++
    }
  }

  /** Takes the oldest held event of `sub`. */
  #shift(sub: Subscription): string {
    const text = sub.held.shift()!
    sub.heldBytes -= text.length
    if (sub.oversizeAt > 0 && --sub.oversizeAt === 0) sub.oversize = 0
    return text
  }

  /** Sends one event of `sub`; whether the transport keeps up. */
  #emit(sub: Subscription, event: string): boolean {
    return this.line(
      `{"jsonrpc":"2.0","method":"EVENT","params":{"subscription":${JSON.stringify(sub.id)},"event":${event}}}`,
    )
  }
}
