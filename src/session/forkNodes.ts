import { UsageError } from '../errors.js'
import { isGraph, type Graph } from '../graph/Graph.js'
import { graphParts, isStaticName } from '../graph/graphParts.js'
import { mapNodeRefs, mapNodes, rebuild } from '../graph/mapNodes.js'
import { listSteps } from '../graph/build.js'
import type {
  ForkContext,
  ForkPoint,
  Interpreter,
  InterpreterRegistry,
} from '../node/Interpreter.js'
import { requireName } from '../node/name.js'
import type { NodeRegistry } from '../node/NodeRegistry.js'
import { isNode, type Node } from '../node/Node.js'
import type { NodeState } from '../node/NodeState.js'
import type { Live, NodeTable } from './NodeTable.js'
import { NodeStopped, NotForkable, SessionClosed, UnknownNode } from './SessionError.js'

/**
 * Options of {@link fork}.
 *
 * @category fork
 */
export interface ForkOptions {
  /** Where in the source's history to fork from (LLM nodes; other kinds refuse it). */
  readonly at?: ForkPoint
  /** Aborting it cancels the fork. Default: the session's lifetime. */
  readonly signal?: AbortSignal
}

/**
 * Options of {@link forkGraph}.
 *
 * @category fork
 */
export interface ForkGraphOptions {
  readonly signal?: AbortSignal
}

/**
 * What forking needs of a session: its node table, its interpreters, the
 * signal of its lifetime, its clock and whether it is closed. A session
 * hands its own to the functions here; nothing else reaches its table.
 *
 * @internal
 */
export interface ForkHost {
  readonly nodes: NodeTable
  /** The session, as interpreters' lifecycle calls receive it. */
  readonly session: NodeRegistry
  readonly interpreters: InterpreterRegistry
  /** Aborted when the session closes. */
  readonly lifetime: AbortSignal
  isClosed(): boolean
  /** The session clock's time, ISO 8601. */
  now(): string
}

const started = (state: NodeState): boolean => state === 'ready' || state === 'busy'

const registeredNode = (host: ForkHost, name: string): Node | undefined =>
  host.nodes.registered.get(name)?.node

/** The interpreter that forks `node`, or NotForkable naming `name`. */
const forkerOf = (host: ForkHost, name: string, node: Node): Interpreter => {
  const sessionId = host.nodes.sessionId
  const interpreter = host.interpreters.get(node.kind)
  if (interpreter === undefined) {
    throw new NotForkable(sessionId, name, node.kind, 'has no interpreter in this session')
  }
  if (interpreter.fork === undefined) {
    const hint = isGraph(node) ? ' (use forkGraph)' : ''
    throw new NotForkable(sessionId, name, node.kind, `cannot fork${hint}`)
  }
  return interpreter
}

const refuseStopped = (host: ForkHost, name: string, state: NodeState): void => {
  if (state === 'stopping' || state === 'stopped') {
    throw new NodeStopped(host.nodes.sessionId, name, state)
  }
}

/** What an interpreter's fork is told: the signal, the session, the time, the point, the source's handle. */
const forkContext = (
  host: ForkHost,
  signal: AbortSignal,
  at: ForkPoint | undefined,
  source: Live | undefined,
): ForkContext => ({
  signal,
  session: host.session,
  time: host.now(),
  ...(at !== undefined && { at }),
  ...(source?.up === true && { live: source.handle }),
})

/** A fork made, with its handle when the session started it. */
type Made = readonly [Interpreter, Node, { readonly handle: unknown } | undefined]

/** Starts the copy of a started source (the session holds its handle); `undefined` for a kind that starts nothing. */
const startCopy = async (
  host: ForkHost,
  interpreter: Interpreter,
  copy: Node,
): Promise<{ readonly handle: unknown } | undefined> =>
  interpreter.start === undefined
    ? undefined
    : { handle: await interpreter.start(copy, { signal: host.lifetime, session: host.session }) }

/** The node an interpreter's fork of `node` answered; a TypeError if it answered none. */
const answered = (node: Node, copy: unknown): Node => {
  if (!isNode(copy)) {
    throw new TypeError(`the ${node.kind} interpreter's fork of "${node.id}" answered no node`)
  }
  return copy
}

