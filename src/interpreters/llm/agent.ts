import { append, stop } from '../../conversation/build.js'
import { deepFreeze } from '../../dag/freeze.js'
import type { Conversation, Heads, Message, ToolUseBlock, Usage } from '../../conversation/Entry.js'
import { zeroUsage } from '../../conversation/Entry.js'
import { messages, systemPrompt, toolDefinitions } from '../../conversation/project.js'
import { taggedError, UsageError } from '../../errors.js'
import type { Cancellation, UsageReport } from '../../node/Interpreter.js'
import type { ToolChoice } from '../../node/LlmNode.js'
import type { Clock } from '../../runtime/Clock.js'
import { callTool, toolDefinitionsOf, type Toolbox, type ToolOutput } from '../tools/Tool.js'
import type { ModelDelta, ModelRequest, ModelResponse, Provider } from './Provider.js'
import { retryModelCall, type RetryNotice, type ModelRetryOptions } from './retry.js'
import {
  callOptions,
  cancellationOf,
  NEVER_CANCELLED,
  recordResults,
  runTools,
  toolContext,
  type ToolRound,
} from './toolRound.js'

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
  /**
   * Cancels the run: see {@link runAgent}. A {@link Cancellation} (a runtime
   * step's `ctx.cancellation`) is checked without making its signal, which
   * is made only if a provider or tool reads it.
   */
  readonly signal?: AbortSignal | Cancellation
  readonly retry?: ModelRetryOptions
  /** Where retry waits sleep. Default: the system clock. */
  readonly clock?: Pick<Clock, 'sleep'>
  /** Called after each model call with its tokens, cost and one API call (a runtime's `reportUsage`). */
  readonly onUsage?: (usage: UsageReport) => void
  /** Called for each delta of a streamed answer. */
  readonly onDelta?: (delta: ModelDelta) => void
  readonly onRetry?: (notice: RetryNotice) => void
  /** Called for each tool the model asks for, before the round's tools run. */
  readonly onToolCall?: (call: ToolUseBlock) => void
  /**
   * Called with each tool call's output as it finishes — a call cancelled
   * or not run (past `maxToolRounds`) included — in the order they finish.
   */
  readonly onToolResult?: (call: ToolUseBlock, output: ToolOutput) => void
  /** The sub-agent depth of this conversation (0 at the top), handed to tools. Default: 0. */
  readonly depth?: number
  /**
   * The deepest sub-agent of the run: the top conversation is depth 0, the
   * agents it calls depth 1, theirs depth 2. One limit for the whole run:
   * tools are handed it and sub-agents run under it; a sub-agent call that
   * would go deeper is answered with an error. An integer ≥ 0. Default: 2.
   */
  readonly maxDepth?: number
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
  /**
   * What the run's model calls used, added up, its sub-agents' calls
   * included (also on the stop reason vertex).
   */
  readonly usage: Usage
  /** What the run's model calls cost, its sub-agents' included. */
  readonly cost: number
  /** Model calls that answered, its sub-agents' included. */
  readonly calls: number
  /**
   * The messages of the conversation at the end, in order (what the next
   * call would send): `messages(conversation)`, projected when read.
   */
  readonly messages: readonly Message[]
}

/**
 * A run of the agent loop failed: the provider's error (after retries) is
 * `cause`. `conversation` is the run's last whole turn, closed by an
 * `error` stop reason: never an assistant message with tool uses and no results.
 *
 * @category agent
 */
