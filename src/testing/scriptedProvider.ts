import type { Block, ToolUseBlock, Usage } from '../conversation/Entry.js'
import { zeroUsage } from '../conversation/Entry.js'
import { taggedError, UsageError } from '../errors.js'
import type {
  CallOptions,
  ModelRequest,
  ModelResponse,
  Provider,
} from '../interpreters/llm/Provider.js'
import { ProviderError } from '../interpreters/llm/ProviderError.js'

/**
 * One scripted answer: the assistant's content (a string is one text
 * block), and optionally its stop reason (default `tool_use` when it asks
 * for tools, else `end_turn`), usage, cost and a delay before it arrives.
 * `error` makes the call fail instead (a {@link ProviderError} to test retries).
 *
 * @category scripted
 */
export interface ScriptedTurn {
  readonly content?: string | readonly Block[]
  readonly stopReason?: string
  readonly usage?: Partial<Usage>
  readonly cost?: number
  /** Milliseconds (real time) before the answer; the call's signal cuts it short. */
  readonly delayMs?: number
  readonly error?: Error
}

/**
 * What a script holds for one call: a turn, its content alone, or a function
 * of the request (and the call's index) that gives one — to answer from the
 * tool results the model has seen.
 *
 * @category scripted
 */
export type ScriptedReply =
  | string
  | readonly Block[]
  | ScriptedTurn
  | ((request: ModelRequest, index: number) => string | readonly Block[] | ScriptedTurn)

/**
 * Options of {@link scriptedProvider}.
 *
 * @category scripted
 */
export interface ScriptedProviderOptions {
  /** Default: `'scripted'`. */
  readonly name?: string
  /** Start again at the first reply when the script runs out. Default: false. */
  readonly loop?: boolean
  /** The usage of a turn that gives none. Default: zero. */
  readonly usage?: Partial<Usage>
  /**
   * How many of the latest requests `requests` keeps. Default: all. A
   * looping script that answers for a long time (a soak test, a benchmark)
   * keeps few or none: each request holds the whole conversation sent.
   */
  readonly keep?: number
}

/**
 * A provider that answers from a script, and the requests it was sent.
 *
 * @category scripted
 */
export interface ScriptedProvider extends Provider {
  /** Every request, in order (the latest `keep` of them, with that option). */
  readonly requests: readonly ModelRequest[]
  /** How many calls took a reply of the script (one that fails counts). */
  readonly calls: number
  /** How many replies are left (Infinity when looping). */
  readonly remaining: number
}

/**
 * The script ran out: the workflow called the model more often than planned.
 *
 * @category scripted
 */
export class ScriptExhausted extends taggedError('ScriptExhausted', 'failed', ProviderError)<{
  readonly provider: string
  readonly retryable: boolean
  readonly calls: number
}> {
  constructor(provider: string, calls: number) {
    super(`${provider}: the script has no reply for call ${calls + 1}`, {
      provider,
      retryable: false,
      calls,
    })
  }
}

/**
 * A text block.
 *
 * @category scripted
 */
export const text = (t: string): Block => ({ type: 'text', text: t })

/**
 * A tool use block. Without an id, the provider numbers it
 * (`call_<call>_<position>`), so ids are unique and the same on every run.
 *
 * @category scripted
 */
export const toolUse = (
  name: string,
  input: Readonly<Record<string, unknown>> = {},
  id = '',
): ToolUseBlock => ({ type: 'tool_use', id, name, input })

const wait = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error)
      return
    }
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      if (signal.aborted) reject(signal.reason as Error)
      else resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })

const checkScript = (script: unknown): void => {
  if (!Array.isArray(script)) {
    throw new UsageError('scriptedProvider', 'the script must be an array of replies')
  }
}

const isScriptFunction = (
  r: ScriptedReply,
): r is (request: ModelRequest, index: number) => string | readonly Block[] | ScriptedTurn =>
  typeof r === 'function'

const turnOf = (reply: string | readonly Block[] | ScriptedTurn): ScriptedTurn =>
  typeof reply === 'string' || Array.isArray(reply)
    ? { content: reply as string | readonly Block[] }
    : (reply as ScriptedTurn)

