export type { ConversationDocument } from './document.js'
export {
  BlockCodec,
  CompactionBlockCodec,
  ContentCodec,
  ImageBlockCodec,
  MessageCodec,
  NanoMessageCodec,
  RedactedThinkingBlockCodec,
  RoleCodec,
  StopReasonCodec,
  SystemPromptCodec,
  TextBlockCodec,
  ThinkingBlockCodec,
  ToolDefinitionCodec,
  ToolDefinitionsCodec,
  ToolExecutionCodec,
  ToolResultBlockCodec,
  ToolResultContentCodec,
  ToolUseBlockCodec,
  UnknownBlockCodec,
  UsageCodec,
} from './entry.js'
export type { BlockJson, ContentJson, MessageJson, NanoMessageJson, RawBlock } from './entry.js'
export { formatDecodeError } from './errors.js'
export type {
  DecodeError,
  DuplicateId,
  Invalid,
  InvalidJson,
  InvalidValue,
  MismatchedId,
  MissingParent,
  UnknownHead,
  VertexCycle,
} from './errors.js'
export { decodeNano, encodeNano, parseNano, stringifyNano } from './nano.js'
export type {
  NanoEncodeOptions,
  NanoEntryJson,
  NanoJson,
  NanoNodeJson,
  SubGraphJson,
} from './nano.js'
export {
  decodeConversation,
  encodeConversation,
  encodeConversationPart,
  encodeVertex,
  NERVE_FORMAT,
  parseConversation,
  stringifyConversation,
} from './nerve.js'
export type { NerveEntryJson, NerveJson, NerveVertexJson, SubConversationJson } from './nerve.js'
