/**
 * How a network run ended, read off its state: the status, the nodes that
 * reached Done, the halts, the envelope log, usage per node and per
 * sub-network, what delivery dropped, and what was never processed.
 */
import type { RunUsage } from '../../runtime/index.js'
import type { Envelope } from '../model/Envelope.js'
import type { EnvelopeLog } from '../model/EnvelopeLog.js'
import type { NetworkHalt } from './NetworkError.js'
import { subnetworkUsage } from './budgets.js'
import type { RunState } from './runState.js'

/**
 * How a run ended: `done` (a node reached Done and nothing halted),
 * `halted` (a loop was stopped by a safety limit), `idle` (nothing left to
 * do), `cancelled`.
 *
 * @category network run
 */
export interface NetworkOutcome {
  readonly status: 'done' | 'halted' | 'idle' | 'cancelled'
  readonly done: readonly string[]
  readonly halts: readonly NetworkHalt[]
  readonly log: EnvelopeLog
  readonly usage: Readonly<Record<string, RunUsage>>
  /** What each sub-network's nodes used together, by sub-network id (those that fired). */
  readonly subnetworks: Readonly<Record<string, RunUsage>>
  /** Envelopes dropped by `latest` and `debounce` edges, by route (`edge:from>to`). */
  readonly dropped: Readonly<Record<string, number>>
  /** Envelopes never processed, kept, not lost: taken by a node halted before it fired, or still waiting in an inbox. */
  readonly unprocessed: readonly Envelope[]
}

/** The outcome of a run so far. */
export const outcomeOf = (s: RunState): NetworkOutcome => {
  const done = [...s.nodes].filter(([, n]) => n.done).map(([id]) => id)
  const usage: Record<string, RunUsage> = {}
  for (const [id, n] of s.nodes) {
    usage[id] = { tokens: n.usage.tokens, apiCalls: n.usage.apiCalls, cost: n.usage.cost }
  }
  const dropped: Record<string, number> = {}
  for (const [key, inbox] of s.inboxes) if (inbox.dropped > 0) dropped[key] = inbox.dropped
  return Object.freeze({
    status: s.cancelled
      ? 'cancelled'
      : s.halts.length > 0
        ? 'halted'
        : done.length > 0
          ? 'done'
          : 'idle',
    done,
    halts: [...s.halts],
    log: s.log,
    usage,
    subnetworks: subnetworkUsage(s),
    dropped,
    unprocessed: [
      ...s.unprocessed,
      ...[...s.nodes.values()].flatMap((n) => n.user.waiting()),
      ...[...s.inboxes.values()].flatMap((i) => i.waiting()),
    ],
  })
}
