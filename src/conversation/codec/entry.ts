import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type {
  Block,
  CompactionBlock,
  ImageBlock,
  Message,
  RedactedThinkingBlock,
  Role,
  StopReason,
  SystemPrompt,
  TextBlock,
  ThinkingBlock,
  ToolDefinition,
  ToolDefinitions,
  ToolExecution,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
  UnknownBlock,
  Usage,
} from '../Entry.js'
import {
  isRecord,
  stringOrArray,
  struct,
  tagged,
  type Decoding,
  type JsonRecord,
} from './combinators.js'

/**
 * io-ts codecs for the blocks and entries of a conversation. Each decodes the
 * wire form (`unknown` in) into the library's value and encodes it back.
 * Unknown properties are kept as they are. Sub-conversations hold whole
 * DAGs, so the document decoders ({@link decodeConversation},
 * {@link decodeNano}) handle them.
 */

/** A block of a type this library does not know, as it is on the wire. @category codecs */
export type RawBlock = UnknownBlock['raw']

/** A block on the wire: a known block as it is, an unknown one unwrapped. @category codecs */
export type BlockJson = Exclude<Block, UnknownBlock> | RawBlock

/** Message content on the wire. @category codecs */
export type ContentJson = string | readonly BlockJson[]

/** A message on the wire of the Nerve format. @category codecs */
export interface MessageJson {
  readonly type: 'message'
  readonly role: Role
  readonly content: ContentJson
}

/** A message on the wire of nano-agent: no `type` tag. @category codecs */
export interface NanoMessageJson {
  readonly role: Role
  readonly content: ContentJson
}

// ------------------------------------------------------------------ blocks

/** @category codecs */
export const TextBlockCodec: t.Type<TextBlock, TextBlock> = struct('TextBlock', {
  type: t.literal('text'),
  text: t.string,
})

/** @category codecs */
export const ThinkingBlockCodec: t.Type<ThinkingBlock, ThinkingBlock> = struct('ThinkingBlock', {
  type: t.literal('thinking'),
  thinking: t.string,
  signature: t.string,
})

/** @category codecs */
export const RedactedThinkingBlockCodec: t.Type<RedactedThinkingBlock, RedactedThinkingBlock> =
  struct('RedactedThinkingBlock', { type: t.literal('redacted_thinking'), data: t.string })

/** The tool `input` is any object; it is not walked, so deep nesting costs nothing. @category codecs */
export const ToolUseBlockCodec: t.Type<ToolUseBlock, ToolUseBlock> = struct('ToolUseBlock', {
  type: t.literal('tool_use'),
  id: t.string,
  name: t.string,
  input: t.UnknownRecord,
})

/** @category codecs */
export const ImageBlockCodec: t.Type<ImageBlock, ImageBlock> = struct('ImageBlock', {
  type: t.literal('image'),
  source: struct('ImageSource', {
    type: t.literal('base64'),
    media_type: t.string,
    data: t.string,
  }),
})

/** Tool result content: a string, or text and image blocks. @category codecs */
export const ToolResultContentCodec: t.Type<ToolResultContent, ToolResultContent> = stringOrArray(
  'string | Array<TextBlock | ImageBlock>',
  tagged('TextBlock | ImageBlock', { text: TextBlockCodec, image: ImageBlockCodec }),
)

/** @category codecs */
export const ToolResultBlockCodec: t.Type<ToolResultBlock, ToolResultBlock> = struct(
  'ToolResultBlock',
  { type: t.literal('tool_result'), tool_use_id: t.string, content: ToolResultContentCodec },
  { is_error: t.boolean },
)

/** @category codecs */
export const CompactionBlockCodec: t.Type<CompactionBlock, CompactionBlock> = struct(
  'CompactionBlock',
  { type: t.literal('compaction'), content: t.string },
)

type KnownBlock = Exclude<Block, UnknownBlock>

const KNOWN_BLOCKS = new Map<string, Decoding<KnownBlock>>([
  ['text', TextBlockCodec],
  ['thinking', ThinkingBlockCodec],
  ['redacted_thinking', RedactedThinkingBlockCodec],
  ['tool_use', ToolUseBlockCodec],
  ['tool_result', ToolResultBlockCodec],
  ['image', ImageBlockCodec],
  ['compaction', CompactionBlockCodec],
])

/**
 * A block of a type this library does not know (any object with a string
 * `type` other than the known ones, `'unknown'` included): decoded into
 * `{ type: 'unknown', raw }` with the original object as `raw`, encoded back
 * as `raw`.
 *
 * @category codecs
 */
export const UnknownBlockCodec = new t.Type<UnknownBlock, RawBlock, unknown>(
  'UnknownBlock',
  (u): u is UnknownBlock =>
    isRecord(u) && u.type === 'unknown' && isRecord(u.raw) && typeof u.raw.type === 'string',
  (u, c) =>
    isRecord(u) && typeof u.type === 'string' && !KNOWN_BLOCKS.has(u.type)
      ? t.success({ type: 'unknown', raw: u as RawBlock })
      : t.failure(u, c),
  (b) => b.raw,
)

/** Whether a value is a valid block of a known type, so its wire form is its value. @internal */
export const isKnownBlock = (u: unknown): u is KnownBlock => {
  if (!isRecord(u) || typeof u.type !== 'string') return false
  const codec = KNOWN_BLOCKS.get(u.type)
  return codec !== undefined && codec.is(u)
}

