import * as t from 'io-ts'
import { strict } from '../strict.js'
import type { TriggerKind } from './kind.js'

/**
 * `manual`: the node fires only on an explicit trigger
 * (`NetworkRun.trigger`), with everything waiting for it.
 *
 * @category network
 */
export interface ManualTrigger {
  readonly type: 'manual'
}

/** @internal */
export const manual: TriggerKind<ManualTrigger> = {
  codec: strict('{ type: "manual" }', { type: t.literal('manual') }),
}
