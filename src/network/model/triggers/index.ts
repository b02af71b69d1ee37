/**
 * The trigger table: every kind of trigger, each one module of this folder.
 * The codec of a node's `trigger` is made of it (parts.ts), and the run
 * reads it to decide when a node fires (select.ts) and to arm its clock
 * (topology.ts). Adding a kind is one module and one line here.
 *
 * @internal
 */
import { all } from './all.js'
import { any } from './any.js'
import type { TriggerKind } from './kind.js'
import { manual } from './manual.js'
import { scheduled } from './scheduled.js'

export type { Alarm, TriggerKind } from './kind.js'
export type { AllTrigger } from './all.js'
export type { AnyTrigger } from './any.js'
export type { ManualTrigger } from './manual.js'
export type { ScheduledTrigger } from './scheduled.js'

/** Every kind of trigger, by its `type`. */
export const TRIGGERS = { any, all, manual, scheduled } as const

type Kinds = typeof TRIGGERS

/**
 * When a node fires: one value of the kinds of the trigger table —
 * {@link AnyTrigger} (the default), {@link AllTrigger},
 * {@link ManualTrigger}, {@link ScheduledTrigger}.
 *
 * @category network
 */
export type Trigger = {
  [K in keyof Kinds]: Kinds[K] extends TriggerKind<infer T> ? T : never
}[keyof Kinds]

/** The kind of a trigger value. */
export const kindOf = (trigger: Trigger): TriggerKind<Trigger> =>
  TRIGGERS[trigger.type] as TriggerKind<Trigger>
