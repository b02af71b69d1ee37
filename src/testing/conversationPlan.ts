/**
 * The plan behind the conversation arbitraries: a list of plain operations
 * that fast-check generates and shrinks, and an interpreter that turns a plan
 * into vertices using only the public builders. Shrinking a plan drops or
 * simplifies operations, so a failing conversation shrinks to a short one.
 *
 * @internal
 */
import fc from 'fast-check'
import { heads as headsOf } from '../dag/traverse.js'
import type { Meta, VertexOptions } from '../dag/Vertex.js'
import {
  appendTo,
  assistant,
  execution,
  stop,
  subConversation,
  system,
  toolResults,
  tools,
  user,
  type Builder,
  type ToolResult,
} from '../conversation/build.js'
import type {
  Block,
  Content,
  Conversation,
  Role,
  ToolDefinition,
  ToolResultContent,
  ToolUseBlock,
  Usage,
} from '../conversation/Entry.js'
import {
  PLAIN_KINDS,
  STOP_REASONS,
  TOOL_NAMES,
  imageBlock,
  meta,
  plainBlock,
  record,
  shrinkToFirst,
  text,
  textBlock,
  toolDefinition,
  toolInput,
  usage,
  type BlockKind,
} from './entryValues.js'

export type { BlockKind } from './entryValues.js'

/** Constraints with every default filled in. */
export interface Settings {
  readonly maxDepth: number
  readonly maxBranches: number
  readonly merges: boolean
  readonly blockKinds: readonly BlockKind[]
  readonly parallelTools: boolean
  readonly subConversations: boolean
  readonly withMeta: boolean
}

/** One tool call of a tool step: the call and the result it gets. */
export interface PlannedCall {
  readonly name: string
  readonly input: Readonly<Record<string, unknown>>
  readonly content: ToolResultContent
  readonly isError: boolean
  /** Results are handed to `toolResults` sorted by rank, so their order varies. */
  readonly rank: number
}

/** What one operation appends. */
export type Step =
  | { readonly kind: 'system'; readonly content: string; readonly meta?: Meta }
  | { readonly kind: 'tools'; readonly tools: readonly ToolDefinition[]; readonly meta?: Meta }
  | {
      readonly kind: 'message'
      readonly role: Role
      readonly content: Content
      readonly meta?: Meta
    }
  | {
      readonly kind: 'stop'
      readonly reason: string
      readonly usage: Partial<Usage>
      readonly meta?: Meta
    }
  | {
      readonly kind: 'sub'
      readonly toolName: string
      readonly systemPrompt: string
      readonly summary: string
      readonly plan: readonly Op[]
      readonly meta?: Meta
    }
  | {
      readonly kind: 'toolCall'
      readonly preface: readonly Block[]
      readonly calls: readonly PlannedCall[]
      readonly meta?: Meta
    }

/**
 * One operation: a step appended at a point built earlier (`at` counts back
 * from the latest point, so 0 extends the latest), joined with the points
 * of `with` into a merge when there are any.
 */
export interface Op {
  readonly at: number
  readonly with: readonly number[]
  readonly step: Step
}

/** What a plan built. */
export interface Built {
  /** The vertex each applied operation ended on, in order. */
  readonly points: readonly Conversation[]
  /** The vertex of the last applied operation. */
  readonly last: Conversation
  /** The heads of everything built. */
  readonly heads: readonly Conversation[]
}

