import { UsageError } from '../errors.js'
import type { HistoryOp, HistoryRecord } from './HistoryRecord.js'
import { historyOps } from './HistoryRecord.js'

/**
 * Which records to keep. Every bound is inclusive: `fromSeq`/`toSeq` on
 * `seq`, `since`/`until` on `time` (a `Date` or an ISO string). `op` keeps
 * one op or any of several. An empty filter keeps everything.
 *
 * @category history
 */
export interface HistoryFilter {
  readonly op?: HistoryOp | readonly HistoryOp[]
  readonly fromSeq?: number
  readonly toSeq?: number
  readonly since?: Date | string
  readonly until?: Date | string
}

const timeOf = (
  api: string,
  what: string,
  value: Date | string | undefined,
): number | undefined => {
  if (value === undefined) return undefined
  const ms = typeof value === 'string' ? Date.parse(value) : value.getTime()
  if (Number.isNaN(ms)) throw new UsageError(api, `${what}: ${String(value)} is not a valid date`)
  return ms
}

const seqOf = (api: string, what: string, value: number | undefined): number | undefined => {
  if (value !== undefined && Number.isNaN(value)) throw new UsageError(api, `${what}: is NaN`)
  return value
}

/**
 * A {@link HistoryFilter} checked once and turned into a predicate; throws
 * a `UsageError` naming `api` on an unknown op, a NaN seq or a bad date.
 *
 * @internal
 */
export const historyPredicate = (
  api: string,
  filter: HistoryFilter | undefined,
): ((record: HistoryRecord) => boolean) => {
  if (filter === undefined) return () => true
  const ops =
    filter.op === undefined ? undefined : typeof filter.op === 'string' ? [filter.op] : filter.op
  for (const op of ops ?? []) {
    if (!historyOps.includes(op))
      throw new UsageError(api, `op: ${JSON.stringify(op)} is not a history op`)
  }
  const fromSeq = seqOf(api, 'fromSeq', filter.fromSeq)
  const toSeq = seqOf(api, 'toSeq', filter.toSeq)
  const since = timeOf(api, 'since', filter.since)
  const until = timeOf(api, 'until', filter.until)
  const timed = since !== undefined || until !== undefined
  return (r) => {
    if (ops !== undefined && !ops.includes(r.op)) return false
    if (fromSeq !== undefined && r.seq < fromSeq) return false
    if (toSeq !== undefined && r.seq > toSeq) return false
    if (timed) {
      const at = Date.parse(r.time)
      if (since !== undefined && at < since) return false
      if (until !== undefined && at > until) return false
    }
    return true
  }
}

/**
 * Keeps the records that pass `filter`; data-last, for `pipe`. Returns the
 * input array when every record passes.
 *
 * @category history
 * @example
 * import { filterHistory } from 'nerve-agents/session'
 * import type { HistoryRecord } from 'nerve-agents/session'
 * import assert from 'assert'
 *
 * const at = (seq: number, op: 'send' | 'read'): HistoryRecord =>
 *   ({ seq, op, node: 'sh', time: `2026-01-01T00:00:0${seq}.000Z` })
 * const records = [at(1, 'send'), at(2, 'read'), at(3, 'send')]
 * assert.deepStrictEqual(filterHistory({ op: 'send', fromSeq: 2 })(records).map((r) => r.seq), [3])
 * assert.deepStrictEqual(filterHistory({ until: '2026-01-01T00:00:02Z' })(records).length, 2)
 */
export const filterHistory = (
  filter: HistoryFilter,
): ((records: readonly HistoryRecord[]) => readonly HistoryRecord[]) => {
  const keep = historyPredicate('filterHistory', filter)
  return (records) => {
    const kept = records.filter(keep)
    return kept.length === records.length ? records : Object.freeze(kept)
  }
}
