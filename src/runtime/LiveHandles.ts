import { respawn, type Interpreter, type LifecycleContext } from '../node/Interpreter.js'
import type { Node } from '../node/Node.js'
import type { NodeRegistry } from '../node/NodeRegistry.js'

const NEVER = new AbortController().signal

/** One node started by a table: its node and its start (whose value is the handle). */
interface Held {
  readonly node: Node
  readonly interpreter: Interpreter
  readonly session: NodeRegistry
  /** The start in progress or done: a respawn replaces it. */
  started: Promise<unknown>
  /** Whether `started` resolved, with `handle` its value. */
  up: boolean
  handle: unknown
}

/**
 * What a {@link LiveHandles} table is told of.
 *
 * @category runtime
 */
export interface LiveHandlesOptions {
  /**
   * Called when the table has stopped a node's dead handle (its
   * interpreter's `alive` said `false`) and started a fresh one in its place.
   */
  readonly onRespawn?: (node: Node) => void
}

/**
 * The handles of persistent nodes that a run starts itself, because no
 * session holds them (a graph run with no session, or a node the session
 * has not started): the first step on a node calls its interpreter's
 * `start`, later steps (and concurrent first ones) get the same handle.
 * A handle whose interpreter says it is no longer `alive` (a terminal whose
 * program exited) is stopped, and the next step gets a fresh one (a respawn).
 * A run makes its own table and stops what it holds when it ends; a caller
 * whose nodes outlive one run (a network's firings) passes one as
 * `RunOptions.handles` and stops it itself with {@link LiveHandles.stopAll}.
 *
 * @category runtime
 * @example
 * import { LiveHandles } from 'nerve-agents/runtime'
 * import { nodeRegistry } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * let starts = 0
 * const counter = { kind: 'counter', start: () => Promise.resolve({ n: ++starts }) }
 * const node = { id: 'c', kind: 'counter', persistent: true, metadata: {} } as never
 * const handles = new LiveHandles()
 * const ctx = { signal: new AbortController().signal, session: nodeRegistry() }
 * const [a, b] = await Promise.all([handles.get(node, counter, ctx), handles.get(node, counter, ctx)])
 * assert.strictEqual(a, b)
 * assert.strictEqual(starts, 1)
 * await handles.stopAll()
 */
export class LiveHandles {
  readonly #held = new Map<Interpreter, Map<string, Held>>()
  readonly #onRespawn: ((node: Node) => void) | undefined

  constructor(options: LiveHandlesOptions = {}) {
    this.#onRespawn = options.onRespawn
  }

  /**
   * The handle of `node`, started with `interpreter.start` on first call
   * (by node id, per interpreter), and again when the one held is no
   * longer `alive` (after the dead one is stopped). A start that fails is
   * forgotten, so the next call tries again. `respawned` is told, besides
   * the table's `onRespawn`, when this call is the one that respawned it.
   */
  get(
    node: Node,
    interpreter: Interpreter,
    ctx: LifecycleContext,
    respawned?: () => void,
  ): Promise<unknown> {
    let byId = this.#held.get(interpreter)
    if (byId === undefined) this.#held.set(interpreter, (byId = new Map<string, Held>()))
    const known = byId.get(node.id)
    if (known === undefined) {
      const held: Held = {
        node,
        interpreter,
        session: ctx.session,
        started: interpreter.start!(node, ctx),
        up: false,
        handle: undefined,
      }
      byId.set(node.id, held)
      return this.#track(byId, held)
    }
    if (!known.up || interpreter.alive?.(node, known.handle) !== false) return known.started
    const dead = known.handle
    known.up = false
    known.handle = undefined
    const stop = { signal: NEVER, session: known.session, live: dead }
    known.started = respawn(interpreter, node, stop, ctx)
    return this.#track(byId, known).then((handle) => {
      this.#onRespawn?.(node)
      respawned?.()
      return handle
    })
  }

  /** Notes the handle when `held`'s start resolves; forgets `held` when it fails. */
  #track(byId: Map<string, Held>, held: Held): Promise<unknown> {
    const started = held.started
    started.then(
      (handle) => {
        if (held.started !== started) return
        held.up = true
        held.handle = handle
      },
      () => {
        if (byId.get(held.node.id) === held && held.started === started) byId.delete(held.node.id)
      },
    )
    return started
  }

  /** Stops every node the table started (each with its interpreter's `stop`) and forgets them. */
  async stopAll(): Promise<void> {
    const all = [...this.#held.values()].flatMap((byId) => [...byId.values()])
    this.#held.clear()
    await Promise.allSettled(
      all.map(async ({ node, interpreter, session, started }) => {
        const live = await started
        await interpreter.stop?.(node, { signal: NEVER, session, live })
      }),
    )
  }
}
