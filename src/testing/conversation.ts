import type fc from 'fast-check'
import type { Conversation } from '../conversation/Entry.js'
import { UsageError } from '../errors.js'
import { buildPlan, planArbitrary, type BlockKind, type Settings } from './conversationPlan.js'

export type { BlockKind } from './conversationPlan.js'

/**
 * What {@link conversation} and {@link conversationHeads} may generate. Every
 * field is optional; the defaults are given with each one.
 *
 * @category arbitraries
 */
export interface ConversationConstraints {
  /** The most vertices along any path from a root to a head; an integer ≥ 1. Default 10. */
  readonly maxDepth?: number
  /**
   * The most children one vertex may have (branches forked from it, or
   * parallel tool calls fanned out from it), and the most roots; an integer ≥ 1.
   * 1 gives a chain. Default 3.
   */
  readonly maxBranches?: number
  /**
   * Whether a vertex may have several parents: merges of branches, and
   * parallel tool calls merged back by `toolResults`. With `false`, each tool
   * step has one call. Default `true`.
   */
  readonly merges?: boolean
  /**
   * The block types message content may use (tool result content included);
   * content without blocks is a string. Tool calls are generated only when
   * both `'tool_use'` and `'tool_result'` are listed. Default: every type but `'unknown'`.
   */
  readonly blockKinds?: readonly BlockKind[]
  /**
   * `true`: tool calls go through `toolResults` (one execution vertex per
   * call, merged into one message of results). `false`: one call at a time,
   * recorded with `execution` and answered by a user message. Needs
   * `'tool_use'` and `'tool_result'` in `blockKinds`. Default `true` when both are listed.
   */
  readonly parallelTools?: boolean
  /** Whether sub-conversation entries (themselves without sub-conversations) appear. Default `true`. */
  readonly subConversations?: boolean
  /** Whether some vertices carry metadata (`model`, `latency_ms`, `note`). Default `false`. */
  readonly withMeta?: boolean
}

const ALL_KINDS: readonly BlockKind[] = [
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'image',
  'compaction',
]
const KEYS: ReadonlySet<string> = new Set<keyof ConversationConstraints>([
  'maxDepth',
  'maxBranches',
  'merges',
  'blockKinds',
  'parallelTools',
  'subConversations',
  'withMeta',
])

const show = (u: unknown): string => (u === undefined ? 'undefined' : JSON.stringify(u))

/**
 * Checks constraints and fills in the defaults; throws a UsageError naming
 * the first bad constraint and its value.
 *
 * @internal
 */
export const settingsOf = (api: string, constraints?: ConversationConstraints): Settings => {
  const fail = (name: string, rule: string, value: unknown): never => {
    throw new UsageError(api, `constraints.${name} must be ${rule}, got ${show(value)}`)
  }
  const given: unknown = constraints ?? {}
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new UsageError(api, `constraints must be an object, got ${show(given)}`)
  }
  for (const key of Object.keys(given)) {
    if (!KEYS.has(key)) {
      throw new UsageError(
        api,
        `unknown constraint ${JSON.stringify(key)} (known: ${[...KEYS].join(', ')})`,
      )
    }
  }
  const c = given as ConversationConstraints
  const count = (name: 'maxDepth' | 'maxBranches', fallback: number): number => {
    const v: unknown = c[name]
    if (v === undefined) return fallback
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      return fail(name, 'an integer of at least 1', v)
    }
    return v
  }
  const flag = (
    name: 'merges' | 'parallelTools' | 'subConversations' | 'withMeta',
    fallback: boolean,
  ): boolean => {
    const v: unknown = c[name]
    if (v === undefined) return fallback
    if (typeof v !== 'boolean') return fail(name, 'a boolean', v)
    return v
  }
  const kinds: unknown = c.blockKinds ?? ALL_KINDS
  if (!Array.isArray(kinds)) return fail('blockKinds', 'an array of block types', kinds)
  for (const [i, k] of (kinds as readonly unknown[]).entries()) {
    if (!ALL_KINDS.includes(k as BlockKind)) {
      return fail(`blockKinds[${i}]`, `one of ${ALL_KINDS.join(', ')}`, k)
    }
  }
  const blockKinds = kinds as readonly BlockKind[]
  const canCallTools = blockKinds.includes('tool_use') && blockKinds.includes('tool_result')
  const parallelTools = flag('parallelTools', canCallTools)
  if (c.parallelTools !== undefined && !canCallTools) {
    throw new UsageError(
      api,
      `constraints.parallelTools needs 'tool_use' and 'tool_result' in constraints.blockKinds, got ${show(blockKinds)}`,
    )
  }
  return {
    maxDepth: count('maxDepth', 10),
    maxBranches: count('maxBranches', 3),
    merges: flag('merges', true),
    blockKinds: [...new Set(blockKinds)],
    parallelTools,
    subConversations: flag('subConversations', true),
    withMeta: flag('withMeta', false),
  }
}

/**
 * An arbitrary of conversations: a head vertex and its history, built only
 * through the public builders, so valid by construction (every tool use is
 * answered exactly once; tool use ids `toolu_1`, `toolu_2`, … are unique
 * within one value). Histories branch, merge and fan out tool calls within
 * the constraints. Values are generated from a plan of operations, so a
 * failing conversation shrinks to a short one. How many operations a plan
 * has follows fast-check's size (`fc.configureGlobal({ baseSize })`), so a
 * large `maxDepth` is reached only with a larger size.
 *
 * @category arbitraries
 * @example
 * import { messages } from 'nerve-agents'
 * import { conversation } from 'nerve-agents/testing'
 * import fc from 'fast-check'
 * import assert from 'assert'
 *
 * const textOnly = conversation({ blockKinds: ['text'] })
 * fc.assert(
 *   fc.property(textOnly, (c) => {
 *     for (const m of messages(c)) {
 *       if (typeof m.content !== 'string') assert.ok(m.content.every((b) => b.type === 'text'))
 *     }
 *   }),
 * )
 */
export const conversation = (constraints?: ConversationConstraints): fc.Arbitrary<Conversation> => {
  const s = settingsOf('conversation', constraints)
  return planArbitrary(s).map((plan) => buildPlan(plan, s).last)
}

/**
 * An arbitrary of sets of heads that share history: the branches of one
 * conversation (and sometimes several roots), none an ancestor of another,
 * never empty. Same constraints as {@link conversation}.
 *
 * @category arbitraries
 * @example
 * import { heads } from 'nerve-agents'
 * import { conversationHeads } from 'nerve-agents/testing'
 * import fc from 'fast-check'
 * import assert from 'assert'
 *
 * const [hs] = fc.sample(conversationHeads({ maxBranches: 2 }), { numRuns: 1, seed: 7 })
 * assert.ok(hs !== undefined && hs.length >= 1)
 * assert.deepStrictEqual(heads(hs), hs)
 */
export const conversationHeads = (
  constraints?: ConversationConstraints,
): fc.Arbitrary<readonly Conversation[]> => {
  const s = settingsOf('conversationHeads', constraints)
  return planArbitrary(s).map((plan) => buildPlan(plan, s).heads)
}
