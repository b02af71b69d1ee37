import * as E from 'fp-ts/lib/Either.js'
import { heads } from '../dag/traverse.js'
import type {
  Conversation,
  Heads,
  Message,
  SubConversation,
  ToolDefinition,
  ToolExecution,
  Usage,
} from './Entry.js'
import { projectionOf } from './projectionMemo.js'

/*
 * Every projection reads the head's memo (see projectionMemo.ts): the first
 * projection of a head costs the entries since its nearest projected
 * ancestor, a repeated one costs nothing but the copy of the list it answers.
 */

/**
 * The messages of a conversation in causal order: what a provider is sent.
 * Tool executions, stop reasons and sub-conversations are not messages.
 *
 * @category projections
 * @example
 * import { assistant, empty, messages, system, user } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const c = pipe(empty, system('Be brief.'), user('hi'), assistant('hello'))
 * assert.deepStrictEqual(messages(c).map((m) => m.role), ['user', 'assistant'])
 */
export const messages = (on: Heads): readonly Message[] => {
  const m = projectionOf(on)
  return m.messages.slice(0, m.messageCount)
}

/**
 * How many messages a conversation has: `messages(on).length`, without the list.
 *
 * @category projections
 * @example
 * import { assistant, empty, messageCount, user } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * assert.strictEqual(messageCount(pipe(empty, user('hi'), assistant('hello'))), 2)
 */
export const messageCount = (on: Heads): number => projectionOf(on).messageCount

/**
 * The tool executions of a conversation in causal order: one per tool call
 * the agent loop ran, with the tool's name, the call's id and its result.
 *
 * @category projections
 * @example
 * import { assistant, empty, toolExecutions, toolResults, user } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const c = pipe(
 *   empty,
 *   user('time?'),
 *   assistant([{ type: 'tool_use', id: 't', name: 'clock', input: {} }]),
 *   toolResults([{ tool_use_id: 't', content: 'noon' }]),
 * )
 * assert.deepStrictEqual(toolExecutions(c).map((x) => [x.tool_name, x.result]), [['clock', 'noon']])
 */
export const toolExecutions = (on: Heads): readonly ToolExecution[] => {
  const m = projectionOf(on)
  return m.executions.slice(0, m.executionCount)
}

/**
 * The nested conversations (sub-agents' runs) of a conversation, in causal order.
 *
 * @category projections
 */
export const subConversations = (on: Heads): readonly SubConversation[] => {
  const m = projectionOf(on)
  return m.subConversations.slice(0, m.subConversationCount)
}

/**
 * Every system prompt of the history, joined by a blank line; `''` when there is none.
 *
 * @category projections
 * @example
 * import { empty, system, systemPrompt } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * assert.strictEqual(systemPrompt(pipe(empty, system('a'), system('b'))), 'a\n\nb')
 */
export const systemPrompt = (on: Heads): string => projectionOf(on).system

/**
 * The tools a conversation offers: every definition of the history, a later
 * one replacing an earlier one of the same name in its place. The array is frozen.
 *
 * @category projections
 * @example
 * import { empty, toolDefinitions, tools } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const schema = { type: 'object' }
 * const c = pipe(
 *   empty,
 *   tools([{ name: 'read', description: 'old', input_schema: schema }]),
 *   tools([{ name: 'read', description: 'new', input_schema: schema }]),
 * )
 * assert.deepStrictEqual(toolDefinitions(c).map((t) => t.description), ['new'])
 */
export const toolDefinitions = (on: Heads): readonly ToolDefinition[] => projectionOf(on).tools

/**
 * The usage of every stop reason of the history, added up (a frozen value).
 * Optional counts appear when some stop reason reported them.
 *
 * @category projections
 * @example
 * import { empty, stop, usage, user } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const c = pipe(empty, user('a'), stop('end_turn', { input_tokens: 3 }), user('b'), stop('end_turn', { input_tokens: 4 }))
 * assert.strictEqual(usage(c).input_tokens, 7)
 */
export const usage = (on: Heads): Usage => projectionOf(on).usage

/**
 * Why {@link head} found no single head.
 *
 * @category errors
 */
export interface NotSingleHead {
  readonly _tag: 'NotSingleHead'
  /** How many heads there are (0 for none). */
  readonly count: number
  readonly heads: readonly Conversation[]
}

/**
 * The single head of a set of vertices, or a typed error naming how many heads there are.
 *
 * @category projections
 * @example
 * import { child, head, root, type Entry } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const a = root<Entry>({ type: 'system_prompt', content: 'x' })
 * const b = pipe(a, child<Entry>({ type: 'system_prompt', content: 'y' }))
 * assert.deepStrictEqual(head([a, b]), E.right(b))
 * assert.strictEqual(E.isLeft(head([b, root<Entry>({ type: 'system_prompt', content: 'z' })])), true)
 */
export const head = (vs: readonly Conversation[]): E.Either<NotSingleHead, Conversation> => {
  const hs = heads(vs)
  return hs.length === 1
    ? E.right(hs[0]!)
    : E.left({ _tag: 'NotSingleHead', count: hs.length, heads: hs })
}
