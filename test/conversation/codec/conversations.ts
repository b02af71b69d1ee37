/**
 * A small generator of conversations for the codec tests, built only from
 * the public builders: system prompts, tools, user and assistant messages
 * with every block kind (unknown blocks too), parallel tool calls with their
 * results, stop reasons, sub-conversations, branches and merges. Every step
 * carries a unique number in its text, so that no two different vertices
 * share an id.
 */
import fc from 'fast-check'
import {
  ancestorsOfAll,
  appendTo,
  assistant,
  type Block,
  type Builder,
  type Conversation,
  empty,
  type Meta,
  stop,
  subConversation,
  system,
  type ToolResult,
  toolResults,
  tools,
  user,
  type VertexOptions,
} from 'nerve-agents'
import { type ConversationDocument } from 'nerve-agents/core'

const KNOWN = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'image',
  'compaction',
])

const json = fc.jsonValue({ maxDepth: 2 })
const record = fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 3 })

/** A block the library does not know, kept as `raw`. */
const unknownBlock: fc.Arbitrary<Block> = fc
  .record({
    type: fc.string({ minLength: 1, maxLength: 12 }).filter((t) => !KNOWN.has(t)),
    payload: json,
  })
  .map((raw) => ({ type: 'unknown', raw }))

const block: fc.Arbitrary<Block> = fc.oneof(
  fc.string().map((text): Block => ({ type: 'text', text })),
  fc
    .record({ thinking: fc.string(), signature: fc.string() })
    .map((t): Block => ({ type: 'thinking', ...t })),
  fc.string().map((data): Block => ({ type: 'redacted_thinking', data })),
  fc.string().map((data): Block => ({
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data },
  })),
  fc.string().map((content): Block => ({ type: 'compaction', content })),
  unknownBlock,
)

const content: fc.Arbitrary<string | Block[]> = fc.oneof(
  fc.string(),
  fc.array(block, { maxLength: 3 }),
)

/** Meta with, or without, a number timestamp, and a few other keys. */
export const meta: fc.Arbitrary<Meta | undefined> = fc.option(
  fc
    .tuple(
      record,
      fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
    )
    .map(([m, timestamp]): Meta => {
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(m)) if (k !== 'timestamp') out[k] = v
      if (timestamp !== undefined) out.timestamp = timestamp
      return out
    }),
  { nil: undefined },
)

type Step =
  | { readonly kind: 'system'; readonly text: string }
  | { readonly kind: 'tools'; readonly names: readonly string[] }
  | { readonly kind: 'user' | 'assistant'; readonly content: string | Block[] }
  | {
      readonly kind: 'calls'
      readonly inputs: readonly Record<string, unknown>[]
      readonly errors: readonly boolean[]
    }
  | { readonly kind: 'stop'; readonly reason: string; readonly tokens: number }
  | { readonly kind: 'sub'; readonly steps: readonly Plan[] }
  | { readonly kind: 'branch' }
  | { readonly kind: 'merge'; readonly text: string }

interface Plan {
  readonly step: Step
  readonly meta: Meta | undefined
  /** Which head of the frontier the step applies to (modulo its size); absent: the step's number. */
  readonly at?: number
}

const step = (nested: boolean): fc.Arbitrary<Step> => {
  const flat: fc.Arbitrary<Step>[] = [
    fc.string().map((text): Step => ({ kind: 'system', text })),
    fc
      .array(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 2 })
      .map((names): Step => ({ kind: 'tools', names })),
    content.map((c): Step => ({ kind: 'user', content: c })),
    content.map((c): Step => ({ kind: 'assistant', content: c })),
    fc.array(fc.tuple(record, fc.boolean()), { minLength: 1, maxLength: 3 }).map((cs): Step => ({
      kind: 'calls',
      inputs: cs.map((c) => c[0]),
      errors: cs.map((c) => c[1]),
    })),
    fc
      .tuple(fc.string({ maxLength: 8 }), fc.nat())
      .map(([reason, tokens]): Step => ({ kind: 'stop', reason, tokens })),
    fc.constant<Step>({ kind: 'branch' }),
    fc.string().map((text): Step => ({ kind: 'merge', text })),
  ]
  if (!nested) return fc.oneof(...flat)
  const sub = fc
    .array(fc.record({ step: fc.oneof(...flat), meta }), { minLength: 1, maxLength: 4 })
    .map((steps): Step => ({ kind: 'sub', steps }))
  return fc.oneof(...flat, sub)
}

/** Content that names its step, so that no two steps make the same vertex. */
const unique = (id: string, c: string | Block[]): string | Block[] =>
  typeof c === 'string' ? `${id} ${c}` : [{ type: 'text', text: id }, ...c]

