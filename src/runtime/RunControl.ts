/**
 * Run control: the active runs and the requests for approval of graph
 * runs, single node executes and networks alike, decided by a policy, a
 * person or a timeout.
 */
import { UsageError } from '../errors.js'
import type { ApprovalVerdict, Risk } from '../node/index.js'
import { systemClock, type Clock } from './Clock.js'

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
 * An approval request: who asks (the node, and the run — a graph run, a
 * network — or the session of a single node's execute), for what (`action`:
 * the tool; `target`: what it touches, as one string; the command, file or
 * arguments when known), how risky, and why it needs approval.
 *
 * @category run control
 */
export interface ApprovalRequest {
  readonly id: string
  readonly nodeId: string
  readonly action: string
  readonly target: string
  readonly reason: string
  /** The clock reading when it was asked. */
  readonly time: number
  /** The graph run or network run that asks (a network's id); none for a node's own execute. */
  readonly runId?: string
  /** The session of the node that asks. */
  readonly sessionId?: string
  readonly command?: string
  readonly file?: string
  /** The tool call's arguments (an LLM tool call). */
  readonly arguments?: Readonly<Record<string, unknown>>
  /** How much harm the action can do, when the asker rates it (a tool's `risk`). */
  readonly risk?: Risk
  /** The answers a CLI agent's prompt offers, as it shows them. */
  readonly options?: readonly string[]
}

/**
 * What a request is asked with (see {@link RunControl.ask}).
 *
 * @category run control
 */
export interface AskOptions {
  /** How long a person has to decide. */
  readonly timeoutMs: number
  /** Aborting it cancels the request. */
  readonly signal?: AbortSignal
  /** Decides before anyone is asked; `'ask'` leaves it to a person. */
  readonly policy?: (request: ApprovalRequest) => ApprovalVerdict
  /** What a timeout decides: `'deny'` (decision `timeout`, the default) or `'approve'`. */
  readonly onTimeout?: 'approve' | 'deny'
}

/**
 * How an approval request ended, as recorded.
 *
 * @category run control
 */
export interface ApprovalDecision {
  readonly request: ApprovalRequest
  readonly decision: 'approved' | 'denied' | 'timeout' | 'cancelled'
  /** Who decided: a user name, a node id, `policy`, `timeout`. */
  readonly by: string
  readonly note?: string
  /** The arguments the tool runs with instead, when the approver edited them. */
  readonly arguments?: Readonly<Record<string, unknown>>
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
 * import { RunControl } from 'nerve-agents/runtime'
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
    return this.ask(ask, { timeoutMs, ...(signal !== undefined && { signal }) }).decided
  }

  /**
   * Asks for approval: the request (told to `onRequest`, listed as pending)
   * and its decision (never rejects). A `policy` verdict other than `'ask'`
   * decides it at once (by `policy`); otherwise it waits for
   * {@link RunControl.approve} or {@link RunControl.deny}, for `timeoutMs`
   * by the clock (then `onTimeout` decides), or until `signal` aborts or
   * the run is removed (`cancelled`).
   */
  ask(
    ask: Omit<ApprovalRequest, 'id' | 'time'>,
    options: AskOptions,
  ): { readonly request: ApprovalRequest; readonly decided: Promise<ApprovalDecision> } {
    const { timeoutMs, signal, policy, onTimeout } = options
    if (!(timeoutMs > 0)) {
      throw new UsageError('RunControl.ask', `timeoutMs must be > 0, got ${timeoutMs}`)
    }
    const request: ApprovalRequest = Object.freeze({
      ...ask,
      id: `approval-${++this.#seq}`,
      time: this.#clock.now(),
    })
    const decided = new Promise<ApprovalDecision>((resolve) => {
      const timer = new AbortController()
      const pending: Pending = { request, resolve, timer }
      this.#pending.set(request.id, pending)
      this.#onRequest?.(request)
      const verdict = policy?.(request) ?? 'ask'
      if (verdict !== 'ask') {
        this.#decide(pending, verdict === 'approve' ? 'approved' : 'denied', 'policy')
        return
      }
      this.#clock.sleep(timeoutMs, timer.signal).then(
        () => {
          this.#decide(pending, onTimeout === 'approve' ? 'approved' : 'timeout', 'timeout')
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
    })
    return { request, decided }
  }

  /** The requests waiting for a decision. */
  pending(): readonly ApprovalRequest[] {
    return [...this.#pending.values()].map((p) => p.request)
  }

  /** Approves a pending request; `args` replaces the tool call's arguments where the asker allows it. */
  approve(id: string, by = 'user', note?: string, args?: Readonly<Record<string, unknown>>): void {
    this.#decide(this.#requirePending('approve', id), 'approved', by, note, args)
  }

  /** Cancels a pending request the asker no longer waits for (nothing when it is decided already). */
  withdraw(id: string): void {
    const p = this.#pending.get(id)
    if (p !== undefined) this.#decide(p, 'cancelled', 'withdrawn')
  }

  /** Whether a request is pending. */
  isPending(id: string): boolean {
    return this.#pending.has(id)
  }

  deny(id: string, by = 'user', note?: string): void {
    this.#decide(this.#requirePending('deny', id), 'denied', by, note)
  }

  /** Every decision so far, in order. */
  decisions(): readonly ApprovalDecision[] {
    return [...this.#decisions]
  }

  #decide(
    p: Pending,
    decision: ApprovalDecision['decision'],
    by: string,
    note?: string,
    args?: Readonly<Record<string, unknown>>,
  ): void {
    if (this.#pending.get(p.request.id) !== p) return
    this.#pending.delete(p.request.id)
    p.timer.abort()
    const d: ApprovalDecision = Object.freeze({
      request: p.request,
      decision,
      by,
      ...(note !== undefined && { note }),
      ...(args !== undefined && { arguments: args }),
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