/**
 * Runs one interpreter fork, checks what it answers and, when the source
 * is started, starts the copy (a deep fork runs several at once).
 */
const forkOne = async (
  host: ForkHost,
  interpreter: Interpreter,
  node: Node,
  newName: string,
  signal: AbortSignal,
  at: ForkPoint | undefined,
): Promise<Made> => {
  const source = host.nodes.liveIfKnown(node)
  const ctx = forkContext(host, signal, at, source)
  const copy = answered(node, await interpreter.fork!(node, newName, ctx))
  const handle =
    source !== undefined && started(source.state)
      ? await startCopy(host, interpreter, copy)
      : undefined
  return [interpreter, copy, handle]
}

/** Undoes forks when the session closed meanwhile or a sibling fork failed: stops the copies it started. */
const discard = async (host: ForkHost, made: readonly Made[]): Promise<void> => {
  const signal = new AbortController().signal
  await Promise.allSettled(
    made.map(([i, n, started]) =>
      started === undefined
        ? Promise.resolve()
        : (i.stop?.(n, { signal, session: host.session, live: started.handle }) ??
          Promise.resolve()),
    ),
  )
}

/**
 * Forks the registered node `name` as `newName` (see `fork`). The fork is
 * born `ready` when the source was started, else `created`: an interpreter
 * makes the copy live only when the source is.
 *
 * @internal
 */
export const forkNode = async (
  host: ForkHost,
  name: string,
  newName: string,
  options: ForkOptions,
): Promise<Node> => {
  requireName('fork', 'the new name', newName)
  const table = host.nodes
  const node = registeredNode(host, name)
  if (node === undefined) throw new UnknownNode(table.sessionId, name)
  const release = table.reserve([newName])
  try {
    const interpreter = forkerOf(host, name, node)
    const state = table.registered.get(name)!.state
    refuseStopped(host, name, state)
    const signal = options.signal ?? host.lifetime
    const made = await forkOne(host, interpreter, node, newName, signal, options.at)
    if (host.isClosed()) {
      await discard(host, [made])
      throw new SessionClosed(table.sessionId)
    }
    const copy = made[1]
    table.adopt(newName, copy, started(state) ? 'ready' : 'created', name, made[2])
    return copy
  } finally {
    release()
  }
}

/** One node to fork in a deep fork: the source, its name in events, the interpreter, the new name. */
interface Planned {
  readonly node: Node
  readonly from: string
  readonly newName: string
  readonly interpreter: Interpreter
}

/** What a deep fork will do, worked out (and checked) before anything is forked. */
class DeepForkPlan {
  /** Persistent nodes to fork, by source node. */
  readonly forks = new Map<Node, Planned>()
  /** Registered graphs to copy (the root first), by name. */
  readonly graphs = new Map<string, { readonly graph: Graph; readonly newName: string }>()
  readonly #uses = new Map<Graph, boolean>()

  constructor(
    private readonly host: ForkHost,
    private readonly prefix: string,
  ) {}

  /** Plans the copy of the registered graph `name` and the forks of what it uses. */
  graph(name: string, g: Graph): void {
    if (this.graphs.has(name)) return
    requireName('forkGraph', 'the id of a graph copy', this.prefix + g.id)
    this.graphs.set(name, { graph: g, newName: this.prefix + name })
    const { nodes, refs } = graphParts(g)
    for (const n of nodes) if (n.persistent) this.#fork(n, n.id)
    for (const ref of refs.filter(isStaticName)) {
      const target = registeredNode(this.host, ref)
      if (target === undefined) continue
      if (isGraph(target)) {
        if (this.uses(target)) this.graph(ref, target)
      } else if (target.persistent) this.#fork(target, ref)
    }
  }

