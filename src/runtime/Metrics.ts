import type { RunUsage } from './Budget.js'

/**
 * A summary of step latencies (ms), over every step that finished with a
 * value, nested graphs' included.
 *
 * @category runtime
 */
export interface LatencySummary {
  readonly count: number
  readonly meanMs: number
  readonly p50Ms: number
  readonly p95Ms: number
  readonly maxMs: number
}

/**
 * Figures of one run (nested graphs included). Per-step latencies are in the
 * trace's records; here is their summary.
 *
 * @category runtime
 */
export interface Metrics {
  /** Steps that finished with a value (completed, skipped or fallback). */
  readonly steps: number
  readonly attempts: number
  readonly retries: number
  readonly durationMs: number
  readonly latency: LatencySummary
  readonly usage: RunUsage
  /** Calls of an interpreter's `materialize` (or artifacts taken as the output). */
  readonly materializations: number
  /** `resolveLinks` answers served from the run's artifact cache. */
  readonly materializeCacheHits: number
  /** The longest chain of link resolution (a step's links' links …): 0 without links. */
  readonly linkFanOutDepth: number
}

/**
 * The latency summary of some durations (sorted in place).
 *
 * @internal
 */
export const summarize = (durations: Float64Array): LatencySummary => {
  const n = durations.length
  if (n === 0) return Object.freeze({ count: 0, meanMs: 0, p50Ms: 0, p95Ms: 0, maxMs: 0 })
  durations.sort()
  let sum = 0
  for (let i = 0; i < n; i++) sum += durations[i]!
  const at = (q: number): number => durations[Math.min(n - 1, Math.floor(q * n))]!
  return Object.freeze({
    count: n,
    meanMs: sum / n,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
    maxMs: durations[n - 1]!,
  })
}
