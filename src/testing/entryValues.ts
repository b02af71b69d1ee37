/**
 * The values that go into generated entries: text, blocks, tool inputs,
 * usage, tool definitions, metadata. Plain JSON-shaped data with ordinary
 * prototypes, so they survive `structuredClone` and a JSON round trip.
 *
 * @internal
 */
import fc from 'fast-check'
import type { Meta } from '../dag/Vertex.js'
import { UsageError } from '../errors.js'
import type { Block, ImageBlock, TextBlock, ToolDefinition, Usage } from '../conversation/Entry.js'

/**
 * A block type the conversation arbitraries may put in message content.
 *
 * @category arbitraries
 */
export type BlockKind = Exclude<Block['type'], 'unknown'>

export const TOOL_NAMES = ['read', 'write', 'search', 'bash', 'fetch'] as const
const MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
export const STOP_REASONS = ['end_turn', 'tool_use', 'max_tokens', 'stop_sequence'] as const
export const PLAIN_KINDS: readonly BlockKind[] = [
  'text',
  'thinking',
  'redacted_thinking',
  'image',
  'compaction',
]

/** Lets a failing value shrink to the first, simplest choice (a string, a user message, the latest point). */
export const shrinkToFirst: fc.OneOfConstraints = { withCrossShrink: true }

export const record = <T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> =>
  fc.record(model, { noNullPrototype: true })

export const text: fc.Arbitrary<string> = fc.oneof(
  shrinkToFirst,
  { arbitrary: fc.string({ maxLength: 24 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }), weight: 1 },
)
const base64 = fc.base64String({ maxLength: 24 })

export const textBlock: fc.Arbitrary<TextBlock> = record({
  type: fc.constant('text' as const),
  text,
})
export const imageBlock: fc.Arbitrary<ImageBlock> = record({
  type: fc.constant('image' as const),
  source: record({
    type: fc.constant('base64' as const),
    media_type: fc.constantFrom(...MEDIA_TYPES),
    data: base64,
  }),
})

export const plainBlock = (kind: BlockKind): fc.Arbitrary<Block> => {
  switch (kind) {
    case 'text':
      return textBlock
    case 'image':
      return imageBlock
    case 'thinking':
      return record({ type: fc.constant('thinking' as const), thinking: text, signature: base64 })
    case 'redacted_thinking':
      return record({ type: fc.constant('redacted_thinking' as const), data: base64 })
    case 'compaction':
      return record({ type: fc.constant('compaction' as const), content: text })
    default:
      throw new UsageError('plainBlock', `not a plain block kind: ${kind}`)
  }
}

// JSON as JSON.parse gives it: plain objects, no -0.
const json: fc.Arbitrary<unknown> = fc
  .jsonValue({ maxDepth: 2 })
  .map((v) => JSON.parse(JSON.stringify(v)) as unknown)

export const toolInput: fc.Arbitrary<Readonly<Record<string, unknown>>> = fc.dictionary(
  fc.oneof(fc.constantFrom('path', 'query', 'n'), fc.string({ maxLength: 8 })),
  json,
  { maxKeys: 3, noNullPrototype: true },
)

export const usage: fc.Arbitrary<Partial<Usage>> = fc.record(
  {
    input_tokens: fc.nat({ max: 100_000 }),
    output_tokens: fc.nat({ max: 100_000 }),
    cache_creation_input_tokens: fc.nat({ max: 100_000 }),
    cache_read_input_tokens: fc.nat({ max: 100_000 }),
    reasoning_tokens: fc.nat({ max: 100_000 }),
    cached_tokens: fc.nat({ max: 100_000 }),
    total_tokens: fc.nat({ max: 200_000 }),
  },
  { requiredKeys: [], noNullPrototype: true },
)

export const toolDefinition: fc.Arbitrary<ToolDefinition> = fc
  .tuple(fc.constantFrom(...TOOL_NAMES), text, fc.boolean())
  .map(([name, description, withPath]) => ({
    name,
    description,
    input_schema: withPath
      ? { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
      : { type: 'object' },
  }))

export const meta: fc.Arbitrary<Meta> = fc.record(
  {
    model: fc.constantFrom('model-a', 'model-b'),
    latency_ms: fc.nat({ max: 60_000 }),
    note: text,
  },
  { requiredKeys: [], noNullPrototype: true },
)