  /** Whether a graph uses a persistent node, directly, nested or through refs. */
  uses(g: Graph): boolean {
    const known = this.#uses.get(g)
    if (known !== undefined) return known
    this.#uses.set(g, false)
    const { nodes, refs } = graphParts(g)
    const answer =
      nodes.some((n) => n.persistent) ||
      refs.filter(isStaticName).some((ref) => {
        const target = registeredNode(this.host, ref)
        return target !== undefined && (isGraph(target) ? this.uses(target) : target.persistent)
      })
    this.#uses.set(g, answer)
    return answer
  }

  #fork(node: Node, from: string): void {
    if (this.forks.has(node)) return
    const newName = requireName('forkGraph', 'a fork name', this.prefix + from)
    refuseStopped(this.host, from, this.host.nodes.stateOf(node))
    this.forks.set(node, { node, from, newName, interpreter: forkerOf(this.host, from, node) })
  }

  newNames(): string[] {
    const graphs = [...this.graphs.values()].map((g) => g.newName)
    return [...[...this.forks.values()].map((p) => p.newName), ...graphs]
  }

  /** The new names of the registered nodes and graphs that are forked, by name: how refs are renamed. */
  renamed(): Map<string, string> {
    const out = new Map<string, string>()
    for (const p of this.forks.values()) {
      if (registeredNode(this.host, p.from) === p.node) out.set(p.from, p.newName)
    }
    for (const [name, g] of this.graphs) out.set(name, g.newName)
    return out
  }
}

/**
 * Forks the registered graph `name` deeply under `prefix` (see `forkGraph`).
 *
 * @internal
 */
export const forkGraphNodes = async (
  host: ForkHost,
  name: string,
  prefix: string,
  options: ForkGraphOptions,
): Promise<Graph> => {
  if (typeof prefix !== 'string') {
    throw new UsageError('forkGraph', `prefix must be a string, got ${typeof prefix}`)
  }
  const table = host.nodes
  const source = registeredNode(host, name)
  if (source === undefined) throw new UnknownNode(table.sessionId, name)
  if (!isGraph(source)) {
    throw new UsageError('forkGraph', `"${name}" is a ${source.kind} node, not a graph`)
  }
  const plan = new DeepForkPlan(host, prefix)
  plan.graph(name, source)
  const renamed = plan.renamed()
  const newNames = plan.newNames()
  newNames.forEach((n) => requireName('forkGraph', 'a fork name', n))
  const duplicate = newNames.find((n, i) => newNames.indexOf(n) !== i)
  if (duplicate !== undefined) {
    throw new UsageError('forkGraph', `two nodes would be forked as "${duplicate}"`)
  }
  const release = table.reserve(newNames)
  try {
    const signal = options.signal ?? host.lifetime
    const planned = [...plan.forks.values()]
    const outcomes = await Promise.allSettled(
      planned.map((p) => forkOne(host, p.interpreter, p.node, p.newName, signal, undefined)),
    )
    const made: Made[] = []
    outcomes.forEach((o) => {
      if (o.status === 'fulfilled') made.push(o.value)
    })
    const failed = outcomes.find((o) => o.status === 'rejected')
    if (failed !== undefined || host.isClosed()) {
      await discard(host, made)
      throw failed !== undefined ? failed.reason : new SessionClosed(table.sessionId)
    }
    const forked = new Map<Node, Node>(planned.map((p, i) => [p.node, made[i]![1]]))
    planned.forEach((p, i) => {
      const state = table.stateOf(p.node)
      const [, copy, handle] = made[i]!
      table.adopt(p.newName, copy, started(state) ? 'ready' : 'created', p.from, handle)
    })
    const time = host.now()
    const useForks = mapNodes((n) => forked.get(n) ?? n)
    const renameRefs = mapNodeRefs((ref) => renamed.get(ref) ?? ref)
    let root: Graph | undefined
    for (const [graphName, { graph: g, newName }] of plan.graphs) {
      const metadata = Object.freeze({ ...g.metadata, forked_from: g.id, fork_time: time })
      const copy = rebuild(g, listSteps(renameRefs(useForks(g))), prefix + g.id, metadata)
      const state = table.registered.get(graphName)?.state ?? 'created'
      table.adopt(newName, copy, started(state) ? 'ready' : 'created', graphName)
      if (graphName === name) root = copy
    }
    return root!
  } finally {
    release()
  }
}
