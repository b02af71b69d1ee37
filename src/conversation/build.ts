import { UsageError } from '../errors.js'
import { deepFreeze } from '../dag/freeze.js'
import { vertex, type VertexOptions } from '../dag/Vertex.js'
import type {
  Block,
  Content,
  Conversation,
  Heads,
  Entry,
  Message,
  Role,
  SubConversation,
  ToolDefinition,
  ToolResultContent,
  ToolUseBlock,
  Usage,
} from './Entry.js'
import { zeroUsage } from './Entry.js'

/**
 * A step that appends to a conversation: to one head, or to several heads at
 * once (a merge, their order kept). An empty array of heads starts a new
 * conversation. Builders are pure: the same builders on the same
 * conversation give vertices with the same ids.
 *
 * @category builders
 */
export type Builder = (on: Heads) => Conversation

/**
 * No heads yet: `pipe(empty, system('…'), user('…'))` starts a conversation.
 *
 * @category builders
 */
export const empty: readonly Conversation[] = Object.freeze([])

const headsOf = (on: Heads): readonly Conversation[] =>
  Array.isArray(on) ? (on as readonly Conversation[]) : [on as Conversation]

/**
 * Appends any entry. The other builders are this one with a checked entry.
 *
 * @category builders
 * @example
 * import { append, empty, messages } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const c = pipe(empty, append({ type: 'message', role: 'user', content: 'hi' }))
 * assert.deepStrictEqual(messages(c), [{ type: 'message', role: 'user', content: 'hi' }])
 */
export const append =
  (entry: Entry, options?: VertexOptions): Builder =>
  (on) =>
    vertex(headsOf(on), entry, options)

/**
 * Applies builders one after another, starting from the chosen heads.
 * With no builders and one head, returns that head.
 *
 * @category builders
 * @example
 * import { appendTo, assistant, empty, messages, system, user } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const base = pipe(empty, system('Be brief.'))
 * const a = pipe(base, user('one'))
 * const b = pipe(base, user('two'))
 * const joined = appendTo([a, b], assistant('both seen'))
 * assert.deepStrictEqual(messages(joined).map((m) => m.content), ['one', 'two', 'both seen'])
 */
export const appendTo = (on: Heads, ...builders: readonly Builder[]): Conversation => {
  const [first, ...rest] = builders
  if (first === undefined) {
    const hs = headsOf(on)
    if (hs.length === 1) return hs[0]!
    throw new UsageError('appendTo', `needs a builder to join ${hs.length} heads into one`)
  }
  return rest.reduce((c, b) => b(c), first(on))
}

/**
 * Appends a system prompt. Several system prompts join with a blank line.
 *
 * @category builders
 */
export const system = (content: string, options?: VertexOptions): Builder => {
  if (typeof content !== 'string') throw new UsageError('system', 'content must be a string')
  return append({ type: 'system_prompt', content }, options)
}

/**
 * Appends tool definitions. With no definitions, returns the conversation unchanged.
 *
 * @category builders
 */
export const tools = (definitions: readonly ToolDefinition[], options?: VertexOptions): Builder => {
  const copied = copyValue('tools', definitions, 'definitions')
  const build = append({ type: 'tool_definitions', tools: copied }, options)
  return (on) => {
    const hs = headsOf(on)
    return copied.length === 0 && hs.length === 1 ? hs[0]! : build(on)
  }
}

// The content is a string or a deeply frozen copy, so freezing the entry here makes it deep
// and spares `vertex` walking it on the append path. The role names the builder in errors.
const message = (role: Role, content: Content, options?: VertexOptions): Builder =>
  append(Object.freeze({ type: 'message', role, content: checkContent(role, content) }), options)

/**
 * Appends a user message: a string, or an array of blocks.
 *
 * @category builders
 * @example
 * import { empty, messages, user } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const c = pipe(empty, user([{ type: 'text', text: 'look' }]))
 * assert.strictEqual(messages(c)[0]?.role, 'user')
 * assert.throws(() => user(['look', { type: 'text', text: 'here' }] as never), /not both/)
 */
export const user = (content: Content, options?: VertexOptions): Builder =>
  message('user', content, options)

/**
 * Appends an assistant message: a string, or an array of blocks.
 *
 * @category builders
 */
export const assistant = (content: Content, options?: VertexOptions): Builder =>
  message('assistant', content, options)

/**
 * The result of one tool call, as given to {@link toolResults} and {@link execution}.
 *
 * @category builders
 */
export interface ToolResult {
  readonly tool_use_id: string
  readonly content: ToolResultContent
  readonly is_error?: boolean
}

/**
 * Records one tool execution on its own vertex.
 *
 * @category builders
 */
export const execution = (toolName: string, result: ToolResult, options?: VertexOptions): Builder =>
  // The result is a string or a deeply frozen copy: freezing the entry here makes it deep.
  append(
    Object.freeze({
      type: 'tool_execution',
      tool_name: toolName,
      tool_use_id: result.tool_use_id,
      result: copyValue('execution', result.content, 'result.content'),
      is_error: result.is_error ?? false,
    }),
    options,
  )

