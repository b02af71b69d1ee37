import * as t from 'io-ts'
import { refine, strict } from '../strict.js'
import type { TriggerKind } from './kind.js'

/**
 * `scheduled`: the node fires on a cron expression (`cron`, 5 or 6 fields,
 * read on the run's clock) or every `everyMs` milliseconds, with
 * everything waiting for it.
 *
 * @category network
 */
export type ScheduledTrigger =
  | { readonly type: 'scheduled'; readonly cron: string }
  | { readonly type: 'scheduled'; readonly everyMs: number }

/** Five or six fields of cron characters. */
const Cron = refine(
  t.string,
  (s) => /^[\d*/,\-?LW#A-Za-z]+(\s+[\d*/,\-?LW#A-Za-z]+){4,5}$/.test(s.trim()),
  'a cron expression (5 or 6 fields)',
)

const cron = strict<ScheduledTrigger>('{ type: "scheduled", cron }', {
  type: t.literal('scheduled'),
  cron: Cron,
})
const every = strict<ScheduledTrigger>('{ type: "scheduled", everyMs }', {
  type: t.literal('scheduled'),
  everyMs: refine(t.number, (n) => n > 0 && Number.isFinite(n), 'a number > 0'),
})

/** @internal */
export const scheduled: TriggerKind<ScheduledTrigger> = {
  codec: Object.assign((u: Record<string, unknown>) => ('everyMs' in u ? every : cron), {
    schemas: [every, cron],
  }),
  arm: (trigger) => ('everyMs' in trigger ? { everyMs: trigger.everyMs } : { cron: trigger.cron }),
}
