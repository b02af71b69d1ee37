import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { nodeKind } from './NodeKind.js'
import { forkCopy, makeNode, EMPTY_METADATA, type Node, type NodeOptions } from './Node.js'
import { requireName } from './name.js'
import { ApprovalPolicyCodec, type ApprovalPolicyValue } from './ApprovalPolicy.js'
import {
  anyString,
  arrayOf,
  bool,
  decodeOptions,
  metadata,
  name,
  nonBlank,
  nonNegativeInteger,
  nonNegativeNumber,
  optionsCodec,
} from './options.js'

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
  /** Which tool calls wait for an approval (see {@link LlmOptions.approvals}). */
  readonly approvals?: ApprovalPolicyValue
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
  /**
   * Which of its tool calls need an approval, where a run-control service
   * asks (the daemon): a rule's `tool` is the tool's name, its `pattern`
   * is matched against the call's `command`, else its `path`, else its
   * arguments as JSON. Default: none (every call runs).
   */
  readonly approvals?: ApprovalPolicyValue
}

const CHOICES: readonly string[] = ['auto', 'any', 'none', 'tool']

const toolChoice = new t.Type<ToolChoice>(
  'ToolChoice',
  (u): u is ToolChoice =>
    t.UnknownRecord.is(u) &&
    typeof u.type === 'string' &&
    CHOICES.includes(u.type) &&
    (u.type !== 'tool' || name.is(u.name)),
  (u, c) => {
    const type = t.UnknownRecord.is(u) ? u.type : undefined
    if (typeof type !== 'string' || !CHOICES.includes(type)) {
      return t.failure(u, c, `must be { type: ${CHOICES.join(' | ')} }`)
    }
    if (type !== 'tool') return t.success(u as ToolChoice)
    const chosen = (u as { name?: unknown }).name
    const checked = name.validate(chosen, t.appendContext(c, 'name', name, chosen))
    return E.isRight(checked) ? t.success(u as ToolChoice) : checked
  },
  t.identity,
)

const names = arrayOf(name, 'tool names')

/** Tool names, each once. */
const toolNames = new t.Type<readonly string[]>(
  'ToolNames',
  (u): u is readonly string[] => names.is(u) && new Set(u).size === u.length,
  (u, c) => {
    const checked = names.validate(u, c)
    if (E.isLeft(checked)) return checked
    return new Set(checked.right).size === checked.right.length
      ? checked
      : t.failure(u, c, 'must name each tool once')
  },
  t.identity,
)

/**
 * The io-ts codec of an LLM node's options: what {@link llm} checks and a
 * graph file's `llm` node is decoded with. Unknown keys fail.
 *
 * @category llm
 */
export const LlmOptionsCodec: t.Type<LlmOptions> = optionsCodec<LlmOptions>(
  'LlmOptions',
  {},
  {
    metadata,
    provider: name,
    model: nonBlank,
    system: anyString,
    tools: toolNames,
    maxToolRounds: nonNegativeInteger,
    toolChoice,
    parallelToolCalls: bool,
    maxTokens: nonNegativeInteger,
    temperature: nonNegativeNumber,
    approvals: ApprovalPolicyCodec,
  },
)

/**
 * An LLM node.
 *
 * @category llm
 * @example
 * import { llm } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const dev = llm('dev', { system: 'You write code.', tools: ['bash', 'read'] })
 * assert.strictEqual(dev.kind, 'llm')
 * assert.strictEqual(dev.provider, 'default')
 * assert.throws(() => llm('dev', { maxToolRounds: -1 }), /maxToolRounds/)
 */
export const llm = (id: string, options: LlmOptions = {}): LlmNode => {
  requireName('llm', 'the node id', id)
  const o = decodeOptions('llm', id, LlmOptionsCodec, options)
  const tools = o.tools ?? []
  const maxToolRounds = o.maxToolRounds ?? 20
  const system = o.system ?? ''
  const provider = o.provider ?? 'default'
  return makeNode<LlmNode>(
    {
      id,
      kind: 'llm',
      persistent: true,
      metadata: o.metadata ?? EMPTY_METADATA,
      provider,
      system,
      tools: [...tools],
      maxToolRounds,
      toolChoice: o.toolChoice ?? { type: 'auto' },
      parallelToolCalls: o.parallelToolCalls ?? true,
      ...(o.model !== undefined && { model: o.model }),
      ...(o.maxTokens !== undefined && { maxTokens: o.maxTokens }),
      ...(o.temperature !== undefined && { temperature: o.temperature }),
      ...(o.approvals !== undefined && { approvals: o.approvals }),
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

/**
 * The `llm` node kind, its data side: its options codec and builder, for graph files,
 * `CREATE_NODE` and stores.
 *
 * @category model
 */
export const llmNodeKind = nodeKind({
  kind: 'llm',
  summary: 'a chat with a model (provider=echo needs no key)',
  options: LlmOptionsCodec,
  build: (id, options) => llm(id, options),
  persistent: true,
  aliases: ['chat', 'model'],
  provides: ['tools'],
  accepts: ['tools'],
})
