import { appendTo, empty, system, tools as toolsEntry, user } from '../../conversation/build.js'
import type { Content, Conversation, ToolDefinition } from '../../conversation/Entry.js'
import { messageCount, toolDefinitions } from '../../conversation/project.js'
import { isVertex } from '../../dag/Vertex.js'
import { ancestors } from '../../dag/traverse.js'
import { UsageError } from '../../errors.js'
import type {
  ForkContext,
  Interpreter,
  LifecycleContext,
  NodeContext,
} from '../../node/Interpreter.js'
import type { NodeRegistry, StateCell } from '../../node/NodeRegistry.js'
import { forkLlm, type LlmNode } from '../../node/LlmNode.js'
import type { Node } from '../../node/Node.js'
import { systemClock, type Clock } from '../../runtime/Clock.js'
import { withApprovals, type ToolApprovals } from '../tools/approvalTools.js'
import { linkedTools } from '../tools/linkedTools.js'
import { toolbox, type Tool, type Toolbox } from '../tools/Tool.js'
import { runAgent, type AgentResult } from './agent.js'
import { subAgent } from './subAgent.js'
import type { ModelDelta, Provider } from './Provider.js'
import type { ThinkingChunk, ToolCallChunk, ToolResultChunk } from './chunks.js'
import type { ModelRetryOptions } from './retry.js'

/**
 * The live state of an LLM node, as a session's cell keeps it: the
 * conversation head, and nothing else — its messages, system prompt and
 * tools are projections of the head, memoised per head, so a turn does not
 * walk the history again and a fork counts its messages in O(1).
 *
 * @category llm
 */
export interface LlmState {
  readonly head: Conversation
}

/** What a model delta becomes as a step chunk: text as it is, thinking typed, nothing else. */
const chunkOf = (d: ModelDelta): string | ThinkingChunk | undefined =>
  d.type === 'text'
    ? d.text
    : d.type === 'thinking'
      ? Object.freeze({ type: 'thinking' as const, text: d.text })
      : undefined

/**
 * Options of {@link llmInterpreter}.
 *
 * @category llm
 */
export interface LlmInterpreterOptions {
  /** One provider (named `default`), or providers by the names LLM nodes use. */
  readonly providers: Provider | Readonly<Record<string, Provider>>
  /** The tools LLM nodes may name. */
  readonly tools?: Toolbox | readonly Tool[]
  readonly retry?: ModelRetryOptions
  /** Where retries sleep and forks read `fork_time`. Default: the system clock. */
  readonly clock?: Clock
  /**
   * Where the tool calls an LLM node's `approvals` policy holds are asked
   * (see `withApprovals`). Without it, a node's `approvals` is not applied.
   */
  readonly approvals?: Pick<ToolApprovals, 'control' | 'sessionId' | 'timeoutMs'>
}

/**
 * The interpreter of LLM nodes, with access to their conversations.
 *
 * @category llm
 */
export interface LlmInterpreter extends Interpreter<LlmNode> {
  /** The state of an LLM node in a registry (a session), if it has started. */
  state(session: NodeRegistry, nodeId: string): LlmState | undefined
}

/**
 * Reads the LLM state in a session's cell (or an interpreter's own cells,
 * when no session keeps them).
 */
const cellOf = (
  own: Map<string, StateCell>,
  session: NodeRegistry,
  nodeId: string,
): StateCell<LlmState> => {
  const kept = session.cell?.(nodeId)
  if (kept !== undefined) return kept as StateCell<LlmState>
  let cell = own.get(nodeId)
  if (cell === undefined) {
    let value: unknown
    cell = { get: () => value, set: (v) => (value = v) }
    own.set(nodeId, cell)
  }
  return cell as StateCell<LlmState>
}

const isContent = (u: unknown): u is Content => typeof u === 'string' || Array.isArray(u)

/**
 * Whether `head` is a user message still waiting for its answer whose
 * content is `input`: the turn then answers it instead of asking again
 * (what a chat's retry does: a new answer to the same message, a sibling
 * of the old one, sharing the message vertex).
 */
const pending = (head: Conversation, input: Content): boolean => {
  const d = head.data
  if (d.type !== 'message' || d.role !== 'user') return false
  return d.content === input || JSON.stringify(d.content) === JSON.stringify(input)
}

/**
 * The conversation up to the point `at` names: a vertex of it as it is, or
 * the first `at` messages (with the entries that came before the next one).
 */
