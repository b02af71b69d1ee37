import { UsageError } from '../errors.js'
import { isGraph, type Graph } from '../graph/Graph.js'
import { fn, type FunctionNode, type NodeFunction } from '../node/FunctionNode.js'
import type { Node, NodeOptions } from '../node/Node.js'
import { nodeKinds } from '../node/nodeKinds.js'
import type { PtyNode, PtyOptions } from '../node/PtyNode.js'
import type { TmuxNode, TmuxOptions } from '../node/TmuxNode.js'
import type { WeztermNode, WeztermOptions } from '../node/WeztermNode.js'
import { Session } from './Session.js'

/**
 * What {@link createTerminal} takes: the terminal's kind and the options of
 * that kind's node constructor (`pty`, `tmux`, `wezterm`).
 *
 * @category session
 */
export type TerminalSpec =
  | ({ readonly kind: 'pty' } & PtyOptions)
  | ({ readonly kind: 'tmux' } & TmuxOptions)
  | ({ readonly kind: 'wezterm' } & WeztermOptions)

/**
 * The node {@link createTerminal} makes for each kind.
 *
 * @category session
 */
export interface TerminalNodes {
  readonly pty: PtyNode
  readonly tmux: TmuxNode
  readonly wezterm: WeztermNode
}

const requireSession = (api: string, session: unknown): Session => {
  if (!(session instanceof Session)) {
    throw new UsageError(api, `expects a Session, got ${String(session)}`)
  }
  return session
}

/** Registers and starts; a node that fails to start is unregistered again. */
const registerAndStart = async <N extends Node>(
  session: Session,
  node: N,
  name: string,
): Promise<N> => {
  session.register(node, name)
  try {
    await session.start(name)
  } catch (e) {
    session.unregister(name)
    throw e
  }
  return node
}

/**
 * Registers a function node named `name` (its id too) in the session and
 * starts it: it is `ready` when the promise resolves.
 *
 * @category session
 * @example
 * import { createSession } from 'nerve-agents'
 * import { createFunction } from 'nerve-agents/session'
 * import assert from 'assert'
 *
 * const session = createSession()
 * await createFunction(session, 'shout', (ctx) => String(ctx.input).toUpperCase())
 * assert.strictEqual(session.state('shout'), 'ready')
 * assert.strictEqual(await session.execute('shout', 'hi'), 'HI')
 * await session.close()
 */
export const createFunction = <I = unknown, O = unknown>(
  session: Session,
  name: string,
  f: NodeFunction<I, O>,
  options?: NodeOptions,
): Promise<FunctionNode<I, O>> =>
  registerAndStart(requireSession('createFunction', session), fn(name, f, options), name)

/**
 * Registers a graph in the session under `name` (default: its id) and
 * starts it, which starts the persistent nodes inside it.
 *
 * @category session
 */
export const createGraph = (session: Session, g: Graph, name: string = g.id): Promise<Graph> => {
  requireSession('createGraph', session)
  if (!isGraph(g)) throw new UsageError('createGraph', `expects a Graph, got ${String(g)}`)
  return registerAndStart(session, g, name)
}

/**
 * Builds a terminal node of `spec.kind` named `name` (its id too) with the
 * rest of `spec` as its options, registers it and starts it: the program is
 * running and ready when the promise resolves. The session needs an
 * interpreter of that kind (e.g. `ptyInterpreter()` among its
 * `interpreters`); a start that fails rejects with `StartFailed` and leaves
 * the name free.
 *
 * @category session
 */
export const createTerminal = async <S extends TerminalSpec>(
  session: Session,
  name: string,
  spec: S,
): Promise<TerminalNodes[S['kind']]> => {
  requireSession('createTerminal', session)
  if (typeof spec !== 'object' || (spec as unknown) === null) {
    throw new UsageError('createTerminal', 'expects a spec with a kind: pty, tmux or wezterm')
  }
  const node = terminalNode(name, spec)
  if (!session.interpreters.has(node.kind)) {
    throw new UsageError(
      'createTerminal',
      `the session has no interpreter for kind "${node.kind}": give it one in createSession({ interpreters })`,
    )
  }
  return (await registerAndStart(session, node, name)) as TerminalNodes[S['kind']]
}

const TERMINAL_KINDS: readonly string[] = [
  'pty',
  'tmux',
  'wezterm',
] satisfies readonly (keyof TerminalNodes)[]

const terminalNode = (name: string, spec: TerminalSpec): Node => {
  const { kind: word, ...options } = spec as { readonly kind: unknown }
  const kind = typeof word === 'string' ? nodeKinds.resolve(word) : undefined
  if (kind === undefined || !TERMINAL_KINDS.includes(kind.kind)) {
    throw new UsageError(
      'createTerminal',
      `spec.kind must be ${TERMINAL_KINDS.join(', ')}, got ${JSON.stringify(word)}`,
    )
  }
  return kind.build(name, options)
}
