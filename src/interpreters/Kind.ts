/**
 * A node kind whole: its data side (a `NodeKind`: name, aliases, options
 * codec, builder) with its interpreter side (a factory of its interpreter
 * and its capabilities). An engine is given a list of these; its commands,
 * the CLI, the REPL and the MCP server derive their lists from it.
 */
import { UsageError } from '../errors.js'
import type { Interpreter } from '../node/Interpreter.js'
import { nodeKindsOf, type NodeKind, type NodeKinds } from '../node/NodeKind.js'
import type { Clock } from '../runtime/Clock.js'
import type { RunControl } from '../runtime/RunControl.js'
import type { BashRunHook } from './bash.js'
import type { Provider } from './llm/Provider.js'
import type { Approvals } from './terminal/approvals.js'
import type { TerminalDecorator } from './terminal/Terminal.js'
import type { Tool } from './tools/Tool.js'

/**
 * What an engine may do with a kind's nodes beyond executing them, each a
 * yes or no the faces check instead of naming kinds.
 *
 * @category kinds
 */
export interface Capabilities {
  /** Its interpreter is a `TerminalInterpreter`: a node has a live terminal (write, read the screen, Ctrl-C). */
  readonly terminal: boolean
  /** A node keeps a conversation in its session cell (`{ head }`): it can be read, and forked from a point of it. */
  readonly conversation: boolean
  /** Its interpreter forks a node (`FORK_NODE`). */
  readonly fork: boolean
}

/**
 * What an engine hands each kind's interpreter factory: its clock, its
 * model providers and tools, and the hooks that record history (a terminal
 * decorator, a bash run hook) when the engine records it. A factory takes
 * what it needs and ignores the rest.
 *
 * @category kinds
 */
export interface KindEnv {
  readonly clock?: Clock
  readonly providers: Readonly<Record<string, Provider>>
  readonly tools: readonly Tool[]
  readonly decorate?: TerminalDecorator
  readonly onBashRun?: BashRunHook
  /** Where approvals are asked: LLM nodes' held tool calls, approval gates. */
  readonly control?: RunControl
  /** The session the interpreter serves (named in approval requests). */
  readonly sessionId?: string
  /** Asked about a CLI agent's permission prompt (see {@link Approvals}). */
  readonly onPermission?: NonNullable<Approvals['onRequest']>
}

/**
 * A node kind with its interpreter side. Build one with
 * {@link withInterpreter}.
 *
 * @category kinds
 */
export interface Kind<O = unknown> extends NodeKind<O> {
  readonly capabilities: Capabilities
  /** A new interpreter of this kind (one per session of an engine). */
  interpreter(env: KindEnv): Interpreter
}

/**
 * Kinds by name (and alias): what an engine runs. Build one with
 * {@link kindsOf}.
 *
 * @category kinds
 */
export type Kinds = NodeKinds<Kind>

const NO_CAPABILITIES: Capabilities = Object.freeze({
  terminal: false,
  conversation: false,
  fork: false,
})

/**
 * A {@link Kind}: the data side `node` with the interpreter `factory` and
 * the `capabilities` it has (each `false` unless given).
 *
 * @category kinds
 * @example
 * import { nodeKind } from 'nerve-agents/core'
 * import { withInterpreter } from 'nerve-agents/interpreters'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * const upper = withInterpreter(
 *   nodeKind({
 *     kind: 'upper',
 *     summary: 'answers its input in capitals',
 *     options: t.type({}),
 *     build: (id) => ({ id, kind: 'upper', persistent: false, metadata: {} }),
 *   }),
 *   () => ({ kind: 'upper', execute: (_n, ctx) => String(ctx.input).toUpperCase() }),
 * )
 * assert.strictEqual(upper.capabilities.terminal, false)
 * assert.strictEqual(upper.interpreter({ providers: {}, tools: [] }).kind, 'upper')
 */
export const withInterpreter = <O>(
  node: NodeKind<O>,
  factory: (env: KindEnv) => Interpreter,
  capabilities: Partial<Capabilities> = {},
): Kind<O> => {
  if (typeof factory !== 'function') {
    throw new UsageError('withInterpreter', `kind "${node.kind}": the factory must be a function`)
  }
  const interpreter = (env: KindEnv): Interpreter => {
    const made = factory(env)
    if (made.kind !== node.kind) {
      throw new UsageError(
        'withInterpreter',
        `kind "${node.kind}": the factory made an interpreter of kind "${made.kind}"`,
      )
    }
    return made
  }
  return Object.freeze({
    ...node,
    capabilities: Object.freeze({ ...NO_CAPABILITIES, ...capabilities }),
    interpreter,
  })
}

/**
 * A {@link Kinds} of the given kinds: a kind named again replaces the
 * earlier one (keeping its place), so `kindsOf(...builtinKinds.values(),
 * mine)` is the built-in kinds with yours.
 *
 * @category kinds
 */
export const kindsOf = (...kinds: readonly Kind[]): Kinds => nodeKindsOf(...kinds)
