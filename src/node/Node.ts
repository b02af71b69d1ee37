import { deepFreeze } from '../dag/freeze.js'
import type { Meta } from '../dag/Vertex.js'
import { UsageError } from '../errors.js'
import { requireName } from './name.js'

/**
 * A unit of work, described by a frozen value. `kind` says which interpreter
 * runs it (`'function'`, `'graph'`, later `'bash'`, `'pty'`, `'llm'`, …);
 * each kind adds its own fields (a function node has `fn`, a graph its
 * steps). `persistent` nodes have live state (a process, a conversation head)
 * that a session owns between runs; the others are run afresh each time.
 *
 * `id` and `kind` follow the name rule ({@link namePattern}).
 *
 * @category model
 */
export interface Node {
  readonly id: string
  readonly kind: string
  readonly persistent: boolean
  /** Free-form JSON-shaped metadata (labels, descriptions, owners). */
  readonly metadata: Meta
}

/**
 * Options every node constructor takes.
 *
 * @category model
 */
export interface NodeOptions {
  /** Frozen with the node. Default: `{}`. */
  readonly metadata?: Meta
}

const typeOf = (u: unknown): string => (u === null ? 'null' : typeof u)

const NO_CHANGES = Object.freeze({})

/** The metadata of a node built without any. @internal */
export const EMPTY_METADATA: Meta = Object.freeze({})

/**
 * Builds a node of any kind from its description: checks `id` and `kind`
 * against the name rule and `persistent` is a boolean, then freezes the
 * description deeply (already frozen parts are kept as they are). This is how
 * every node constructor is written, including those of later kinds.
 *
 * Throws a {@link UsageError} naming the bad value, since a node is built by
 * code, not decoded from data. `api` is the function named in that error;
 * constructors built on this one pass their own name.
 *
 * @category constructors
 * @example
 * import { makeNode } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const n = makeNode({ id: 'ls', kind: 'bash', persistent: false, metadata: {}, command: 'ls' })
 * assert.strictEqual(n.command, 'ls')
 * assert.ok(Object.isFrozen(n))
 * assert.throws(() => makeNode({ ...n, id: 'not ok' }), /not a valid name/)
 */
export const makeNode = <N extends Node>(description: N, api = 'makeNode'): N => {
  if (typeof description !== 'object' || (description as unknown) === null) {
    throw new UsageError(api, `a node description must be an object, got ${typeOf(description)}`)
  }
  requireName(api, 'the node id', description.id)
  requireName(api, 'the node kind', description.kind)
  if (typeof description.persistent !== 'boolean') {
    throw new UsageError(
      api,
      `node "${description.id}": persistent must be a boolean, got ${String(description.persistent)}`,
    )
  }
  if (typeof description.metadata !== 'object' || (description.metadata as unknown) === null) {
    throw new UsageError(api, `node "${description.id}": metadata must be an object`)
  }
  return deepFreeze(description)
}

/**
 * Whether a value looks like a {@link Node}: an object with string `id` and
 * `kind`, a boolean `persistent` and an object `metadata`.
 *
 * @category guards
 */
export const isNode = (u: unknown): u is Node => {
  if (typeof u !== 'object' || u === null) return false
  const n = u as Record<string, unknown>
  return (
    typeof n.id === 'string' &&
    typeof n.kind === 'string' &&
    typeof n.persistent === 'boolean' &&
    typeof n.metadata === 'object' &&
    n.metadata !== null
  )
}

/**
 * The copy of a node under a new id for a fork: the same configuration less
 * the `drop`ped keys (state that one node alone may hold, such as an attached
 * pane), plus `changes`, with metadata `{ forked_from, fork_time }` and `metadata`. Checks
 * the new id, the time and the node's kind, naming `api` in its errors.
 *
 * @internal
 */
export const forkCopy = <N extends Node>(
  api: string,
  kind: N['kind'],
  id: string,
  forkTime: string,
  node: N,
  drop: readonly (keyof N)[] = [],
  changes: Partial<N> = NO_CHANGES,
  metadata: Meta = EMPTY_METADATA,
): N => {
  requireName(api, 'the new node id', id)
  if (typeof forkTime !== 'string') {
    throw new UsageError(api, `the fork time must be a string, got ${typeOf(forkTime)}`)
  }
  if ((node as Node).kind !== kind) {
    throw new UsageError(api, `expects a ${kind} node, got ${(node as Node).kind}`)
  }
  const kept =
    drop.length === 0
      ? node
      : (Object.fromEntries(
          Object.entries(node).filter(([key]) => !drop.includes(key as keyof N)),
        ) as N)
  // The node was checked and frozen when it was made: only the new parts need it.
  return Object.freeze({
    ...kept,
    ...(changes === NO_CHANGES ? changes : deepFreeze(changes)),
    id,
    metadata: deepFreeze({
      ...node.metadata,
      forked_from: node.id,
      fork_time: forkTime,
      ...metadata,
    }),
  })
}
