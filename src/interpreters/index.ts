import { interpreters, type InterpreterRegistry } from '../node/Interpreter.js'
import { functionInterpreter } from './function.js'
import { graphInterpreter } from './graph.js'

export { functionInterpreter } from './function.js'
export { graphInterpreter } from './graph.js'

/**
 * The interpreters shipped with Nerve: `function` and `graph`. Add your own
 * kinds by building a registry from these and yours.
 *
 * @category interpreters
 * @example
 * import { defaultInterpreters, interpreters } from 'nerve'
 * import assert from 'node:assert'
 *
 * const echo = { kind: 'echo', execute: (_node: unknown, ctx: { input: unknown }) => ctx.input }
 * const mine = interpreters(...defaultInterpreters.values(), echo)
 * assert.deepStrictEqual([...mine.keys()], ['function', 'graph', 'echo'])
 */
export const defaultInterpreters: InterpreterRegistry = interpreters(
  functionInterpreter,
  graphInterpreter,
)
