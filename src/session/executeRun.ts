/**
 * How a session's `execute` becomes a run: the options of that run (the
 * session's interpreters, clock and registry, the caller's signal, budget,
 * parser and listener).
 */
import type { InterpreterRegistry } from '../node/Interpreter.js'
import type { NodeRegistry } from '../node/NodeRegistry.js'
import type { Clock } from '../runtime/Clock.js'
import type { RunOptions } from '../runtime/run.js'
import type { SessionExecuteOptions } from './SessionOptions.js'

/** What a run needs of the session that starts it: its registry, interpreters and clock. */
export interface RunHost extends NodeRegistry {
  readonly interpreters: InterpreterRegistry
  readonly clock: Clock
}

/** The options of the run an execute of `input` starts on `host`. */
export const executeRunOptions = (
  host: RunHost,
  input: unknown,
  options: SessionExecuteOptions,
): RunOptions => {
  const { signal, budget, onEvent, parser } = options
  return {
    input,
    interpreters: host.interpreters,
    session: host,
    clock: host.clock,
    ...(signal !== undefined && { signal }),
    ...(budget !== undefined && { budget }),
    ...(parser !== undefined && { parser }),
    ...(onEvent !== undefined && { onEvent }),
  }
}
