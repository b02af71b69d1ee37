import * as t from 'io-ts'
import { strict } from '../strict.js'
import type { TriggerKind } from './kind.js'

/**
 * `all` (a join): the node fires once every connected upstream edge has
 * delivered since its last firing, taking one envelope of each.
 *
 * @category network
 */
export interface AllTrigger {
  readonly type: 'all'
}

/** @internal */
export const all: TriggerKind<AllTrigger> = {
  codec: strict('{ type: "all" }', { type: t.literal('all') }),
  ready: (waiting) => waiting.length > 0 && waiting.every((n) => n > 0),
  joins: true,
}