const pointOf = (state: LlmState, at: ForkContext['at'], api: string): LlmState => {
  if (at === undefined) return state
  const chain = ancestors(state.head)
  if (isVertex(at)) {
    if (!chain.includes(at as Conversation)) {
      throw new UsageError(api, "options.at is not a vertex of the node's conversation")
    }
    return Object.freeze({ head: at as Conversation })
  }
  const count = messageCount(state.head)
  if (!Number.isInteger(at) || at < 0 || at > count) {
    throw new UsageError(
      api,
      `options.at must be a message count from 0 to ${count}, got ${String(at)}`,
    )
  }
  let seen = 0
  let point: Conversation | undefined
  for (const v of chain) {
    if (v.data.type === 'message' && seen++ === at) break
    point = v
  }
  if (point === undefined)
    throw new UsageError(api, 'options.at: nothing comes before the first message')
  return Object.freeze({ head: point })
}

/** Whether two tool definitions say the same (a server listed again gives equal, new ones). */
const sameDefinition = (a: ToolDefinition | undefined, b: ToolDefinition): boolean =>
  a === b ||
  (a !== undefined &&
    a.description === b.description &&
    JSON.stringify(a.input_schema) === JSON.stringify(b.input_schema))

/** The tool definitions of `linked` that `offered` lacks, by `offered` list and `linked` list. */
const lacking = new WeakMap<
  readonly ToolDefinition[],
  WeakMap<readonly Tool[], readonly ToolDefinition[]>
>()

/**
 * The conversation offering `linked` tools too: the head itself when it
 * offers each of them already (by name, an equal definition), else the head
 * with a tool-definitions entry of those it does not. What is missing is
 * worked out once per list of offered definitions (shared by every head
 * until a tools entry changes it) and list of linked tools.
 */
const offering = (head: Conversation, linked: readonly Tool[]): Conversation => {
  if (linked.length === 0) return head
  const offered = toolDefinitions(head)
  let byLinked = lacking.get(offered)
  if (byLinked === undefined) lacking.set(offered, (byLinked = new WeakMap()))
  let missing = byLinked.get(linked)
  if (missing === undefined) {
    const byName = new Map(offered.map((d) => [d.name, d]))
    missing = linked
      .filter((x) => !sameDefinition(byName.get(x.definition.name), x.definition))
      .map((x) => x.definition)
    byLinked.set(linked, missing)
  }
  return missing.length === 0 ? head : toolsEntry(missing)(head)
}

/**
 * Runs LLM nodes. Each node's state is a conversation head kept in the
 * session's cell for the node: `start` writes the first one (the system
 * prompt and the definitions of the node's tools), `execute` appends the
 * step's input (a string or content blocks) as a user message, runs
 * {@link runAgent} with the node's settings and the step's signal, reports
 * usage to the run's budget, moves the head and answers the assistant's
 * text. Its tools are the ones it names from the interpreter's toolbox and
 * those of the steps linked to it under `tools` (toolsets, MCP servers,
 * other agents, any kind whose `materialize` gives tools), resolved when the
 * step runs; tools that arrive by link are offered to the model by a
 * tool-definitions entry before the message, when the conversation does not
 * offer them yet. A head that is a user message with the step's input as
 * its content (left unanswered, set there on purpose) is answered as it is,
 * not asked again. An input of `null` readies the node without a turn (what
 * the step of an agent that only serves as another's sub-agent is given).
 * While the model answers, its text streams as string step chunks and
 * its visible reasoning as {@link ThinkingChunk}s, with a
 * {@link ToolCallChunk} when the model asks for a tool, and a
 * {@link ToolResultChunk} when it finishes. Executes on one node are
 * queued, never interleaved. A failed turn
 * leaves the head where it was; a cancelled one moves it to the recorded
 * cancellation.
 *
 * `materialize` makes the node a tool of the steps that link to it: a
 * {@link subAgent} named after the node (described by its
 * `metadata.description`, else its system prompt) that runs the node's
 * model, prompt and tools — linked ones too — on a fresh conversation per
 * task; its usage counts in the calling agent's.
 *
 * `fork` gives the copy the same head in O(1) — the history is shared — or
 * the point `at` names (a vertex of the conversation, or a message count).
 *
 * @category llm
 */