export class AgentFailed extends taggedError('AgentFailed', 'failed')<{
  /** What the run's calls that answered used before the failure, its sub-agents' included. */
  readonly usage: Usage
  readonly cost: number
  readonly calls: number
}> {
  /** The conversation as it stood when the call failed. */
  readonly conversation: Conversation
  constructor(
    provider: string,
    cause: unknown,
    conversation: Conversation,
    spent: { readonly usage: Usage; readonly cost: number; readonly calls: number } = {
      usage: zeroUsage,
      cost: 0,
      calls: 0,
    },
  ) {
    super(
      `agent: the ${provider} call failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { usage: spent.usage, cost: spent.cost, calls: spent.calls },
      { cause },
    )
    this.conversation = conversation
  }
}

/**
 * A frozen {@link AgentResult} whose `messages` are projected when read. The
 * getter is on the prototype: written in an object literal, it would give
 * each result a hidden class of its own, which keeps the run's conversation
 * alive until the next full collection.
 */
class Finished implements AgentResult {
  constructor(
    readonly conversation: Conversation,
    readonly text: string,
    readonly stopReason: string,
    readonly usage: Usage,
    readonly cost: number,
    readonly calls: number,
  ) {
    Object.freeze(this)
  }

  get messages(): readonly Message[] {
    return messages(this.conversation)
  }
}

/** Adds a usage into a running total, in place. */
const addInto = (total: Record<string, number>, more: Usage): void => {
  for (const k in more) {
    const v = (more as unknown as Record<string, unknown>)[k]
    if (typeof v === 'number') total[k] = (total[k] ?? 0) + v
  }
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
 * The head is the loop's only state: each call sends `messages(head)`,
 * which extends the previous round's memoised projection by the round's
 * new entries. Tools that ran model calls of their own (sub-agents) report
 * what those used, and it counts in the run's usage, cost and calls.
 *
 * @category agent
 * @example
 * import { empty, messages, system, user } from 'nerve-agents'
 * import { runAgent } from 'nerve-agents/interpreters'
 * import { scriptedProvider } from 'nerve-agents/testing'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const model = scriptedProvider(['Hello!'])
 * const result = await runAgent(model, pipe(empty, system('Be kind.'), user('hi')))
 * assert.strictEqual(result.text, 'Hello!')
 * assert.strictEqual(result.stopReason, 'end_turn')
 * assert.deepStrictEqual(messages(result.conversation).map((m) => m.role), ['user', 'assistant'])
 */
export const runAgent = async (
  provider: Provider,
  conversation: Heads,
  options: AgentOptions = {},
): Promise<AgentResult> => {
  const cancel = cancellationOf(options.signal)
  // A function, not the property: the checks come after awaits, which the compiler does not see.
  const aborted = () => cancel.aborted
  const box: Toolbox = options.tools ?? new Map()
  const maxRounds = options.maxToolRounds ?? 20
  const parallel = options.parallelToolCalls ?? true
  const depth = options.depth ?? 0
  const maxDepth = options.maxDepth ?? 2
  if (!Number.isInteger(maxDepth) || maxDepth < 0) {
    throw new UsageError(
      'runAgent',
      `options.maxDepth must be an integer ≥ 0, got ${String(options.maxDepth)}`,
    )
  }
  // The loop appends messages, executions and stops only: the system prompt and tools stay.
  const offered = toolDefinitions(conversation)
  const system = systemPrompt(conversation)
  const offeredTools = offered.length > 0 ? offered : toolDefinitionsOf(box)
  // Built key by key, not spread from a shared base: a spread copy costs more
  // than the rest of a scripted round.
  const requestOf = (history: readonly Message[]): ModelRequest => {
    const r: { -readonly [K in keyof ModelRequest]: ModelRequest[K] } = {
      system,
      messages: history,
      tools: offeredTools,
      parallelToolCalls: parallel,
    }
    if (options.toolChoice !== undefined) r.toolChoice = options.toolChoice
    if (options.model !== undefined) r.model = options.model
    if (options.maxTokens !== undefined) r.maxTokens = options.maxTokens
    if (options.temperature !== undefined) r.temperature = options.temperature
    return r
  }
  const call = callOptions(cancel, options.onDelta)
  const tooling: ToolRound = {
    box,
    cancel,
    depth,
    maxDepth,
    parallel,
    reportUsage: options.onUsage,
    onResult: options.onToolResult,
  }
  const retrying = { retry: options.retry, clock: options.clock, onRetry: options.onRetry }
  let head: Heads = conversation
  // The running total, added to in place; `usedNow` gives a frozen copy.
  const total: Record<string, number> = { ...zeroUsage }
  const usedNow = (): Usage => Object.freeze({ ...total }) as unknown as Usage
  let cost = 0
  let calls = 0
  let lastText = ''
  const finish = (reason: string): AgentResult => {
    const used = usedNow()
    return new Finished(stop(reason, used)(head), lastText, reason, used, cost, calls)
  }
  for (let round = 0; ; round++) {
    if (aborted()) return finish('cancelled')
    const request = requestOf(messages(head))
    let response: ModelResponse
    try {
      response = await provider.call(request, call)
    } catch (first) {
      try {
        response = await retryModelCall(first, provider, request, call, retrying)
      } catch (e) {
        if (aborted()) return finish('cancelled')
        const used = usedNow()
        throw new AgentFailed(provider.name, e, stop('error', used)(head), {
          usage: used,
          cost,
          calls,
        })
      }
    }
    calls++
    addInto(total, response.usage)
    cost += response.cost ?? 0
    options.onUsage?.({
      tokens: response.usage.input_tokens + response.usage.output_tokens,
      apiCalls: 1,
      cost: response.cost ?? 0,
    })
    // Providers give fresh, decoded blocks: frozen in place, they need no defensive copy.
    const content = deepFreeze(response.content)
    const asked = append(Object.freeze({ type: 'message', role: 'assistant', content }))(head)
    head = asked
    lastText = ''
    const uses: ToolUseBlock[] = []
    for (const b of content) {
      if (b.type === 'text') lastText += b.text
      else if (b.type === 'tool_use') uses.push(b)
    }
    if (uses.length === 0) return finish(response.stopReason)
    if (options.onToolCall !== undefined) for (const u of uses) options.onToolCall(u)
    let outputs: readonly ToolOutput[]
    if (round >= maxRounds) {
      outputs = uses.map((u) => ({
        content: `not run: the limit of ${maxRounds} tool rounds was reached before ${u.name}`,
        is_error: true,
      }))
      if (options.onToolResult !== undefined)
        for (let i = 0; i < uses.length; i++) options.onToolResult(uses[i]!, outputs[i]!)
    } else if (cancel === NEVER_CANCELLED && uses.length === 1) {
      // One call that nothing can cancel, the usual round: no bookkeeping around it.
      const out = await callTool(box, uses[0]!, toolContext(tooling, uses[0]!))
      options.onToolResult?.(uses[0]!, out)
      outputs = [out]
    } else outputs = await runTools(uses, tooling)
    for (let i = 0; i < outputs.length; i++) {
      const out = outputs[i]!
      if (out.usage !== undefined) addInto(total, out.usage)
      if (out.cost !== undefined) cost += out.cost
      if (out.calls !== undefined) calls += out.calls
    }
    head = recordResults(asked, uses, outputs)
    if (aborted()) return finish('cancelled')
    if (round >= maxRounds) return finish('max_tool_rounds')
  }
}
