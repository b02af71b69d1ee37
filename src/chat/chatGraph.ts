import { pipe } from 'fp-ts/lib/function.js'
import { UsageError } from '../errors.js'
import { addStep, graph, listSteps, type Graph, type Step } from '../graph/index.js'
import { fn, type Node, type NodeRegistry } from '../node/index.js'

/**
 * The id of the step that takes a chat's message in {@link chatGraph}.
 *
 * @category chat
 */
export const CHAT_START = 'start'

/**
 * The id of the agent's step in {@link chatGraph}.
 *
 * @category chat
 */
export const CHAT_AGENT = 'agent'

const isMessage = (u: unknown): boolean =>
  (typeof u === 'string' && u !== '') || (Array.isArray(u) && u.length > 0)

/** The chat start node: passes the message on, refusing what is not one. */
const chatStart = fn('chat-start', (ctx) => {
  if (!isMessage(ctx.input)) {
    throw new UsageError('chat', 'a message is a non-empty string or content blocks')
  }
  return ctx.input
})

/**
 * The canonical graph of a chat that names only an agent: `start`, which
 * takes the message, then `agent`, the node given (an `llm` node), which
 * answers it. Every chat runs a graph; this is the one of a plain chat.
 *
 * @category chat
 * @example
 * import { chatGraph, listSteps, llm } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const g = chatGraph(llm('helper', { system: 'Be brief.' }))
 * assert.deepStrictEqual(listSteps(g).map((s) => s.id), ['start', 'agent'])
 */
export const chatGraph = (agent: Node): Graph =>
  pipe(
    graph('chat'),
    addStep({ id: CHAT_START, node: chatStart }),
    addStep({
      id: CHAT_AGENT,
      node: agent,
      dependsOn: [CHAT_START],
      inputFn: (up) => up[CHAT_START],
    }),
  )

/**
 * Where a chat's conversation lives in its graph: the step of the `llm`
 * node whose head is the chat's (`agent`), or none — a graph without an
 * agent, whose `output` step's result is the answer.
 *
 * @category chat
 */
export type ChatTarget =
  | { readonly type: 'agent'; readonly stepId: string; readonly node: Node }
  | { readonly type: 'output'; readonly stepId: string }

const nodeOf = (step: Step, session: NodeRegistry | undefined): Node | undefined =>
  step.nodeRef !== undefined ? session?.get(step.nodeRef) : step.node

/**
 * Finds a chat's target in its graph: the step named `agent` (an `llm`
 * step), else the one `llm` step that takes the message (no fixed `input`);
 * with none, the step named `output`, else the one step no other depends
 * on. Anything else is a {@link UsageError} naming the steps to choose from.
 *
 * @category chat
 */
export const chatTarget = (
  g: Graph,
  options: {
    readonly agent?: string
    readonly output?: string
    readonly session?: NodeRegistry
  } = {},
): ChatTarget => {
  const api = 'openChat'
  const steps = listSteps(g)
  const byId = new Map(steps.map((s) => [s.id, s]))
  if (options.agent !== undefined) {
    const step = byId.get(options.agent)
    const node = step === undefined ? undefined : nodeOf(step, options.session)
    if (node?.kind !== 'llm') {
      throw new UsageError(api, `options.agent: "${options.agent}" is not an llm step of the graph`)
    }
    return { type: 'agent', stepId: step!.id, node }
  }
  const agents = steps.filter(
    (s) => s.input === undefined && nodeOf(s, options.session)?.kind === 'llm',
  )
  if (agents.length === 1) {
    return { type: 'agent', stepId: agents[0]!.id, node: nodeOf(agents[0]!, options.session)! }
  }
  if (agents.length > 1) {
    throw new UsageError(
      api,
      `the graph has several llm steps that take the message (${agents.map((s) => s.id).join(', ')}): name one with options.agent`,
    )
  }
  if (options.output !== undefined) {
    if (!byId.has(options.output)) {
      throw new UsageError(api, `options.output: the graph has no step "${options.output}"`)
    }
    return { type: 'output', stepId: options.output }
  }
  const used = new Set(steps.flatMap((s) => s.dependsOn))
  const sinks = steps.filter((s) => !used.has(s.id))
  if (sinks.length !== 1) {
    throw new UsageError(
      api,
      `the graph has no llm step and ${sinks.length === 0 ? 'no' : 'several'} last steps${sinks.length > 0 ? ` (${sinks.map((s) => s.id).join(', ')})` : ''}: name the answer's step with options.output`,
    )
  }
  return { type: 'output', stepId: sinks[0]!.id }
}