export const llmInterpreter = (options: LlmInterpreterOptions): LlmInterpreter => {
  const api = 'llmInterpreter'
  const providers: Readonly<Record<string, Provider>> =
    typeof (options.providers as Provider).call === 'function'
      ? { default: options.providers as Provider }
      : (options.providers as Readonly<Record<string, Provider>>)
  const box: Toolbox =
    options.tools === undefined
      ? new Map()
      : Array.isArray(options.tools)
        ? toolbox(...(options.tools as readonly Tool[]))
        : (options.tools as Toolbox)
  const clock = options.clock ?? systemClock
  const own = new Map<string, StateCell>()
  /** Per registry and node: executes not settled yet, and the promise the next waits for. */
  interface Queue {
    pending: number
    tail: Promise<void> | undefined
  }
  const queues = new WeakMap<NodeRegistry, Map<string, Queue>>()

  const resolved = new WeakMap<LlmNode, { readonly provider: Provider; readonly tools: Toolbox }>()
  const checked = (node: LlmNode) => {
    const known = resolved.get(node)
    if (known !== undefined) return known
    if ((node as Node).kind !== 'llm')
      throw new UsageError(api, `node "${node.id}" is a ${node.kind} node, not llm`)
    const provider = providers[node.provider]
    if (provider === undefined) {
      throw new UsageError(
        api,
        `node "${node.id}": no provider named "${node.provider}" (there are: ${Object.keys(providers).join(', ') || 'none'})`,
      )
    }
    const missing = node.tools.filter((t) => !box.has(t))
    if (missing.length > 0) {
      throw new UsageError(
        api,
        `node "${node.id}": no tool named ${missing.map((m) => `"${m}"`).join(', ')} (there are: ${[...box.keys()].join(', ') || 'none'})`,
      )
    }
    const found = { provider, tools: new Map(node.tools.map((t) => [t, box.get(t)!])) }
    resolved.set(node, found)
    return found
  }

  const initial = (node: LlmNode, tools: Toolbox): LlmState => {
    const definitions = [...tools.values()].map((t) => t.definition)
    return Object.freeze({
      head: appendTo(
        empty,
        ...(node.system === '' ? [] : [system(node.system)]),
        toolsEntry(definitions),
      ),
    })
  }

  const stateOf = (node: LlmNode, session: NodeRegistry, tools: Toolbox): StateCell<LlmState> => {
    const cell = cellOf(own, session, node.id)
    if (cell.get() === undefined) cell.set(initial(node, tools))
    return cell
  }

  /** A node's toolbox with linked tools, by its own toolbox and the linked list (stable while the links give the same tools). */
  const withLinked = new WeakMap<Toolbox, WeakMap<readonly Tool[], Toolbox>>()
  /** A toolbox whose calls a node's approvals policy decides, by toolbox and node. */
  const guarded = new WeakMap<Toolbox, WeakMap<LlmNode, Toolbox>>()

  /** The tools of a turn of `node`: its own, the linked ones, behind its approvals. */
  const toolsOf = (node: LlmNode, own: Toolbox, linked: readonly Tool[]): Toolbox => {
    let all = own
    if (linked.length > 0) {
      let byLinked = withLinked.get(own)
      if (byLinked === undefined) withLinked.set(own, (byLinked = new WeakMap()))
      let known = byLinked.get(linked)
      if (known === undefined) byLinked.set(linked, (known = toolbox(...own.values(), ...linked)))
      all = known
    }
    const guard = options.approvals
    if (guard === undefined || node.approvals === undefined) return all
    let byNode = guarded.get(all)
    if (byNode === undefined) guarded.set(all, (byNode = new WeakMap()))
    let held = byNode.get(node)
    if (held === undefined) {
      const policy = node.approvals
      held = toolbox(...withApprovals([...all.values()], { ...guard, nodeId: node.id, policy }))
      byNode.set(node, held)
    }
    return held
  }

  /**
   * Runs `work` once the executes of the node queued before it have
   * settled: at once when none is pending (no promise is spent waiting).
   */
  const queued = <T>(session: NodeRegistry, id: string, work: () => Promise<T>): Promise<T> => {
    let byId = queues.get(session)
    if (byId === undefined) queues.set(session, (byId = new Map<string, Queue>()))
    let q = byId.get(id)
    if (q === undefined) byId.set(id, (q = { pending: 0, tail: undefined }))
    const queue = q
    const mine = queue.pending === 0 ? work() : queue.tail!.then(work, work)
    queue.pending++
    const settled = (): void => {
      if (--queue.pending === 0) queue.tail = undefined
    }
    queue.tail = mine.then(settled, settled)
    return mine
  }

  return Object.freeze({
    kind: 'llm' as const,
    state: (session: NodeRegistry, nodeId: string) => cellOf(own, session, nodeId).get(),
    start(node: LlmNode, ctx: LifecycleContext): Promise<void> {
      stateOf(node, ctx.session, checked(node).tools)
      return Promise.resolve()
    },
    stop(): Promise<void> {
      return Promise.resolve()
    },
    execute(node: LlmNode, ctx: NodeContext): Promise<string | null> {
      const { provider, tools: own } = checked(node)
      if (ctx.input === null) return Promise.resolve(null)
      if (!isContent(ctx.input)) {
        throw new UsageError(
          api,
          `node "${node.id}": the input must be a string or content blocks, got ${typeof ctx.input}`,
        )
      }
      const input = ctx.input
      return queued(ctx.session, node.id, async () => {
        const linked = await linkedTools(ctx)
        const tools = toolsOf(node, own, linked)
        const cell = stateOf(node, ctx.session, own)
        const head = cell.get()!.head
        const asked = pending(head, input)
          ? offering(head, linked)
          : user(input)(offering(head, linked))
        const result: AgentResult = await runAgent(provider, asked, {
          tools,
          maxToolRounds: node.maxToolRounds,
          toolChoice: node.toolChoice,
          parallelToolCalls: node.parallelToolCalls,
          signal: ctx.cancellation ?? ctx.signal,
          clock,
          onUsage: (u) => {
            ctx.reportUsage(u)
          },
          onDelta: (d) => {
            const chunk = chunkOf(d)
            if (chunk !== undefined) ctx.emit(chunk)
          },
          onToolCall: (c) => {
            ctx.emit(
              Object.freeze<ToolCallChunk>({
                type: 'tool_call',
                id: c.id,
                name: c.name,
                input: c.input,
              }),
            )
          },
          onToolResult: (c, out) => {
            ctx.emit(
              Object.freeze<ToolResultChunk>({
                type: 'tool_result',
                id: c.id,
                name: c.name,
                content: out.content,
                isError: out.is_error ?? false,
              }),
            )
          },
          ...(options.retry !== undefined && { retry: options.retry }),
          ...(node.model !== undefined && { model: node.model }),
          ...(node.maxTokens !== undefined && { maxTokens: node.maxTokens }),
          ...(node.temperature !== undefined && { temperature: node.temperature }),
        })
        cell.set(Object.freeze({ head: result.conversation }))
        if (result.stopReason === 'cancelled') throw ctx.signal.reason
        return result.text
      })
    },
    async materialize(node: LlmNode, _output: unknown, ctx: NodeContext): Promise<Tool> {
      const { provider, tools: own } = checked(node)
      const linked = await linkedTools(ctx)
      const described = node.metadata.description
      return subAgent({
        name: node.id,
        description:
          typeof described === 'string'
            ? described
            : node.system !== ''
              ? node.system
              : `Hands a task to the agent "${node.id}".`,
        provider,
        system: node.system,
        tools: linked.length === 0 ? own : toolbox(...own.values(), ...linked),
        maxToolRounds: node.maxToolRounds,
        toolChoice: node.toolChoice,
        parallelToolCalls: node.parallelToolCalls,
        clock,
        ...(options.retry !== undefined && { retry: options.retry }),
        ...(node.model !== undefined && { model: node.model }),
        ...(node.maxTokens !== undefined && { maxTokens: node.maxTokens }),
        ...(node.temperature !== undefined && { temperature: node.temperature }),
      })
    },
    fork(node: LlmNode, id: string, ctx: ForkContext): Promise<LlmNode> {
      return new Promise((resolve) => {
        resolve(forkNow(node, id, ctx))
      })
    },
  })

  function forkNow(node: LlmNode, id: string, ctx: ForkContext): LlmNode {
    const { tools } = checked(node)
    const from = pointOf(stateOf(node, ctx.session, tools).get()!, ctx.at, api)
    const time = ctx.time ?? new Date(clock.now()).toISOString()
    const copy = forkLlm(id, time, messageCount(from.head))(node)
    cellOf(own, ctx.session, id).set(from)
    return copy
  }
}
