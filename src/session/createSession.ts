import { randomUUID } from 'node:crypto'
import { deepFreeze } from '../dag/freeze.js'
import { UsageError } from '../errors.js'
import { defaultInterpreters } from '../interpreters/index.js'
import { interpreters as registry, type InterpreterRegistry } from '../node/Interpreter.js'
import { requireName } from '../node/name.js'
import { EMPTY_METADATA } from '../node/Node.js'
import { systemClock } from '../runtime/Clock.js'
import { forkInterpreter } from './forkStep.js'
import { Session } from './Session.js'
import type { SessionConfig, SessionOptions } from './SessionOptions.js'

const API = 'createSession'

/** The session's interpreters: the given ones (default: `defaultInterpreters`), with `fork` unless they have one. */
const interpretersOf = (given: unknown): InterpreterRegistry => {
  const list = given ?? defaultInterpreters
  if (typeof (list as { get?: unknown }).get !== 'function') {
    throw new UsageError(API, 'options.interpreters must be an interpreter registry')
  }
  const known = list as InterpreterRegistry
  return known.has('fork') ? known : registry(...known.values(), forkInterpreter)
}

/** The options checked, defaults filled in. */
const configOf = (options: SessionOptions): SessionConfig => {
  const given: unknown = options
  if (typeof given !== 'object' || given === null) {
    throw new UsageError(
      API,
      `options must be an object, got ${given === null ? 'null' : typeof given}`,
    )
  }
  const id = requireName(API, 'options.id', options.id ?? randomUUID())
  const name = requireName(API, 'options.name', options.name ?? id)
  const tags: unknown = options.tags ?? []
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) {
    throw new UsageError(API, 'options.tags must be an array of strings')
  }
  const metadata = options.metadata ?? EMPTY_METADATA
  if (typeof metadata !== 'object' || (metadata as unknown) === null) {
    throw new UsageError(API, 'options.metadata must be an object')
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
    throw new UsageError(API, 'options.onEvent must be a function')
  }
  return {
    id,
    name,
    tags: Object.freeze([...(tags as readonly string[])]),
    metadata: deepFreeze({ ...metadata }),
    interpreters: interpretersOf(options.interpreters),
    clock: options.clock ?? systemClock,
    onEvent: options.onEvent,
  }
}

/**
 * A new, empty {@link Session}. The id (default: a random UUID) and the name
 * (default: the id) follow the name rule. Unless `interpreters` has a `fork`
 * kind, the session's interpreters add `forkInterpreter`, so graphs may
 * fork nodes as a step (`forkOp`).
 *
 * @category session
 * @example
 * import { createSession, fn } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const session = createSession({ name: 'demo' })
 * session.register(fn('double', (ctx) => Number(ctx.input) * 2))
 * assert.strictEqual(await session.execute('double', 21), 42)
 * assert.deepStrictEqual(session.listNodes().map((n) => [n.id, n.state]), [['double', 'ready']])
 * await session.close()
 */
export const createSession = (options: SessionOptions = {}): Session =>
  new Session(configOf(options))