/** The operations a plan is made of, under the given settings. */
const opArbitrary = (s: Settings, inner: boolean): fc.Arbitrary<Op> => {
  const kinds = new Set(s.blockKinds)
  const plainKinds = PLAIN_KINDS.filter((k) => kinds.has(k))
  const blocks =
    plainKinds.length === 0
      ? undefined
      : fc.array(fc.oneof(...plainKinds.map(plainBlock)), { minLength: 1, maxLength: 3 })
  const content: fc.Arbitrary<Content> =
    blocks === undefined ? text : fc.oneof(shrinkToFirst, { arbitrary: text, weight: 2 }, blocks)
  const resultBlocks = [
    ...(kinds.has('text') ? [textBlock] : []),
    ...(kinds.has('image') ? [imageBlock] : []),
  ]
  const resultContent: fc.Arbitrary<ToolResultContent> =
    resultBlocks.length === 0
      ? text
      : fc.oneof(
          shrinkToFirst,
          { arbitrary: text, weight: 2 },
          fc.array(fc.oneof(...resultBlocks), { minLength: 1, maxLength: 2 }),
        )
  const withMeta = <T extends object>(
    arb: fc.Arbitrary<T>,
  ): fc.Arbitrary<T | (T & { meta: Meta })> =>
    s.withMeta
      ? fc
          .tuple(arb, fc.option(meta, { nil: undefined }))
          .map(([step, m]) => (m === undefined ? step : { ...step, meta: m }))
      : arb

  const message = (role: Role): fc.Arbitrary<Step> =>
    withMeta(record({ kind: fc.constant('message' as const), role: fc.constant(role), content }))
  const steps: fc.WeightedArbitrary<Step>[] = [
    { arbitrary: message('user'), weight: 4 },
    { arbitrary: message('assistant'), weight: 4 },
    {
      arbitrary: withMeta(record({ kind: fc.constant('system' as const), content: text })),
      weight: 1,
    },
    {
      arbitrary: withMeta(
        record({
          kind: fc.constant('tools' as const),
          tools: fc.array(toolDefinition, { minLength: 1, maxLength: 3 }),
        }),
      ),
      weight: 1,
    },
    {
      arbitrary: withMeta(
        record({
          kind: fc.constant('stop' as const),
          reason: fc.constantFrom(...STOP_REASONS),
          usage,
        }),
      ),
      weight: 1,
    },
  ]
  const toolsAllowed = kinds.has('tool_use') && kinds.has('tool_result') && s.maxDepth >= 3
  if (toolsAllowed) {
    const fanOut = s.parallelTools && s.merges ? s.maxBranches : 1
    steps.push({
      arbitrary: withMeta(
        record({
          kind: fc.constant('toolCall' as const),
          preface:
            blocks === undefined
              ? fc.constant([])
              : fc.oneof(shrinkToFirst, fc.constant([]), blocks),
          calls: fc.array(
            record({
              name: fc.constantFrom(...TOOL_NAMES),
              input: toolInput,
              content: resultContent,
              isError: fc.boolean(),
              rank: fc.nat({ max: 7 }),
            }),
            { minLength: 1, maxLength: fanOut },
          ),
        }),
      ),
      weight: 3,
    })
  }
  if (s.subConversations && !inner) {
    const innerOp = opArbitrary(s, true)
    steps.push({
      arbitrary: withMeta(
        record({
          kind: fc.constant('sub' as const),
          toolName: fc.constantFrom(...TOOL_NAMES),
          systemPrompt: text,
          summary: text,
          plan: fc.array(innerOp, { minLength: 1, maxLength: 4 }),
        }),
      ),
      weight: 1,
    })
  }
  // Mostly extend the latest point; sometimes branch from an older one or merge.
  const at = fc.oneof(shrinkToFirst, { arbitrary: fc.constant(0), weight: 4 }, fc.nat({ max: 64 }))
  const joined: fc.Arbitrary<readonly number[]> = s.merges
    ? fc.oneof(
        shrinkToFirst,
        { arbitrary: fc.constant([]), weight: 5 },
        fc.array(fc.nat({ max: 64 }), { minLength: 1, maxLength: 2 }),
      )
    : fc.constant([])
  return record({ at, with: joined, step: fc.oneof(shrinkToFirst, ...steps) })
}

/** Plans of operations under the given settings. */
export const planArbitrary = (s: Settings): fc.Arbitrary<readonly Op[]> =>
  fc.array(opArbitrary(s, false), {
    minLength: 1,
    maxLength: Math.min(2 * s.maxDepth * s.maxBranches, 0x7fffffff),
  })