/**
 * A deterministic model: each call answers with the next reply of the
 * script. The default provider of the demo and of users' tests; it streams
 * text, thinking and tool-use deltas to `onDelta` like a real provider.
 *
 * @category scripted
 * @example
 * import { scriptedProvider, toolUse } from 'nerve-agents/testing'
 * import assert from 'assert'
 *
 * const model = scriptedProvider([[toolUse('bash', { command: 'ls' })], 'Done.'])
 * const signal = new AbortController().signal
 * const ask = { system: '', messages: [], tools: [] }
 * const first = await model.call(ask, { signal })
 * assert.strictEqual(first.stopReason, 'tool_use')
 * assert.deepStrictEqual((await model.call(ask, { signal })).content, [{ type: 'text', text: 'Done.' }])
 */
export const scriptedProvider = (
  script: readonly ScriptedReply[],
  options: ScriptedProviderOptions = {},
): ScriptedProvider => {
  checkScript(script)
  const keep = options.keep
  if (keep !== undefined && !(keep === Infinity || (Number.isInteger(keep) && keep >= 0))) {
    throw new UsageError('scriptedProvider', `options.keep must be a whole number ≥ 0, got ${keep}`)
  }
  return new Scripted(script, options)
}

/**
 * The provider {@link scriptedProvider} makes. `remaining` is a getter on the
 * prototype: written in an object literal, it would give each provider a
 * hidden class of its own, which keeps every request it saw alive until the
 * next full collection.
 */
class Scripted implements ScriptedProvider {
  readonly name: string
  readonly requests: ModelRequest[] = []
  readonly #script: readonly ScriptedReply[]
  readonly #loop: boolean
  readonly #base: Usage
  readonly #keep: number
  #calls = 0

  constructor(script: readonly ScriptedReply[], options: ScriptedProviderOptions) {
    this.name = options.name ?? 'scripted'
    this.#script = script
    this.#loop = options.loop === true
    this.#base = { ...zeroUsage, ...options.usage }
    this.#keep = options.keep ?? Infinity
  }

  get remaining(): number {
    return this.#loop ? Infinity : Math.max(0, this.#script.length - this.#calls)
  }

  get calls(): number {
    return this.#calls
  }

  /** A field, not a method: a provider's `call` handed on by itself still works, as before. */
  readonly call = async (request: ModelRequest, call: CallOptions): Promise<ModelResponse> => {
    // Read without making a signal the caller makes lazily: only a delay waits on it.
    if (call.aborted ?? call.signal.aborted) call.signal.throwIfAborted()
    const { name, requests } = this
    const script = this.#script
    const index = this.#calls
    if (index >= script.length && (!this.#loop || script.length === 0)) {
      throw new ScriptExhausted(name, index)
    }
    this.#calls++
    if (this.#keep > 0) {
      if (requests.length >= this.#keep) requests.shift()
      requests.push(request)
    }
    const reply = script[index % script.length]!
    const turn = turnOf(isScriptFunction(reply) ? reply(request, index) : reply)
    if (turn.delayMs !== undefined && turn.delayMs > 0) await wait(turn.delayMs, call.signal)
    if (turn.error !== undefined) throw turn.error
    const raw = turn.content ?? ''
    const blocks: readonly Block[] = typeof raw === 'string' ? [text(raw)] : raw
    let n = 0
    // A literal, not a spread: V8 freezes a spread copy on a slow path (a new map each time).
    const content = blocks.map((b): Block =>
      b.type === 'tool_use' && b.id === ''
        ? { type: 'tool_use', id: `call_${index}_${n++}`, name: b.name, input: b.input }
        : b,
    )
    if (call.onDelta !== undefined) {
      for (const b of content) {
        if (b.type === 'text') call.onDelta({ type: 'text', text: b.text })
        else if (b.type === 'thinking') call.onDelta({ type: 'thinking', text: b.thinking })
        else if (b.type === 'tool_use') call.onDelta({ type: 'tool_use', id: b.id, name: b.name })
      }
    }
    const asksTools = content.some((b) => b.type === 'tool_use')
    return {
      content,
      stopReason: turn.stopReason ?? (asksTools ? 'tool_use' : 'end_turn'),
      usage: turn.usage === undefined ? this.#base : { ...this.#base, ...turn.usage },
      ...(turn.cost !== undefined && { cost: turn.cost }),
      model: request.model ?? name,
    }
  }
}
