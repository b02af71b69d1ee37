import type { Node } from '../node/Node.js'
import { nodeInfo, type NodeInfo } from '../node/NodeInfo.js'
import type { NodeState } from '../node/NodeState.js'
import type { StateCell } from '../node/NodeRegistry.js'
import { NameTaken } from './SessionError.js'

/**
 * The lifecycle of one node as a session keeps it.
 *
 * @internal
 */
export interface Live {
  readonly node: Node
  /** The name in events: the registered name, or the id of a node inside a graph. */
  readonly name: string
  state: NodeState
  /** Executes in progress: `busy` while > 0. */
  busy: number
  /** How to stop each execute the session runs on this node (made on first execute). */
  running: Set<AbortController> | undefined
  starting: Promise<void> | undefined
  /** The replacement of a handle whose program exited, while it starts. */
  respawning: Promise<void> | undefined
  stopping: Promise<void> | undefined
  /** Whether the interpreter's `start` resolved (and its `stop` is owed). */
  up: boolean
  /** What the interpreter's `start` answered, while `up`. */
  handle: unknown
}

/** A new lifecycle record of `node`, in `state`. @internal */
export const live = (node: Node, name: string, state: NodeState): Live => ({
  node,
  name,
  state,
  busy: 0,
  running: undefined,
  starting: undefined,
  respawning: undefined,
  stopping: undefined,
  up: false,
  handle: undefined,
})

/** What the session tells of an entry: its node's info, `id` the name it is registered under. @internal */
export const infoOf = (entry: Live): NodeInfo =>
  entry.name === entry.node.id
    ? nodeInfo(entry.state)(entry.node)
    : Object.freeze({ ...nodeInfo(entry.state)(entry.node), id: entry.name })

/** A session's cell for one node id: methods on a prototype, so handing one out allocates one small object. */
class Cell implements StateCell {
  readonly #cells: Map<string, unknown>
  readonly #id: string
  constructor(cells: Map<string, unknown>, id: string) {
    this.#cells = cells
    this.#id = id
  }
  get(): unknown {
    return this.#cells.get(this.#id)
  }
  set(value: unknown): void {
    this.#cells.set(this.#id, value)
  }
}

/**
 * The nodes of one session, by name: the registered ones, the persistent
 * nodes inside registered graphs (`embedded`, by node id), the state cells
 * by node id and the names held by forks in progress (`reserved`). The
 * session drives lifecycles over it; fork talks to it through `reserve`,
 * `adopt` and `stateOf`. Not exported from the package.
 *
 * @internal
 */
export class NodeTable {
  readonly registered = new Map<string, Live>()
  /** Persistent nodes inside registered graphs, by node id, when not registered themselves. */
  readonly embedded = new Map<string, Live>()
  /** Names held by forks in progress. */
  readonly reserved = new Set<string>()
  readonly #cells = new Map<string, unknown>()
  readonly #byNode = new WeakMap<Node, Live>()
  /** How many registered names hold a node of each id (a cell is forgotten with the last). */
  readonly #ids = new Map<string, number>()

  /** `onAdopt` tells of a fork the table took in (the session's `forked` event). */
  constructor(
    readonly sessionId: string,
    private readonly onAdopt: (entry: Live, from: string) => void,
  ) {}

  /** Whether a name is registered or held by a fork in progress. */
  taken(name: string): boolean {
    return this.registered.has(name) || this.reserved.has(name)
  }

  /** Registers an entry under its name. */
  add(entry: Live): void {
    this.registered.set(entry.name, entry)
    if (!this.#byNode.has(entry.node)) this.#byNode.set(entry.node, entry)
    const id = entry.node.id
    this.#ids.set(id, (this.#ids.get(id) ?? 0) + 1)
  }

  /** Forgets a registered name (and its node's cell with the last name holding that id). */
  remove(name: string): Live | undefined {
    const entry = this.registered.get(name)
    if (entry === undefined) return undefined
    this.registered.delete(name)
    if (this.#byNode.get(entry.node) === entry) this.#byNode.delete(entry.node)
    const id = entry.node.id
    const holders = (this.#ids.get(id) ?? 1) - 1
    if (holders > 0) this.#ids.set(id, holders)
    else {
      this.#ids.delete(id)
      this.#cells.delete(id)
    }
    return entry
  }

  /** The cell holding the live value of the node with this id. */
  cell(nodeId: string): StateCell {
    return new Cell(this.#cells, nodeId)
  }

  /** The lifecycle of a node inside a graph: its registered one, else one of its own. */
  liveOf(node: Node): Live {
    const known = this.#byNode.get(node) ?? this.embedded.get(node.id)
    if (known !== undefined) return known
    const entry = live(node, node.id, 'created')
    this.embedded.set(node.id, entry)
    return entry
  }

  /** The lifecycle a run's step of `node` keeps busy: the persistent node registered under its id, else inside a graph. */
  runningOf(node: Node): Live | undefined {
    const entry = this.registered.get(node.id) ?? this.embedded.get(node.id)
    return entry?.node.id === node.id && entry.node.persistent ? entry : undefined
  }

  /** The lifecycle of a node, registered or inside a graph, when the table has seen it. */
  liveIfKnown(node: Node): Live | undefined {
    return this.#byNode.get(node) ?? this.embedded.get(node.id)
  }

  /** The state of a node, registered or inside a graph (`created` when the table has not seen it). */
  stateOf(node: Node): NodeState {
    return this.liveIfKnown(node)?.state ?? 'created'
  }

  /** Holds names for a fork in progress ({@link NameTaken} if one is taken); returns the release. */
  reserve(names: readonly string[]): () => void {
    for (const name of names) if (this.taken(name)) throw new NameTaken(this.sessionId, name)
    const distinct = names.length === 1 ? names : [...new Set(names)]
    distinct.forEach((n) => this.reserved.add(n))
    return () => {
      for (const n of distinct) this.reserved.delete(n)
    }
  }

  /** Registers a fork, born in `state` (on `started`'s handle, when given), and tells of it. */
  adopt(
    name: string,
    node: Node,
    state: NodeState,
    from: string,
    started?: { readonly handle: unknown },
  ): void {
    const entry = live(node, name, state)
    if (started !== undefined) {
      entry.up = true
      entry.handle = started.handle
    }
    this.add(entry)
    this.onAdopt(entry, from)
  }
}
