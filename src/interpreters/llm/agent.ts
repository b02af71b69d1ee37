import { append, execution, stop, subConversation } from '../../conversation/build.js'
import { deepFreeze } from '../../dag/freeze.js'
import type {
  Block,
  Conversation,
  Heads,
  Message,
  ToolDefinition,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from '../../conversation/Entry.js'
import { zeroUsage } from '../../conversation/Entry.js'
import { messages, systemPrompt, toolDefinitions } from '../../conversation/project.js'
import type { UsageReport } from '../../node/Interpreter.js'
import type { ToolChoice } from '../../node/LlmNode.js'
import type { Clock } from '../../runtime/Clock.js'
import { callTool, toolDefinitionsOf, type Toolbox, type ToolOutput } from '../tools/Tool.js'
import type { ModelDelta, ModelRequest, ModelResponse, Provider } from './Provider.js'
import { callWithRetry, type RetryNotice, type ModelRetryOptions } from './retry.js'

/**
 * Options of {@link runAgent}.
 *
 * @category agent
 */
export interface AgentOptions {
  /** The tool interpreter: the tools the model may call, by name. Default: none. */
  readonly tools?: Toolbox
  /** The most rounds of tool calls. Default: 20. */
  readonly maxToolRounds?: number
  readonly toolChoice?: ToolChoice
  /** Default: true; false runs one call at a time and tells the model so. */
  readonly parallelToolCalls?: boolean
  readonly model?: string
  readonly maxTokens?: number
  readonly temperature?: number
  /** Cancels the run: see {@link runAgent}. */
  readonly signal?: AbortSignal
  readonly retry?: ModelRetryOptions
  /** Where retry waits sleep. Default: the system clock. */
  readonly clock?: Pick<Clock, 'sleep'>
  /** Called after each model call with its tokens, cost and one API call (a runtime's `reportUsage`). */
  readonly onUsage?: (usage: UsageReport) => void
  /** Called for each delta of a streamed answer. */
  readonly onDelta?: (delta: ModelDelta) => void
  readonly onRetry?: (notice: RetryNotice) => void
  /** The sub-agent depth of this conversation (0 at the top), handed to tools. Default: 0. */
  readonly depth?: number
}

/**
 * What {@link runAgent} answers.
 *
 * @category agent
 */
export interface AgentResult {
  /** The new head: the stop reason vertex that ends the run. */
  readonly conversation: Conversation
  /** The text blocks of the last assistant message, joined. */
  readonly text: string
  /** The model's last stop reason, or `max_tool_rounds`, or `cancelled`. */
  readonly stopReason: string
  /** What the run's model calls used, added up (also on the stop reason vertex). */
  readonly usage: Usage
  readonly cost: number
  /** Model calls that answered. */
  readonly calls: number
  /** The messages of the conversation at the end, in order (what the next call would send). */
  readonly messages: readonly Message[]
}

/**
 * A run of the agent loop failed: the provider's error (after retries) is
 * `cause`. `conversation` is the run's last whole turn, closed by an
 * `error` stop reason: never an assistant message with tool uses and no results.
 *
 * @category agent
 */
export class AgentFailed extends Error {
  readonly _tag = 'AgentFailed'
  readonly conversation: Conversation
  constructor(provider: string, cause: unknown, conversation: Conversation) {
    super(
      `agent: the ${provider} call failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    )
    this.name = 'AgentFailed'
    this.conversation = conversation
  }
}

const NEVER: AbortSignal = new AbortController().signal

const addUsage = (a: Usage, b: Usage): Usage => {
  const out: Record<string, number> = { ...a }
  for (const [k, v] of Object.entries(b)) if (typeof v === 'number') out[k] = (out[k] ?? 0) + v
  return out as unknown as Usage
}

const textOf = (content: readonly Block[]): string =>
  content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('')

const cancelled = (call: ToolUseBlock): ToolOutput => ({
  content: `cancelled: the run was cancelled before ${call.name} finished`,
  is_error: true,
})

/**
 * Runs the tool calls of one assistant message: in parallel (or one by one),
 * each with the signal; when the signal aborts, the calls not finished are
 * given a cancelled result at once.
 */
const runTools = async (
  calls: readonly ToolUseBlock[],
  box: Toolbox,
  signal: AbortSignal,
  depth: number,
  parallel: boolean,
  reportUsage: ((usage: UsageReport) => void) | undefined,
): Promise<readonly ToolOutput[]> => {
  const outputs: (ToolOutput | undefined)[] = calls.map(() => undefined)
  const one = async (i: number) => {
    const call = calls[i]!
    const out = await callTool(box, call, {
      signal,
      toolUseId: call.id,
      depth,
      ...(reportUsage !== undefined && { reportUsage }),
    })
    if (!signal.aborted) outputs[i] = out
  }
  const all = parallel
    ? Promise.all(calls.map((_, i) => one(i)))
    : calls.reduce<Promise<void>>(
        (p, _, i) => p.then(() => (signal.aborted ? undefined : one(i))),
        Promise.resolve(),
      )
  await new Promise<void>((resolve) => {
    if (signal.aborted) {
      resolve()
      return
    }
    const onAbort = () => {
      resolve()
    }
    signal.addEventListener('abort', onAbort, { once: true })
    void all.then(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    })
  })
  return outputs.map((o, i) => o ?? cancelled(calls[i]!))
}

/**
 * Records one round of tool results: a ToolExecution vertex per call, a
 * child of the assistant message (followed by a SubConversation vertex when
 * the tool ran one), merged into one user message of tool_result blocks in
 * call order.
 */
const recordResults = (
  asked: Conversation,
  calls: readonly ToolUseBlock[],
  outputs: readonly ToolOutput[],
): { readonly head: Conversation; readonly message: Message } => {
  const branches = calls.map((call, i) => {
    const out = outputs[i]!
    const done = execution(call.name, {
      tool_use_id: call.id,
      content: out.content,
      is_error: out.is_error ?? false,
    })(asked)
    return out.conversation === undefined
      ? done
      : subConversation({ tool_name: call.name, tool_use_id: call.id, ...out.conversation })(done)
  })
  const message: Message = {
    type: 'message',
    role: 'user',
    content: calls.map((call, i): ToolResultBlock => ({
      type: 'tool_result',
      tool_use_id: call.id,
      content: outputs[i]!.content,
      is_error: outputs[i]!.is_error ?? false,
    })),
  }
  return { head: append(message)(branches), message }
}

/**
 * The agent loop. Calls the provider with the conversation (its system
 * prompt, tool definitions — else the toolbox's — and messages), appends the
 * assistant message, runs the tools it asks for in parallel through the
 * toolbox (each with the signal), records one ToolExecution vertex per call
 * and merges the results in call order; repeats until an answer with no tool
 * use or `maxToolRounds` rounds of tools, and ends with a StopReason vertex
 * carrying the run's usage. Tool uses past the last round are answered with
 * an error result (the conversation stays well-formed) and the stop reason
 * is `max_tool_rounds`.
 *
 * Failed calls are retried per `retry`. Cancelling (the signal) during a
 * model call stops at once with stop reason `cancelled`; during tools, the
 * finished results are kept, the others recorded as cancelled, the merge
 * still recorded, then `cancelled`. A call that fails for good throws
 * {@link AgentFailed}. The conversation passed in is never changed: the
 * answer is a new head sharing its history.
 *
 * @category agent
 * @example
 * import { empty, messages, runAgent, system, user } from 'nerve'
 * import { scriptedProvider } from 'nerve/testing'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const model = scriptedProvider(['Hello!'])
 * const result = await runAgent(model, pipe(empty, system('Be kind.'), user('hi')))
 * assert.strictEqual(result.text, 'Hello!')
 * assert.strictEqual(result.stopReason, 'end_turn')
 * assert.deepStrictEqual(messages(result.conversation).map((m) => m.role), ['user', 'assistant'])
 */
export const runAgent = (
  provider: Provider,
  conversation: Heads,
  options: AgentOptions = {},
): Promise<AgentResult> => runAgentOn(provider, conversation, viewOf(conversation), options)

/**
 * What a model request needs of a conversation: its messages, system
 * prompt and tool definitions. Projecting them walks the history; the LLM
 * interpreter keeps them with the head instead.
 *
 * @internal
 */
export interface ConversationView {
  readonly messages: readonly Message[]
  readonly system: string
  readonly tools: readonly ToolDefinition[]
}

/** The {@link ConversationView} of a conversation, projected. @internal */
export const viewOf = (conversation: Heads): ConversationView => ({
  messages: messages(conversation),
  system: systemPrompt(conversation),
  tools: toolDefinitions(conversation),
})

/**
 * {@link runAgent} given the conversation's view (a caller that keeps it, as
 * the LLM interpreter does, spares projecting the history).
 *
 * @internal
 */
export const runAgentOn = async (
  provider: Provider,
  conversation: Heads,
  view: ConversationView,
  options: AgentOptions,
): Promise<AgentResult> => {
  const signal = options.signal ?? NEVER
  // A function, not the property: the checks come after awaits, which the compiler does not see.
  const aborted = () => signal.aborted
  const box: Toolbox = options.tools ?? new Map()
  const maxRounds = options.maxToolRounds ?? 20
  const parallel = options.parallelToolCalls ?? true
  const depth = options.depth ?? 0
  const msgs = [...view.messages]
  const base = {
    system: view.system,
    tools: view.tools.length > 0 ? view.tools : toolDefinitionsOf(box),
    parallelToolCalls: parallel,
    ...(options.toolChoice !== undefined && { toolChoice: options.toolChoice }),
    ...(options.model !== undefined && { model: options.model }),
    ...(options.maxTokens !== undefined && { maxTokens: options.maxTokens }),
    ...(options.temperature !== undefined && { temperature: options.temperature }),
  }
  let head: Heads = conversation
  let used: Usage = zeroUsage
  let cost = 0
  let calls = 0
  let lastText = ''
  const finish = (reason: string): AgentResult => ({
    conversation: stop(reason, used)(head),
    text: lastText,
    stopReason: reason,
    usage: used,
    cost,
    calls,
    messages: Object.freeze(msgs.slice()),
  })
  for (let round = 0; ; round++) {
    if (aborted()) return finish('cancelled')
    let response: ModelResponse
    try {
      const request: ModelRequest = { ...base, messages: msgs.slice() }
      response = await callWithRetry(
        provider,
        request,
        options.onDelta === undefined ? { signal } : { signal, onDelta: options.onDelta },
        { retry: options.retry, clock: options.clock, onRetry: options.onRetry },
      )
    } catch (e) {
      if (aborted()) return finish('cancelled')
      throw new AgentFailed(provider.name, e, stop('error', used)(head))
    }
    calls++
    used = addUsage(used, response.usage)
    cost += response.cost ?? 0
    options.onUsage?.({
      tokens: response.usage.input_tokens + response.usage.output_tokens,
      apiCalls: 1,
      cost: response.cost ?? 0,
    })
    // Providers give fresh, decoded blocks: frozen in place, they need no defensive copy.
    const content = deepFreeze(response.content)
    const asked = append({ type: 'message', role: 'assistant', content })(head)
    head = asked
    msgs.push(asked.data as Message)
    lastText = textOf(content)
    const uses = content.filter((b): b is ToolUseBlock => b.type === 'tool_use')
    if (uses.length === 0) return finish(response.stopReason)
    const outputs =
      round < maxRounds
        ? await runTools(uses, box, signal, depth, parallel, options.onUsage)
        : uses.map((u) => ({
            content: `not run: the limit of ${maxRounds} tool rounds was reached before ${u.name}`,
            is_error: true,
          }))
    const recorded = recordResults(asked, uses, outputs)
    head = recorded.head
    msgs.push(recorded.message)
    if (aborted()) return finish('cancelled')
    if (round >= maxRounds) return finish('max_tool_rounds')
  }
}
