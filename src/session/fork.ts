import { UsageError } from '../errors.js'
import type { Graph } from '../graph/Graph.js'
import type { Node } from '../node/Node.js'
import type { ForkGraphOptions, ForkOptions } from './forkNodes.js'
import { Session } from './Session.js'

export type { ForkGraphOptions, ForkOptions } from './forkNodes.js'

// Not async: the session's promise is the answer, with no promise of our own around it.
const notASession = (api: string, session: unknown): Promise<never> =>
  Promise.reject(new UsageError(api, `expects a Session, got ${String(session)}`))

/**
 * Forks the node registered as `name` into a new node registered as
 * `newName`, through its interpreter's `fork` (which gets the session, the
 * signal, the session clock's time as `fork_time`, and `at`). The new node is
 * `ready` when the source was started (a terminal's fork is a fresh process
 * that the interpreter starts), else `created`; the session tells of it with
 * a `forked` event. State kept in the session's cells is the interpreter's
 * to copy (an LLM node's fork starts from the source's conversation head).
 *
 * Rejects with {@link UnknownNode}, {@link NameTaken} for a new name in use
 * (checked before forking; held while the fork runs), {@link NotForkable}
 * naming the kind, {@link NodeStopped} for a stopped source,
 * {@link SessionClosed}; a `UsageError` for a new name that breaks the name rule.
 *
 * @category fork
 * @example
 * import { bash, createSession, fork } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const session = createSession()
 * session.register(bash('hello', { command: 'echo hello' }))
 * const copy = await fork(session, 'hello', 'hello-2')
 * assert.strictEqual(copy.metadata.forked_from, 'hello')
 * assert.strictEqual(session.get('hello-2'), copy)
 * await session.close()
 */
export const fork = (
  session: Session,
  name: string,
  newName: string,
  options: ForkOptions = {},
): Promise<Node> =>
  session instanceof Session ? session.fork(name, newName, options) : notASession('fork', session)

/**
 * Forks a registered graph deeply: every persistent node it uses — steps'
 * nodes (nested graphs too) and nodes its steps refer to by a name without
 * placeholders — is forked and registered as `${prefix}${name}` (a node
 * inside the graph: `${prefix}${id}`), a referred graph that uses persistent
 * nodes is deep-forked the same way, and a copy of the graph whose steps use
 * the forks is registered as `${prefix}${name}` (its id `${prefix}${id}`,
 * with `forked_from` and `fork_time` metadata). Answers the copy.
 *
 * Everything is checked before anything is forked: {@link NotForkable},
 * {@link NameTaken}, {@link NodeStopped}, and a `UsageError` for a name the
 * prefix makes invalid or a node that is not a graph. When one fork fails,
 * the forks already made are stopped and nothing is registered.
 *
 * @category fork
 */
export const forkGraph = (
  session: Session,
  name: string,
  prefix: string,
  options: ForkGraphOptions = {},
): Promise<Graph> =>
  session instanceof Session
    ? session.forkGraph(name, prefix, options)
    : notASession('forkGraph', session)
