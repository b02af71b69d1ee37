/**
 * What the two OpenAI protocols (Responses and Chat Completions) share: the
 * API and its key's variable, images as data URLs, tool calls that may be
 * sent, tool arguments as JSON strings, and usage in Nerve's terms.
 *
 * @internal
 */
import type {
  ImageBlock,
  Message,
  ToolResultBlock,
  ToolResultContent,
  Usage,
} from '../../conversation/Entry.js'
import { ProviderMalformed } from './ProviderError.js'

/** OpenAI's own API. @internal */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1'

/** The environment variable that holds the key of OpenAI's own API. @internal */
export const OPENAI_KEY_VARIABLE = 'OPENAI_API_KEY'

/** Whether `baseUrl` is OpenAI's own API (not a compatible server). @internal */
export const isOpenAIHost = (baseUrl: string): boolean => {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com'
  } catch {
    return false
  }
}

/** An image block as a `data:` URL. @internal */
export const dataUrl = (image: ImageBlock): string =>
  `data:${image.source.media_type};base64,${image.source.data}`

/**
 * Whether an opaque reasoning token is one OpenAI issued: its encrypted
 * reasoning is a Fernet token, which starts with `gAAAAA` (version byte
 * 0x80, then a timestamp whose high bytes are zero). Anthropic signatures
 * and Gemini thought signatures do not, and OpenAI rejects what it cannot
 * decrypt, so only these are sent back.
 *
 * @internal
 */
export const isOpenAIReasoning = (token: string): boolean => token.startsWith('gAAAAA')

/**
 * The tool use ids that may be sent as calls with their outputs: those of an
 * assistant message whose result is in the very next message (a user
 * message). Both protocols reject a call without an output and an output
 * without its call (Chat Completions also wants the outputs right after the
 * call), so a call that was never answered is left out and a result without
 * its call is sent as text (see {@link orphanText}). `messages` have been
 * through `alternate`.
 *
 * @internal
 */
export const pairedCalls = (messages: readonly Message[]): ReadonlySet<string> => {
  const paired = new Set<string>()
  messages.forEach((m, i) => {
    const next = messages[i + 1]
    if (m.role !== 'assistant' || typeof m.content === 'string' || next === undefined) return
    if (typeof next.content === 'string') return
    const answered = new Set<string>()
    for (const b of next.content) if (b.type === 'tool_result') answered.add(b.tool_use_id)
    for (const b of m.content) if (b.type === 'tool_use' && answered.has(b.id)) paired.add(b.id)
  })
  return paired
}

/** The text blocks of a tool result, joined by a blank line (images left out). @internal */
export const resultText = (content: ToolResultContent): string =>
  typeof content === 'string'
    ? content
    : content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n\n')

/**
 * The protocols have no error flag on a function output: a failed tool's
 * output starts with this.
 *
 * @internal
 */
export const ERROR_PREFIX = 'Error: '

/** A tool result whose call is not in the request, as plain text for a user message. @internal */
export const orphanText = (b: ToolResultBlock): string =>
  `[result of tool call ${b.tool_use_id}${b.is_error === true ? ', an error' : ''}]\n${resultText(b.content)}`

/**
 * A function call's arguments (a JSON string) as a tool input object; `''`
 * is `{}`. Anything else than a JSON object is a {@link ProviderMalformed} at `path`.
 *
 * @internal
 */
export const parseArguments = (
  provider: string,
  args: string,
  path: string,
): Readonly<Record<string, unknown>> => {
  if (args.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(args)
  } catch {
    throw new ProviderMalformed(provider, path, `arguments are not JSON: ${args.slice(0, 100)}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProviderMalformed(
      provider,
      path,
      `arguments are not a JSON object: ${args.slice(0, 100)}`,
    )
  }
  return value as Record<string, unknown>
}

/** What an OpenAI protocol reports about tokens, in its own terms. @internal */
export interface OpenAITokens {
  /** All input tokens, cached ones included. */
  readonly input: number
  readonly output: number
  readonly cached: number | undefined
  readonly reasoning: number | undefined
  readonly total: number | undefined
}

/**
 * Usage in Nerve's (Anthropic's) terms: `input_tokens` are the input tokens
 * not read from the cache, `cache_read_input_tokens` the cached ones; the
 * counts OpenAI reports as such are kept in `cached_tokens`,
 * `reasoning_tokens` (part of `output_tokens`) and `total_tokens`.
 *
 * @internal
 */
export const usageOf = (tokens: OpenAITokens): Usage => {
  const cached = tokens.cached ?? 0
  return {
    input_tokens: Math.max(0, tokens.input - cached),
    output_tokens: tokens.output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    ...(tokens.cached !== undefined && { cached_tokens: tokens.cached }),
    ...(tokens.reasoning !== undefined && { reasoning_tokens: tokens.reasoning }),
    ...(tokens.total !== undefined && { total_tokens: tokens.total }),
  }
}
