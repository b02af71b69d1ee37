import { UsageError } from '../errors.js'
import { forkCopy, makeNode, EMPTY_METADATA, type Node, type NodeOptions } from './Node.js'
import { requireName } from './name.js'

/**
 * How the model may use tools: as it likes (`auto`), at least one (`any`),
 * none, or the named one.
 *
 * @category llm
 */
export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'any' }
  | { readonly type: 'none' }
  | { readonly type: 'tool'; readonly name: string }

/**
 * A stateful chat with a model: the description of one agent. Its live state
 * is a conversation head that the session keeps; each execute appends the
 * input as a user message, runs the agent loop and moves the head.
 *
 * The provider and the tools are named, not held: the LLM interpreter
 * resolves them, so the node stays plain data (and a graph file can name it).
 *
 * @category llm
 */
export interface LlmNode extends Node {
  readonly kind: 'llm'
  readonly persistent: true
  /** The provider's name in the LLM interpreter. */
  readonly provider: string
  /** The provider's model name; default: the provider's. */
  readonly model?: string
  /** The system prompt, the conversation's first entry (`''` for none). */
  readonly system: string
  /** The names of the tools it may call, from the interpreter's toolbox. */
  readonly tools: readonly string[]
  /** The most rounds of tool calls in one execute. */
  readonly maxToolRounds: number
  readonly toolChoice: ToolChoice
  /** Whether the model may ask for several tools at once (they then run in parallel). */
  readonly parallelToolCalls: boolean
  readonly maxTokens?: number
  readonly temperature?: number
}

/**
 * Options of {@link llm}.
 *
 * @category llm
 */
export interface LlmOptions extends NodeOptions {
  /** Default: `'default'`. */
  readonly provider?: string
  readonly model?: string
  /** Default: `''`. */
  readonly system?: string
  /** Default: none. */
  readonly tools?: readonly string[]
  /** Default: 20. */
  readonly maxToolRounds?: number
  /** Default: `{ type: 'auto' }`. */
  readonly toolChoice?: ToolChoice
  /** Default: true. */
  readonly parallelToolCalls?: boolean
  readonly maxTokens?: number
  readonly temperature?: number
}

const CHOICES: readonly string[] = ['auto', 'any', 'none', 'tool']

const checkChoice = (id: string, c: unknown): ToolChoice => {
  const type = (c as { type?: unknown } | null)?.type
  if (typeof type !== 'string' || !CHOICES.includes(type)) {
    throw new UsageError(
      'llm',
      `node "${id}": toolChoice.type must be one of ${CHOICES.join(', ')}`,
    )
  }
  if (type === 'tool')
    requireName('llm', `node "${id}": toolChoice.name`, (c as { name?: unknown }).name)
  return c as ToolChoice
}

const positive = (id: string, what: string, n: unknown, integer = true): void => {
  if (typeof n !== 'number' || !(n >= 0) || n === Infinity || (integer && !Number.isInteger(n))) {
    throw new UsageError(
      'llm',
      `node "${id}": ${what} must be a${integer ? 'n integer' : ' number'} ≥ 0, got ${String(n)}`,
    )
  }
}

/**
 * An LLM node.
 *
 * @category llm
 * @example
 * import { llm } from 'nerve'
 * import assert from 'assert'
 *
 * const dev = llm('dev', { system: 'You write code.', tools: ['bash', 'read'] })
 * assert.strictEqual(dev.kind, 'llm')
 * assert.strictEqual(dev.provider, 'default')
 * assert.throws(() => llm('dev', { maxToolRounds: -1 }), /maxToolRounds/)
 */
export const llm = (id: string, options: LlmOptions = {}): LlmNode => {
  requireName('llm', 'the node id', id)
  const provider = requireName('llm', `node "${id}": the provider`, options.provider ?? 'default')
  if (!Array.isArray(options.tools ?? []))
    throw new UsageError('llm', `node "${id}": tools must be an array of names`)
  const tools: readonly string[] = options.tools ?? []
  tools.forEach((t, i) => requireName('llm', `node "${id}": tools[${i}]`, t))
  if (new Set(tools).size !== tools.length) {
    throw new UsageError('llm', `node "${id}": a tool is named twice in tools`)
  }
  const system = options.system ?? ''
  if (typeof system !== 'string')
    throw new UsageError('llm', `node "${id}": system must be a string`)
  const maxToolRounds = options.maxToolRounds ?? 20
  positive(id, 'maxToolRounds', maxToolRounds)
  if (options.maxTokens !== undefined) positive(id, 'maxTokens', options.maxTokens)
  if (options.temperature !== undefined) positive(id, 'temperature', options.temperature, false)
  const toolChoice = checkChoice(id, options.toolChoice ?? { type: 'auto' })
  return makeNode<LlmNode>(
    {
      id,
      kind: 'llm',
      persistent: true,
      metadata: options.metadata ?? EMPTY_METADATA,
      provider,
      system,
      tools: [...tools],
      maxToolRounds,
      toolChoice,
      parallelToolCalls: options.parallelToolCalls ?? true,
      ...(options.model !== undefined && { model: options.model }),
      ...(options.maxTokens !== undefined && { maxTokens: options.maxTokens }),
      ...(options.temperature !== undefined && { temperature: options.temperature }),
    },
    'llm',
  )
}

/**
 * Whether a node is an LLM node.
 *
 * @category guards
 */
export const isLlmNode = (n: Node): n is LlmNode => n.kind === 'llm'

/**
 * The copy of an LLM node for a fork, under a new id, with metadata
 * `{ forked_from, fork_time, fork_message_count }`. The conversation is not
 * part of the node: the interpreter's fork gives the copy its head.
 *
 * @category llm
 */
export const forkLlm =
  (id: string, forkTime: string, messageCount: number) =>
  (node: LlmNode): LlmNode =>
    forkCopy('forkLlm', 'llm', id, forkTime, node, undefined, undefined, {
      fork_message_count: messageCount,
    })
