import * as t from 'io-ts'
import { strict } from '../strict.js'
import type { TriggerKind } from './kind.js'

/**
 * `any` (the default): the node fires on each envelope delivered to it.
 *
 * @category network
 */
export interface AnyTrigger {
  readonly type: 'any'
}

/** @internal */
export const any: TriggerKind<AnyTrigger> = {
  codec: strict('{ type: "any" }', { type: t.literal('any') }),
  ready: (waiting) => waiting.some((n) => n > 0),
}
