import { UsageError } from '../errors.js'
import type { ErrorPolicy } from '../graph/ErrorPolicy.js'
import { graph, isGraph, type Graph } from '../graph/Graph.js'
import { addStep, listSteps } from '../graph/build.js'
import type { Step, StepSpec } from '../graph/Step.js'
import type { ForkContext, ForkPoint, Interpreter } from '../node/Interpreter.js'
import { requireName } from '../node/name.js'
import { isNode, type Node } from '../node/Node.js'
import type { NodeState } from '../node/NodeState.js'
import { graphParts, isStaticName } from './graphParts.js'
import { Session } from './Session.js'
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

const requireSession = (api: string, session: unknown): Session => {
  if (!(session instanceof Session)) {
    throw new UsageError(api, `expects a Session, got ${String(session)}`)
  }
  Session.requireOpen(session)
  return session
}

const started = (state: NodeState): boolean => state === 'ready' || state === 'busy'

/** The interpreter that forks `node`, or NotForkable naming `name`. */
const forkerOf = (session: Session, name: string, node: Node): Interpreter => {
  const interpreter = session.interpreters.get(node.kind)
  if (interpreter === undefined) {
    throw new NotForkable(session.id, name, node.kind, 'has no interpreter in this session')
  }
  if (interpreter.fork === undefined) {
    const hint = isGraph(node) ? ' (use forkGraph)' : ''
    throw new NotForkable(session.id, name, node.kind, `cannot fork${hint}`)
  }
  return interpreter
}

const refuseStopped = (session: Session, name: string, state: NodeState): void => {
  if (state === 'stopping' || state === 'stopped') throw new NodeStopped(session.id, name, state)
}

/** Runs one interpreter fork and checks what it answers. */
const forkOne = async (
  session: Session,
  interpreter: Interpreter,
  node: Node,
  newName: string,
  signal: AbortSignal,
  at: ForkPoint | undefined,
): Promise<Node> => {
  const ctx: ForkContext =
    at === undefined
      ? { signal, session, time: Session.now(session) }
      : { signal, session, time: Session.now(session), at }
  const copy = await interpreter.fork!(node, newName, ctx)
  if (!isNode(copy)) {
    throw new TypeError(`the ${node.kind} interpreter's fork of "${node.id}" answered no node`)
  }
  return copy
}

/** Undoes forks when the session closed meanwhile or a sibling fork failed. */
const discard = async (session: Session, made: readonly [Interpreter, Node][]): Promise<void> => {
  const ctx = { signal: new AbortController().signal, session }
  await Promise.allSettled(made.map(([i, n]) => i.stop?.(n, ctx) ?? Promise.resolve()))
}

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
 * import { bash, createSession, fork } from 'nerve'
 * import assert from 'assert'
 *
 * const session = createSession()
 * session.register(bash('hello', { command: 'echo hello' }))
 * const copy = await fork(session, 'hello', 'hello-2')
 * assert.strictEqual(copy.metadata.forked_from, 'hello')
 * assert.strictEqual(session.get('hello-2'), copy)
 * await session.close()
 */
export const fork = async (
  session: Session,
  name: string,
  newName: string,
  options: ForkOptions = {},
): Promise<Node> => {
  requireSession('fork', session)
  requireName('fork', 'the new name', newName)
  const node = session.get(name)
  if (node === undefined) throw new UnknownNode(session.id, name)
  const release = Session.reserve(session, [newName])
  try {
    const interpreter = forkerOf(session, name, node)
    const state = session.state(name)!
    refuseStopped(session, name, state)
    const signal = options.signal ?? Session.lifetime(session)
    const copy = await forkOne(session, interpreter, node, newName, signal, options.at)
    if (session.closed) {
      await discard(session, [[interpreter, copy]])
      throw new SessionClosed(session.id)
    }
    Session.adopt(session, newName, copy, started(state) ? 'ready' : 'created', name)
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
    private readonly session: Session,
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
      const target = this.session.get(ref)
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
        const target = this.session.get(ref)
        return target !== undefined && (isGraph(target) ? this.uses(target) : target.persistent)
      })
    this.#uses.set(g, answer)
    return answer
  }

  #fork(node: Node, from: string): void {
    if (this.forks.has(node)) return
    const newName = requireName('forkGraph', 'a fork name', this.prefix + from)
    refuseStopped(this.session, from, Session.stateOf(this.session, node))
    this.forks.set(node, { node, from, newName, interpreter: forkerOf(this.session, from, node) })
  }

  newNames(): string[] {
    const graphs = [...this.graphs.values()].map((g) => g.newName)
    return [...[...this.forks.values()].map((p) => p.newName), ...graphs]
  }

  /** The new names of the registered nodes and graphs that are forked, by name: how refs are renamed. */
  renamed(): Map<string, string> {
    const out = new Map<string, string>()
    for (const p of this.forks.values()) {
      if (this.session.get(p.from) === p.node) out.set(p.from, p.newName)
    }
    for (const [name, g] of this.graphs) out.set(name, g.newName)
    return out
  }
}