/** Runs a plan; returns the heads it leaves (the frontier, each once). */
const run = (plan: readonly Plan[], tag: string): Conversation[] => {
  let frontier: Conversation[] = []
  plan.forEach((p, n) => {
    const at = p.at ?? n
    const i = frontier.length === 0 ? 0 : at % frontier.length
    const on: Conversation | readonly Conversation[] = frontier[i] ?? empty
    const options: VertexOptions = p.meta === undefined ? {} : { meta: p.meta }
    const id = `${tag}.${n}`
    let builders: Builder[]
    const s = p.step
    switch (s.kind) {
      case 'system':
        builders = [system(`${id} ${s.text}`, options)]
        break
      case 'tools':
        builders = [
          tools(
            s.names.map((name) => ({
              name: `${id}${name}`,
              description: id,
              input_schema: { type: 'object' },
            })),
            options,
          ),
        ]
        break
      case 'user':
        builders = [user(unique(id, s.content), options)]
        break
      case 'assistant':
        builders = [assistant(unique(id, s.content), options)]
        break
      case 'calls': {
        const uses: Block[] = s.inputs.map((input, k) => ({
          type: 'tool_use',
          id: `${id}_${k}`,
          name: 'tool',
          input,
        }))
        const results: ToolResult[] = s.inputs.map((_, k) => ({
          tool_use_id: `${id}_${k}`,
          content:
            k % 2 === 0 ? `${id} result ${k}` : [{ type: 'text', text: `${id} result ${k}` }],
          is_error: s.errors[k] ?? false,
        }))
        builders = [
          assistant([{ type: 'thinking', thinking: id, signature: 's' }, ...uses]),
          toolResults(results, options),
        ]
        break
      }
      case 'stop':
        builders = [stop(s.reason, { input_tokens: s.tokens, output_tokens: n }, options)]
        break
      case 'sub': {
        const heads = run(s.steps, `${id}.sub`)
        builders = [
          subConversation(
            {
              tool_name: 'agent',
              tool_use_id: id,
              system_prompt: id,
              heads,
              summary: id,
              depth: 1,
            },
            options,
          ),
        ]
        break
      }
      case 'branch':
        if (frontier.length > 0) frontier.push(frontier[i]!)
        return
      case 'merge': {
        if (frontier.length < 2) return
        const j = (i + 1) % frontier.length
        const merged = appendTo([frontier[i]!, frontier[j]!], assistant(`${id} ${s.text}`, options))
        frontier = frontier.filter((_, k) => k !== i && k !== j)
        frontier.push(merged)
        return
      }
    }
    const c = appendTo(on, ...builders)
    if (frontier.length === 0) frontier.push(c)
    else frontier[i] = c
  })
  return [...new Set(frontier)]
}

/** Conversations of up to `maxSteps` steps: their heads (one or more). */
export const conversations = (maxSteps = 12): fc.Arbitrary<readonly Conversation[]> =>
  fc
    .array(fc.record({ step: step(true), meta, at: fc.nat() }), {
      minLength: 1,
      maxLength: maxSteps,
    })
    .map((plan) => run(plan, 'c'))

/** Every vertex reachable from `heads` as plain data, by id; sub-conversations as such records too. */
export interface Shape {
  readonly heads: readonly string[]
  readonly vertices: Readonly<Record<string, unknown>>
}

/** The ids, parents, data and meta of every vertex of a conversation, recursively. */
export const shape = (
  heads: readonly Conversation[],
  metaOf: (m: Meta) => Meta = (m) => m,
): Shape => {
  const vertices: Record<string, unknown> = {}
  for (const v of ancestorsOfAll(heads)) {
    if (Object.prototype.hasOwnProperty.call(vertices, v.id)) continue
    const data =
      v.data.type === 'sub_conversation'
        ? { ...v.data, heads: shape(v.data.heads, metaOf) }
        : v.data
    Object.defineProperty(vertices, v.id, {
      value: { parents: v.parents.map((p) => p.id), data, meta: metaOf(v.meta) },
      enumerable: true,
    })
  }
  return { heads: heads.map((h) => h.id), vertices }
}

/**
 * Documents of hundreds of vertices: a long history (some vertices with a
 * timestamp) that carries generated conversations as sub-conversations, and
 * those conversations as further heads; metadata with keys a file also has.
 */
export const longDocuments: fc.Arbitrary<ConversationDocument> = fc
  .tuple(
    fc.integer({ min: 1, max: 900 }),
    fc.array(fc.tuple(fc.nat(), conversations(8)), { maxLength: 6 }),
    fc.dictionary(fc.constantFrom('nodes', 'vertices', 'heads', 'n'), json, { maxKeys: 3 }),
    fc.option(fc.record({ sessionId: fc.string(), createdAt: fc.nat() }), { nil: undefined }),
  )
  .map(([length, subs, metadata, session]) => {
    let c = user('turn 0')(empty)
    for (let i = 1; i < length; i++) {
      c = user(`turn ${i}`, i % 7 === 0 ? { meta: { timestamp: i } } : undefined)(c)
      for (const [at, heads] of subs) {
        if (at % length !== i) continue
        const sub = { tool_name: 'agent', tool_use_id: `t${i}`, system_prompt: 'p', summary: 'ok' }
        c = subConversation({ ...sub, heads })(c)
      }
    }
    return { heads: [c, ...subs.flatMap(([, heads]) => heads)], metadata, ...session }
  })
