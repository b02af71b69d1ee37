import { append, execution, subConversation } from '../../conversation/build.js'
import type {
  Conversation,
  Message,
  ToolResultBlock,
  ToolUseBlock,
} from '../../conversation/Entry.js'
import type { Cancellation, UsageReport } from '../../node/Interpreter.js'
import { callTool, type ToolContext, type Toolbox, type ToolOutput } from '../tools/Tool.js'
import type { CallOptions, ModelDelta } from './Provider.js'

/**
 * One round of tool calls of the agent loop: running the calls of one
 * assistant message, and recording their results in the conversation.
 *
 * @internal
 */

/** A signal that never aborts: the loop's when the caller gives none. @internal */
export const NEVER: AbortSignal = new AbortController().signal

const stayDeaf = (): void => undefined

/** The cancellation of a loop given no signal: it never happens. @internal */
export const NEVER_CANCELLED: Cancellation = Object.freeze({
  aborted: false,
  signal: NEVER,
  onAbort: () => stayDeaf,
})

/** An `AbortSignal` as a {@link Cancellation}. */
class OfSignal implements Cancellation {
  constructor(readonly signal: AbortSignal) {}

  get aborted(): boolean {
    return this.signal.aborted
  }

  onAbort(listener: () => void): () => void {
    const signal = this.signal
    signal.addEventListener('abort', listener, { once: true })
    return () => {
      signal.removeEventListener('abort', listener)
    }
  }
}

const isCancellation = (u: AbortSignal | Cancellation): u is Cancellation =>
  typeof (u as { onAbort?: unknown }).onAbort === 'function'

/** What the loop reads cancellation from: the signal given, or the cancellation. @internal */
export const cancellationOf = (given: AbortSignal | Cancellation | undefined): Cancellation =>
  given === undefined ? NEVER_CANCELLED : isCancellation(given) ? given : new OfSignal(given)

/** Whether reading the signal of `c` costs nothing: it exists already. */
const made = (c: Cancellation): boolean => c === NEVER_CANCELLED || c instanceof OfSignal

/** A provider call's options whose signal is made only if the provider reads it. */
class LazyCall implements CallOptions {
  readonly #cancel: Cancellation
  declare readonly onDelta?: (delta: ModelDelta) => void
  constructor(cancel: Cancellation, onDelta: ((delta: ModelDelta) => void) | undefined) {
    this.#cancel = cancel
    if (onDelta !== undefined) this.onDelta = onDelta
  }

  get signal(): AbortSignal {
    return this.#cancel.signal
  }

  get aborted(): boolean {
    return this.#cancel.aborted
  }
}

/** The options of the loop's provider calls. @internal */
export const callOptions = (
  cancel: Cancellation,
  onDelta: ((delta: ModelDelta) => void) | undefined,
): CallOptions =>
  !made(cancel)
    ? new LazyCall(cancel, onDelta)
    : onDelta === undefined
      ? { signal: cancel.signal }
      : { signal: cancel.signal, onDelta }

const cancelled = (call: ToolUseBlock): ToolOutput => ({
  content: `cancelled: the run was cancelled before ${call.name} finished`,
  is_error: true,
})

/** What {@link runTools} needs besides the calls. @internal */
export interface ToolRound {
  readonly box: Toolbox
  readonly cancel: Cancellation
  readonly depth: number
  readonly maxDepth: number
  readonly parallel: boolean
  readonly reportUsage: ((usage: UsageReport) => void) | undefined
  /** Told each call's output as it finishes (a cancelled one's at the end). */
  readonly onResult?: ((call: ToolUseBlock, output: ToolOutput) => void) | undefined
}