/** The graph with its forked nodes and renamed refs; the graph itself when nothing changes. */
const rewrite = (
  g: Graph,
  id: string,
  forked: ReadonlyMap<Node, Node>,
  renamed: ReadonlyMap<string, string>,
  metadata = g.metadata,
): Graph => {
  const mapNode = (n: Node): Node =>
    forked.get(n) ?? (isGraph(n) ? rewrite(n, n.id, forked, renamed) : n)
  const mapPolicy = (p: ErrorPolicy): ErrorPolicy => {
    if (p._tag === 'fallback') {
      const node = mapNode(p.node)
      return node === p.node ? p : Object.freeze({ ...p, node })
    }
    if (p._tag === 'retry') {
      const then = mapPolicy(p.then)
      return then === p.then ? p : Object.freeze({ ...p, then: then as typeof p.then })
    }
    return p
  }
  let changed = id !== g.id || metadata !== g.metadata
  const steps = listSteps(g).map((step): Step => {
    const spec: Record<string, unknown> = { ...step }
    if (step.node !== undefined) spec.node = mapNode(step.node)
    else spec.nodeRef = renamed.get(step.nodeRef) ?? step.nodeRef
    spec.onError = mapPolicy(step.onError)
    const same =
      spec.node === step.node && spec.nodeRef === step.nodeRef && spec.onError === step.onError
    changed ||= !same
    return same ? step : (spec as Step)
  })
  if (!changed) return g
  return steps.reduce(
    (out, step) => addStep(step as StepSpec)(out),
    graph(id, { maxParallel: g.maxParallel, metadata }),
  )
}

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
export const forkGraph = async (
  session: Session,
  name: string,
  prefix: string,
  options: ForkGraphOptions = {},
): Promise<Graph> => {
  requireSession('forkGraph', session)
  if (typeof prefix !== 'string') {
    throw new UsageError('forkGraph', `prefix must be a string, got ${typeof prefix}`)
  }
  const source = session.get(name)
  if (source === undefined) throw new UnknownNode(session.id, name)
  if (!isGraph(source)) {
    throw new UsageError('forkGraph', `"${name}" is a ${source.kind} node, not a graph`)
  }
  const plan = new DeepForkPlan(session, prefix)
  plan.graph(name, source)
  const renamed = plan.renamed()
  const newNames = plan.newNames()
  newNames.forEach((n) => requireName('forkGraph', 'a fork name', n))
  const duplicate = newNames.find((n, i) => newNames.indexOf(n) !== i)
  if (duplicate !== undefined) {
    throw new UsageError('forkGraph', `two nodes would be forked as "${duplicate}"`)
  }
  const release = Session.reserve(session, newNames)
  try {
    const signal = options.signal ?? Session.lifetime(session)
    const planned = [...plan.forks.values()]
    const outcomes = await Promise.allSettled(
      planned.map((p) => forkOne(session, p.interpreter, p.node, p.newName, signal, undefined)),
    )
    const made: [Interpreter, Node][] = []
    outcomes.forEach((o, i) => {
      if (o.status === 'fulfilled') made.push([planned[i]!.interpreter, o.value])
    })
    const failed = outcomes.find((o) => o.status === 'rejected')
    if (failed !== undefined || session.closed) {
      await discard(session, made)
      throw failed !== undefined ? failed.reason : new SessionClosed(session.id)
    }
    const forked = new Map<Node, Node>(planned.map((p, i) => [p.node, made[i]![1]]))
    planned.forEach((p, i) => {
      const state = Session.stateOf(session, p.node)
      Session.adopt(session, p.newName, made[i]![1], started(state) ? 'ready' : 'created', p.from)
    })
    const time = Session.now(session)
    let root: Graph | undefined
    for (const [graphName, { graph: g, newName }] of plan.graphs) {
      const id = prefix + g.id
      const metadata = Object.freeze({ ...g.metadata, forked_from: g.id, fork_time: time })
      const copy = rewrite(g, id, forked, renamed, metadata)
      const state = session.state(graphName) ?? 'created'
      Session.adopt(session, newName, copy, started(state) ? 'ready' : 'created', graphName)
      if (graphName === name) root = copy
    }
    return root!
  } finally {
    release()
  }
}
