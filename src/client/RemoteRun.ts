/**
 * `RemoteRun`: a graph run on the daemon. `events()` are its own events
 * (the client subscribed before starting it, so none is missed);
 * `result()` waits for its end and answers the run's `GET_RUN` record;
 * `cancel()` is `CANCEL_GRAPH`.
 */
import type { EngineEvent, Results, RunInfo } from '../protocol/index.js'
import type { CallOptions, Calls } from './Calls.js'
import type { Subscription } from './Subscription.js'

const ofRun = (runId: string, e: EngineEvent): boolean =>
  e.type === 'SERVER_SHUTDOWN' || e.type === 'LAGGED' || ('runId' in e && e.runId === runId)

const endsRun = (runId: string, e: EngineEvent): boolean =>
  e.type === 'SERVER_SHUTDOWN' ||
  (e.type === 'GRAPH_COMPLETED' && e.runId === runId && e.path.length === 0)

/**
 * A graph run on the daemon.
 *
 * @category client
 */
export class RemoteRun {
  private readonly seen: EngineEvent[] = []
  private ended = false
  private readonly waiters: (() => void)[] = []
  private pumping: Promise<void> | undefined

  constructor(
    private readonly client: Calls,
    /** The run's id. */
    readonly runId: string,
    private readonly subscription: Subscription | undefined,
  ) {
    if (subscription !== undefined) this.pumping = this.pump(subscription)
  }

  /** Reads the subscription into `seen` until the run ends, waking readers. */
  private async pump(sub: Subscription): Promise<void> {
    try {
      for await (const e of sub) {
        if (!ofRun(this.runId, e)) continue
        this.seen.push(e)
        this.wake()
        if (endsRun(this.runId, e)) break
      }
    } catch {
      // A lost connection: result() reports it through GET_RUN.
    } finally {
      this.ended = true
      this.wake()
      await sub.unsubscribe()
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w()
  }

  /**
   * The run's events, from its start to its `GRAPH_COMPLETED` (nested graphs'
   * events included). Each call iterates from the first event.
   */
  async *events(): AsyncGenerator<EngineEvent> {
    let i = 0
    for (;;) {
      while (i < this.seen.length) yield this.seen[i++]!
      if (this.ended || this.subscription === undefined) return
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /**
   * Waits for the run to end and answers its record (state, results, trace).
   * A failed or cancelled run resolves too: look at `state` and `error`.
   */
  async result(options?: CallOptions): Promise<RunInfo> {
    if (this.pumping !== undefined) await this.pumping
    const info = await this.client.call('GET_RUN', { runId: this.runId }, options)
    if (info.state !== 'running' || this.subscription !== undefined) return info
    // Without a subscription (a handle by id, or a POST client): follow the run's end now.
    if (!this.client.carriesEvents) return this.poll(options)
    const sub = await this.client.subscribe({ runId: this.runId, types: ['GRAPH_COMPLETED'] })
    try {
      const again = await this.client.call('GET_RUN', { runId: this.runId }, options)
      if (again.state !== 'running') return again
      for await (const e of sub) if (endsRun(this.runId, e)) break
      return await this.client.call('GET_RUN', { runId: this.runId }, options)
    } finally {
      await sub.unsubscribe()
    }
  }

  /** For a client without events (`POST /rpc`): asks again, less and less often, until the run ends. */
  private async poll(options?: CallOptions): Promise<RunInfo> {
    for (let wait = 10; ; wait = Math.min(wait * 2, 500)) {
      const info = await this.client.call('GET_RUN', { runId: this.runId }, options)
      if (info.state !== 'running') return info
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }

  /** `CANCEL_GRAPH`: whether the run was still running. */
  async cancel(options?: CallOptions): Promise<boolean> {
    const r: Results['CANCEL_GRAPH'] = await this.client.call(
      'CANCEL_GRAPH',
      { runId: this.runId },
      options,
    )
    return r.cancelled
  }
}
