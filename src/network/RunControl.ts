import { UsageError } from '../errors.js'
import { systemClock, type Clock } from '../runtime/index.js'

/**
 * What a controlled run offers the {@link RunControl}.
 *
 * @category run control
 */
export interface ControlledRun {
  readonly runId: string
  /** What the run is (a network id). */
  readonly label: string
  readonly status: string
  cancel(reason?: unknown): void
  pause(): void
  resume(): void
}

/**
 * An approval request: who asks (`runId`, `nodeId`), for what (`action`,
 * `target`), and why it needs approval.
 *
 * @category run control
 */
export interface ApprovalRequest {
  readonly id: string
  readonly runId: string
  readonly nodeId: string
  readonly action: string
  readonly target: string
  readonly reason: string
  /** The clock reading when it was asked. */
  readonly time: number
}

/**
 * How an approval request ended, as recorded.
 *
 * @category run control
 */
export interface ApprovalDecision {
  readonly request: ApprovalRequest
  readonly decision: 'approved' | 'denied' | 'timeout' | 'cancelled'
  /** Who decided: a user name, a node id, `timeout`. */
  readonly by: string
  readonly note?: string
  readonly time: number
}

interface Pending {
  readonly request: ApprovalRequest
  readonly resolve: (d: ApprovalDecision) => void
  readonly timer: AbortController
}

/**
 * Run control as one service: the active runs (cancel, pause, resume) and
 * approvals — a request waits for {@link RunControl.approve} or
 * {@link RunControl.deny}, or times out by the clock; every decision is
 * recorded ({@link RunControl.decisions}) and told to `onDecision`.
 *
 * @category run control
 * @example
 * import { RunControl } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const control = new RunControl()
 * const asked = control.request({ runId: 'r1', nodeId: 'coder', action: 'bash', target: 'rm -rf build', reason: 'deletes files' }, 60_000)
 * const [pending] = control.pending()
 * control.approve(pending!.id, 'ana')
 * assert.strictEqual((await asked).decision, 'approved')
 * assert.strictEqual(control.decisions()[0]!.by, 'ana')
 */
export class RunControl {
  readonly #runs = new Map<string, ControlledRun>()
  readonly #pending = new Map<string, Pending>()
  readonly #decisions: ApprovalDecision[] = []
  readonly #clock: Clock
  readonly #onRequest: ((r: ApprovalRequest) => void) | undefined
  readonly #onDecision: ((d: ApprovalDecision) => void) | undefined
  #seq = 0

  constructor(
    options: {
      readonly clock?: Clock
      readonly onRequest?: (request: ApprovalRequest) => void
      readonly onDecision?: (decision: ApprovalDecision) => void
    } = {},
  ) {
    this.#clock = options.clock ?? systemClock
    this.#onRequest = options.onRequest
    this.#onDecision = options.onDecision
  }

  /** Adds a run; it is listed until {@link RunControl.remove}. */
  add(run: ControlledRun): void {
    if (this.#runs.has(run.runId)) {
      throw new UsageError('RunControl.add', `a run "${run.runId}" is active already`)
    }
    this.#runs.set(run.runId, run)
  }

  /** Removes a finished run; its pending approvals are cancelled. */
  remove(runId: string): void {
    this.#runs.delete(runId)
    for (const p of [...this.#pending.values()]) {
      if (p.request.runId === runId) this.#decide(p, 'cancelled', 'run-control')
    }
  }

  /** The active runs. */
  active(): readonly { readonly runId: string; readonly label: string; readonly status: string }[] {
    return [...this.#runs.values()].map((r) => ({
      runId: r.runId,
      label: r.label,
      status: r.status,
    }))
  }

  cancel(runId: string, reason?: unknown): void {
    this.#require('cancel', runId).cancel(reason)
  }

  pause(runId: string): void {
    this.#require('pause', runId).pause()
  }

  resume(runId: string): void {
    this.#require('resume', runId).resume()
  }

  /**
   * Asks for approval; resolves with the decision (never rejects): `timeout`
   * after `timeoutMs` by the clock, `cancelled` when the run is removed or
   * `signal` aborts.
   */
  request(
    ask: Omit<ApprovalRequest, 'id' | 'time'>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ApprovalDecision> {
    if (!(timeoutMs > 0)) {
      throw new UsageError('RunControl.request', `timeoutMs must be > 0, got ${timeoutMs}`)
    }
    const request: ApprovalRequest = Object.freeze({
      ...ask,
      id: `approval-${++this.#seq}`,
      time: this.#clock.now(),
    })
    return new Promise((resolve) => {
      const timer = new AbortController()
      const pending: Pending = { request, resolve, timer }
      this.#pending.set(request.id, pending)
      this.#clock.sleep(timeoutMs, timer.signal).then(
        () => {
          this.#decide(pending, 'timeout', 'timeout')
        },
        () => undefined,
      )
      if (signal !== undefined) {
        if (signal.aborted) this.#decide(pending, 'cancelled', 'run-control')
        else
          signal.addEventListener(
            'abort',
            () => {
              this.#decide(pending, 'cancelled', 'run-control')
            },
            { once: true },
          )
      }
      this.#onRequest?.(request)
    })
  }

  /** The requests waiting for a decision. */
  pending(): readonly ApprovalRequest[] {
    return [...this.#pending.values()].map((p) => p.request)
  }

  approve(id: string, by = 'user', note?: string): void {
    this.#decide(this.#requirePending('approve', id), 'approved', by, note)
  }

  deny(id: string, by = 'user', note?: string): void {
    this.#decide(this.#requirePending('deny', id), 'denied', by, note)
  }

  /** Every decision so far, in order. */
  decisions(): readonly ApprovalDecision[] {
    return [...this.#decisions]
  }

  #decide(p: Pending, decision: ApprovalDecision['decision'], by: string, note?: string): void {
    if (this.#pending.get(p.request.id) !== p) return
    this.#pending.delete(p.request.id)
    p.timer.abort()
    const d: ApprovalDecision = Object.freeze({
      request: p.request,
      decision,
      by,
      ...(note !== undefined && { note }),
      time: this.#clock.now(),
    })
    this.#decisions.push(d)
    try {
      this.#onDecision?.(d)
    } finally {
      p.resolve(d)
    }
  }

  #require(api: string, runId: string): ControlledRun {
    const run = this.#runs.get(runId)
    if (run === undefined) throw new UsageError(`RunControl.${api}`, `no active run "${runId}"`)
    return run
  }

  #requirePending(api: string, id: string): Pending {
    const p = this.#pending.get(id)
    if (p === undefined) {
      throw new UsageError(`RunControl.${api}`, `no pending approval "${id}"`)
    }
    return p
  }
}
