/**
 * The daemon's live connections over every transport: a bound on how many
 * it takes, and a way to end them all when it shuts down.
 */

/**
 * 256: the default bound on live connections, over all transports together.
 *
 * @category server
 */
export const DEFAULT_MAX_CONNECTIONS = 256

/**
 * A bounded set of live connections, each known by the function that ends it.
 *
 * @category server
 * @example
 * import { ConnectionSet } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * const set = new ConnectionSet(1)
 * const release = set.admit(() => {})
 * assert.ok(release !== undefined)
 * assert.strictEqual(set.admit(() => {}), undefined)
 * release()
 * assert.strictEqual(set.size, 0)
 */
export class ConnectionSet {
  private readonly live = new Set<() => void>()
  private closing = false

  constructor(readonly max: number = DEFAULT_MAX_CONNECTIONS) {}

  /** How many connections are live. */
  get size(): number {
    return this.live.size
  }

  /**
   * Admits a connection ended by `end`; returns the function to call when it
   * closes, or `undefined` when the set is full or shutting down.
   */
  admit(end: () => void): (() => void) | undefined {
    if (this.closing || this.live.size >= this.max) return undefined
    const entry = (): void => {
      end()
    }
    this.live.add(entry)
    return () => {
      this.live.delete(entry)
    }
  }

  /** Refuses new connections and ends every live one. */
  endAll(): void {
    this.closing = true
    for (const end of [...this.live]) end()
  }
}