/**
 * The parallel tool pattern. Applied to an assistant message with N tool
 * uses, it fans out to one ToolExecution vertex per call (each a child of the
 * assistant message) and merges them into one user message whose tool_result
 * blocks follow the call order, whatever order `results` come in. Every call
 * needs exactly one result. With no tool uses and no results, returns the
 * conversation unchanged.
 *
 * @category builders
 * @example
 * import { assistant, empty, messages, toolResults, user } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const asked = pipe(
 *   empty,
 *   user('weather in Oslo and Lima?'),
 *   assistant([
 *     { type: 'tool_use', id: 'a', name: 'weather', input: { city: 'Oslo' } },
 *     { type: 'tool_use', id: 'b', name: 'weather', input: { city: 'Lima' } },
 *   ]),
 * )
 * const merged = pipe(
 *   asked,
 *   toolResults([
 *     { tool_use_id: 'b', content: '24°C' },
 *     { tool_use_id: 'a', content: '3°C' },
 *   ]),
 * )
 * assert.strictEqual(merged.parents.length, 2)
 * assert.deepStrictEqual(messages(merged).at(-1)?.content, [
 *   { type: 'tool_result', tool_use_id: 'a', content: '3°C', is_error: false },
 *   { type: 'tool_result', tool_use_id: 'b', content: '24°C', is_error: false },
 * ])
 */
export const toolResults =
  (results: readonly ToolResult[], options?: VertexOptions): Builder =>
  (on) => {
    const hs = headsOf(on)
    const calls = hs.flatMap(toolUsesOf)
    if (calls.length === 0 && results.length === 0 && hs.length === 1) return hs[0]!
    if (calls.length === 0) {
      throw new UsageError(
        'toolResults',
        'the conversation does not end in an assistant message with tool uses',
      )
    }
    const callIds = new Set<string>()
    for (const c of calls) {
      if (callIds.has(c.id))
        throw new UsageError(
          'toolResults',
          `tool use id ${JSON.stringify(c.id)} is used by two calls`,
        )
      callIds.add(c.id)
    }
    const byId = new Map<string, ToolResult>()
    for (const [i, r] of results.entries()) {
      if (!callIds.has(r.tool_use_id)) {
        throw new UsageError(
          'toolResults',
          `results[${i}] answers unknown tool use ${JSON.stringify(r.tool_use_id)}`,
        )
      }
      if (byId.has(r.tool_use_id)) {
        throw new UsageError(
          'toolResults',
          `results[${i}] answers tool use ${JSON.stringify(r.tool_use_id)} twice`,
        )
      }
      byId.set(r.tool_use_id, r)
    }
    const executions = calls.map((call) => {
      const r = byId.get(call.id)
      if (r === undefined) {
        throw new UsageError(
          'toolResults',
          `no result for tool use ${JSON.stringify(call.id)} (${call.name})`,
        )
      }
      return execution(call.name, r)(hs)
    })
    return append(
      {
        type: 'message',
        role: 'user',
        content: executions.map((e) => {
          const x = e.data as Extract<Entry, { type: 'tool_execution' }>
          return {
            type: 'tool_result',
            tool_use_id: x.tool_use_id,
            content: x.result,
            is_error: x.is_error,
          }
        }),
      },
      options,
    )(executions)
  }

/**
 * Appends a stop reason with the usage of the turn.
 *
 * @category builders
 */
export const stop = (
  reason: string,
  usage: Partial<Usage> = {},
  options?: VertexOptions,
): Builder => append({ type: 'stop_reason', reason, usage: { ...zeroUsage, ...usage } }, options)

/**
 * Records a nested conversation (a sub-agent's run) as one entry.
 *
 * @category builders
 */
export const subConversation = (
  sub: Omit<SubConversation, 'type' | 'depth'> & { readonly depth?: number },
  options?: VertexOptions,
): Builder =>
  append(
    { type: 'sub_conversation', ...sub, heads: [...sub.heads], depth: sub.depth ?? 1 },
    options,
  )

/** The tool uses of an assistant message vertex, in call order. */
const toolUsesOf = (c: Conversation): readonly ToolUseBlock[] =>
  c.data.type === 'message' && c.data.role === 'assistant' && typeof c.data.content !== 'string'
    ? c.data.content.filter((b): b is ToolUseBlock => b.type === 'tool_use')
    : []

const BLOCK_TYPES: ReadonlySet<string> = new Set<Block['type']>([
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'image',
  'compaction',
  'unknown',
])

const checkContent = (api: string, content: Content): Message['content'] => {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) {
    throw new UsageError(api, 'content must be a string or an array of blocks')
  }
  const blocks: readonly unknown[] = content
  blocks.forEach((b: unknown, i) => {
    if (typeof b === 'string') {
      throw new UsageError(
        api,
        `content[${i}] is a string among blocks: give one string or an array of blocks, not both (wrap text as { type: 'text', text })`,
      )
    }
    const type = typeof b === 'object' && b !== null ? (b as { type?: unknown }).type : undefined
    if (typeof type !== 'string' || !BLOCK_TYPES.has(type)) {
      throw new UsageError(api, `content[${i}] has unknown block type ${JSON.stringify(type)}`)
    }
  })
  return copyValue<readonly Block[]>(api, content as readonly Block[], 'content')
}

/**
 * Copies a caller's value so that freezing never touches it. A deeply frozen
 * value cannot change and is kept; a value frozen only on top may still hold
 * the caller's mutable objects, so it is copied too.
 */
const copyValue = <T>(api: string, value: T, name: string): T => {
  if (typeof value !== 'object' || value === null || isDeeplyFrozen(value)) return value
  try {
    return deepFreeze(structuredClone(value) as T)
  } catch (e) {
    throw new UsageError(api, `${name} must be plain JSON data: ${String(e)}`)
  }
}

const isDeeplyFrozen = (value: object): boolean => {
  const stack: unknown[] = [value]
  const seen = new Set<object>()
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v !== 'object' || v === null || seen.has(v)) continue
    if (!Object.isFrozen(v)) return false
    seen.add(v)
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key])
  }
  return true
}