const optionsOf = (m: Meta | undefined): VertexOptions | undefined =>
  m === undefined ? undefined : { meta: m }

const NO_HEADS = 'no heads'
type Point = Conversation | typeof NO_HEADS

interface Context {
  /** Tool use ids are numbered in the order calls are planned. */
  calls: number
}

const stepDepth = (step: Step): number => (step.kind === 'toolCall' ? 3 : 1)

const builderOf = (step: Step, s: Settings, ctx: Context): Builder => {
  const options = optionsOf(step.meta)
  switch (step.kind) {
    case 'system':
      return system(step.content, options)
    case 'tools':
      return tools(step.tools, options)
    case 'message':
      return (step.role === 'user' ? user : assistant)(step.content, options)
    case 'stop':
      return stop(step.reason, step.usage, options)
    case 'sub': {
      const inner = run(step.plan, { ...s, subConversations: false }, ctx)
      return subConversation(
        {
          tool_name: step.toolName,
          tool_use_id: `toolu_${++ctx.calls}`,
          system_prompt: step.systemPrompt,
          heads: inner.heads,
          summary: step.summary,
        },
        options,
      )
    }
    case 'toolCall': {
      const uses: ToolUseBlock[] = step.calls.map((c) => ({
        type: 'tool_use',
        id: `toolu_${++ctx.calls}`,
        name: c.name,
        input: c.input,
      }))
      const results: ToolResult[] = step.calls.map((c, i) => ({
        tool_use_id: uses[i]!.id,
        content: c.content,
        is_error: c.isError,
      }))
      const asked = assistant([...step.preface, ...uses], options)
      if (s.parallelTools) {
        const order = step.calls.map((c, i) => [c.rank, i] as const).sort((x, y) => x[0] - y[0])
        const shuffled = order.map(([, i]) => results[i]!)
        return (on) => appendTo(on, asked, toolResults(shuffled))
      }
      const use = uses[0]!
      const result = results[0]!
      return (on) =>
        appendTo(
          on,
          asked,
          execution(use.name, result),
          user([
            {
              type: 'tool_result',
              tool_use_id: result.tool_use_id,
              content: result.content,
              is_error: result.is_error ?? false,
            },
          ]),
        )
    }
  }
}

const run = (plan: readonly Op[], s: Settings, ctx: Context): Built => {
  const points: Point[] = [NO_HEADS]
  const depth = new Map<Point, number>([[NO_HEADS, 0]])
  const children = new Map<Point, number>()
  const pick = (back: number): Point => points[points.length - 1 - (back % points.length)]!
  for (const op of plan) {
    const chosen = [...new Set([pick(op.at), ...op.with.map(pick)])]
    const parents = chosen.length > 1 ? chosen.filter((p) => p !== NO_HEADS) : chosen
    const d = Math.max(...parents.map((p) => depth.get(p)!)) + stepDepth(op.step)
    if (d > s.maxDepth || parents.some((p) => (children.get(p) ?? 0) >= s.maxBranches)) continue
    const on: readonly Conversation[] = parents.filter((p) => p !== NO_HEADS)
    const made = builderOf(op.step, s, ctx)(on.length === 1 ? on[0]! : on)
    for (const p of parents) children.set(p, (children.get(p) ?? 0) + 1)
    depth.set(made, d)
    points.push(made)
  }
  const built = points.filter((p) => p !== NO_HEADS)
  // The first operation always applies: it starts from no heads and every
  // step fits in maxDepth (tool steps are only planned when maxDepth >= 3).
  return {
    points: built,
    last: built[built.length - 1]!,
    heads: Object.freeze([...headsOf(built)]),
  }
}

/** Builds the conversation a plan describes, through the public builders only. */
export const buildPlan = (plan: readonly Op[], s: Settings): Built => run(plan, s, { calls: 0 })
