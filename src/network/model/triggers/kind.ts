/**
 * What one kind of trigger is: the shape of its value and what it means to
 * a run — whether envelopes waiting on a node's inputs fire it, whether an
 * interactive node joins its inputs, and the clock it fires on by itself.
 * Each kind is one module of this folder, listed once in the table of
 * index.ts; the codec, the run's scheduler and its timers read the table.
 *
 * @internal
 */
import type { Branch } from '../strict.js'

/**
 * When a node fires by itself, on the run's clock: every `everyMs`
 * milliseconds, or at each time a cron expression (5 or 6 fields) names.
 *
 * @category network
 */
export type Alarm = { readonly everyMs: number } | { readonly cron: string }

/**
 * One kind of trigger (see {@link Trigger}): its value's codec and its
 * meaning. A trigger fires a node by what waits on its inputs (`ready`), by
 * its clock (`arm`), or — with neither — only when the run is told to
 * (`NetworkRun.trigger`); an explicit trigger fires a node of any kind.
 *
 * @category network
 */
export interface TriggerKind<T extends { readonly type: string }> {
  /** The io-ts codec of the trigger's value, chosen by its `type`. */
  readonly codec: Branch<T>
  /**
   * Whether the envelopes waiting on the node's inputs (how many wait on
   * each input edge, in order) fire it. Absent: envelopes wait until an
   * explicit trigger or the alarm fires the node, which takes them all.
   */
  readonly ready?: (waiting: readonly number[]) => boolean
  /**
   * An interactive node takes one envelope of every input at once (a join)
   * rather than the next one in turn; it needs `ready` to hold only when
   * every input has one.
   */
  readonly joins?: boolean
  /** The clock the node fires on by itself, armed when it joins the run or its trigger changes. */
  readonly arm?: (trigger: T) => Alarm
}