/** A tool call's context whose signal is made only if the tool reads it. */
class LazyToolContext implements ToolContext {
  readonly #cancel: Cancellation
  readonly toolUseId: string
  readonly depth: number
  readonly maxDepth: number
  declare readonly reportUsage?: (usage: UsageReport) => void
  constructor(round: ToolRound, call: ToolUseBlock) {
    this.#cancel = round.cancel
    this.toolUseId = call.id
    this.depth = round.depth
    this.maxDepth = round.maxDepth
    if (round.reportUsage !== undefined) this.reportUsage = round.reportUsage
  }

  get signal(): AbortSignal {
    return this.#cancel.signal
  }

  get aborted(): boolean {
    return this.#cancel.aborted
  }
}

/** The context a tool call of the round runs with. @internal */
export const toolContext = (round: ToolRound, call: ToolUseBlock): ToolContext => {
  const { cancel, depth, maxDepth, reportUsage } = round
  if (!made(cancel)) return new LazyToolContext(round, call)
  const signal = cancel.signal
  return reportUsage === undefined
    ? { signal, toolUseId: call.id, depth, maxDepth }
    : { signal, toolUseId: call.id, depth, maxDepth, reportUsage }
}

/**
 * Runs the tool calls of one assistant message: in parallel (or one by one),
 * each with the signal; when the signal aborts, the calls not finished are
 * given a cancelled result at once.
 *
 * @internal
 */
export const runTools = async (
  calls: readonly ToolUseBlock[],
  round: ToolRound,
): Promise<readonly ToolOutput[]> => {
  const { box, cancel, parallel } = round
  const outputs: (ToolOutput | undefined)[] = new Array<ToolOutput | undefined>(calls.length)
  const one = async (i: number) => {
    const out = await callTool(box, calls[i]!, toolContext(round, calls[i]!))
    if (!cancel.aborted) {
      outputs[i] = out
      round.onResult?.(calls[i]!, out)
    }
  }
  const all =
    calls.length === 1
      ? one(0)
      : parallel
        ? Promise.all(calls.map((_, i) => one(i)))
        : calls.reduce<Promise<void>>(
            (p, _, i) => p.then(() => (cancel.aborted ? undefined : one(i))),
            Promise.resolve(),
          )
  if (cancel === NEVER_CANCELLED) {
    await all
  } else {
    await new Promise<void>((resolve) => {
      if (cancel.aborted) {
        resolve()
        return
      }
      const off = cancel.onAbort(resolve)
      void all.then(() => {
        off()
        resolve()
      })
    })
  }
  for (let i = 0; i < calls.length; i++) {
    if (outputs[i] !== undefined) continue
    const out = (outputs[i] = cancelled(calls[i]!))
    round.onResult?.(calls[i]!, out)
  }
  return outputs as readonly ToolOutput[]
}

/**
 * Records one round of tool results: a ToolExecution vertex per call, a
 * child of the assistant message (followed by a SubConversation vertex when
 * the tool ran one), merged into one user message of tool_result blocks in
 * call order. Answers the merge: the new head.
 *
 * @internal
 */
export const recordResults = (
  asked: Conversation,
  calls: readonly ToolUseBlock[],
  outputs: readonly ToolOutput[],
): Conversation => {
  const branches: Conversation[] = []
  const blocks: ToolResultBlock[] = []
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!
    const out = outputs[i]!
    const done = execution(call.name, {
      tool_use_id: call.id,
      content: out.content,
      is_error: out.is_error ?? false,
    })(asked)
    const x = done.data as Extract<Conversation['data'], { type: 'tool_execution' }>
    branches.push(
      out.conversation === undefined
        ? done
        : subConversation({ tool_name: call.name, tool_use_id: call.id, ...out.conversation })(
            done,
          ),
    )
    // The execution's copy of the content is frozen: the block can share it.
    blocks.push(
      Object.freeze({
        type: 'tool_result',
        tool_use_id: call.id,
        content: x.result,
        is_error: x.is_error,
      }),
    )
  }
  const message: Message = Object.freeze({
    type: 'message',
    role: 'user',
    content: Object.freeze(blocks),
  })
  return append(message)(branches)
}