/**
 * Any block. Decoding looks at `type` and runs that block's codec; a type it
 * does not know is kept, as {@link UnknownBlockCodec} says.
 *
 * @category codecs
 * @example
 * import { BlockCodec } from 'nerve-agents/core'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const raw = { type: 'document', source: 'x' }
 * assert.deepStrictEqual(BlockCodec.decode(raw), E.right({ type: 'unknown', raw }))
 * assert.strictEqual(BlockCodec.encode({ type: 'unknown', raw }), raw)
 * assert.ok(E.isLeft(BlockCodec.decode({ type: 'text', text: 1 })))
 */
export const BlockCodec = new t.Type<Block, BlockJson, unknown>(
  'Block',
  (u): u is Block => isKnownBlock(u) || UnknownBlockCodec.is(u),
  (u, c) => {
    if (!isRecord(u) || typeof u.type !== 'string') return t.failure(u, c)
    const codec = KNOWN_BLOCKS.get(u.type)
    return codec === undefined ? UnknownBlockCodec.validate(u, c) : codec.validate(u, c)
  },
  (b) => (b.type === 'unknown' ? b.raw : b),
)

/** Message content: a string, or an array of blocks. @category codecs */
export const ContentCodec: t.Type<string | readonly Block[], ContentJson> = stringOrArray(
  'string | Array<Block>',
  BlockCodec,
)

/** The wire form of content: itself unless it holds unknown blocks, which are unwrapped. @internal */
export const encodeContent = (content: Message['content']): ContentJson => {
  if (typeof content === 'string') return content
  for (let i = 0; i < content.length; i++) {
    if (content[i]!.type === 'unknown') return ContentCodec.encode(content)
  }
  return content as ContentJson
}

/** Whether content is a string or known blocks only, so its wire form is its value. @internal */
export const isPlainContent = (u: unknown): boolean => {
  if (typeof u === 'string') return true
  if (!Array.isArray(u)) return false
  for (let i = 0; i < u.length; i++) if (!isKnownBlock(u[i])) return false
  return true
}

// ----------------------------------------------------------------- entries

/** @category codecs */
export const RoleCodec: t.Type<Role, Role> = t.keyof({ user: null, assistant: null })

/** @category codecs */
export const SystemPromptCodec: t.Type<SystemPrompt, SystemPrompt> = struct('SystemPrompt', {
  type: t.literal('system_prompt'),
  content: t.string,
})

/** The input schema is any object; it is not walked. @category codecs */
export const ToolDefinitionCodec: t.Type<ToolDefinition, ToolDefinition> = struct(
  'ToolDefinition',
  { name: t.string, description: t.string, input_schema: t.UnknownRecord },
)

/** @category codecs */
export const ToolDefinitionsCodec: t.Type<ToolDefinitions, ToolDefinitions> = struct(
  'ToolDefinitions',
  { type: t.literal('tool_definitions'), tools: t.readonlyArray(ToolDefinitionCodec) },
)

/** A message of the Nerve format: `{ type: 'message', role, content }`. @category codecs */
export const MessageCodec: t.Type<Message, MessageJson> = struct('Message', {
  type: t.literal('message'),
  role: RoleCodec,
  content: ContentCodec,
})

const NanoMessageShape = struct('Message', { role: RoleCodec, content: ContentCodec })

/**
 * A message of nano-agent's format, `{ role, content }` without a tag: the
 * decoder adds `type: 'message'`, the encoder leaves it out.
 *
 * @category codecs
 * @example
 * import { NanoMessageCodec } from 'nerve-agents/core'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const m = { type: 'message', role: 'user', content: 'hi' } as const
 * assert.deepStrictEqual(NanoMessageCodec.decode({ role: 'user', content: 'hi' }), E.right(m))
 * assert.deepStrictEqual(NanoMessageCodec.encode(m), { role: 'user', content: 'hi' })
 */
export const NanoMessageCodec = new t.Type<Message, NanoMessageJson, unknown>(
  'Message',
  MessageCodec.is,
  (u, c) => {
    const r = NanoMessageShape.validate(u, c)
    return E.isLeft(r) ? r : t.success(nanoMessage(r.right.role, r.right.content))
  },
  (m) => ({ role: m.role, content: encodeContent(m.content) }),
)

/** @internal */
export const nanoMessage = (role: Role, content: Message['content']): Message => ({
  type: 'message',
  role,
  content,
})

/** Whether a tagless message needs only its tag added (no unknown blocks to wrap). @internal */
export const isPlainNanoMessage = (u: JsonRecord): boolean =>
  (u.role === 'user' || u.role === 'assistant') && isPlainContent(u.content)

/** @category codecs */
export const ToolExecutionCodec: t.Type<ToolExecution, ToolExecution> = struct('ToolExecution', {
  type: t.literal('tool_execution'),
  tool_name: t.string,
  tool_use_id: t.string,
  result: ToolResultContentCodec,
  is_error: t.boolean,
})

/** @category codecs */
export const UsageCodec: t.Type<Usage, Usage> = struct(
  'Usage',
  {
    input_tokens: t.number,
    output_tokens: t.number,
    cache_creation_input_tokens: t.number,
    cache_read_input_tokens: t.number,
  },
  { reasoning_tokens: t.number, cached_tokens: t.number, total_tokens: t.number },
)

/** @category codecs */
export const StopReasonCodec: t.Type<StopReason, StopReason> = struct('StopReason', {
  type: t.literal('stop_reason'),
  reason: t.string,
  usage: UsageCodec,
})
