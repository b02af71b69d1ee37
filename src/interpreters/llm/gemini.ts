import * as t from 'io-ts'
import type { Block, Message, Role, ToolResultBlock, Usage } from '../../conversation/Entry.js'
import { isRecord, struct } from '../../conversation/codec/combinators.js'
import { deepFreeze } from '../../dag/freeze.js'
import { alternate, decodeAnswer, parseEvent, toolNamesById } from './decode.js'
import type { SseEvent } from './http.js'
import {
  apiKeyFrom,
  baseUrlOf,
  checkProviderOptions,
  httpProvider,
  type ProviderOptions,
} from './httpProvider.js'
import type { ModelDelta, ModelRequest, ModelResponse, Provider } from './Provider.js'
import { ProviderHttpError, ProviderStreamCut } from './ProviderError.js'

const NAME = 'gemini'

/**
 * How {@link gemini} reaches the Gemini API (`generateContent`): the common
 * {@link ProviderOptions} (defaults: the key in `GEMINI_API_KEY`, else
 * `GOOGLE_API_KEY`, `baseUrl` `https://generativelanguage.googleapis.com`,
 * `model` `gemini-2.5-flash`, `maxTokens` (sent as `maxOutputTokens`) the
 * model's; `stream` uses `streamGenerateContent`; `pricing` counts cached
 * tokens at the input price), and thinking.
 *
 * @category providers
 */
export interface GeminiOptions extends ProviderOptions {
  /** `thinkingConfig`: a budget of thinking tokens, and whether to return thought summaries. */
  readonly thinking?: { readonly budgetTokens?: number; readonly includeThoughts?: boolean }
}

/** One part of a Gemini content. @category providers */
export interface GeminiPart {
  readonly text?: string
  readonly thought?: boolean
  readonly thoughtSignature?: string
  readonly inlineData?: { readonly mimeType: string; readonly data: string }
  readonly functionCall?: {
    readonly id?: string
    readonly name: string
    readonly args?: Readonly<Record<string, unknown>>
  }
  readonly functionResponse?: {
    readonly id?: string
    readonly name: string
    readonly response: Readonly<Record<string, unknown>>
  }
}

/** A turn of a Gemini conversation. @category providers */
export interface GeminiContent {
  readonly role: 'user' | 'model'
  readonly parts: readonly GeminiPart[]
}

/** The body of a `generateContent` request, as {@link geminiRequest} builds it. @category providers */
export interface GeminiRequestBody {
  readonly contents: readonly GeminiContent[]
  readonly systemInstruction?: { readonly parts: readonly { readonly text: string }[] }
  readonly tools?: readonly {
    readonly functionDeclarations: readonly {
      readonly name: string
      readonly description?: string
      readonly parametersJsonSchema: Readonly<Record<string, unknown>>
    }[]
  }[]
  readonly toolConfig?: {
    readonly functionCallingConfig: {
      readonly mode: 'AUTO' | 'ANY' | 'NONE'
      readonly allowedFunctionNames?: readonly string[]
    }
  }
  readonly generationConfig?: {
    readonly maxOutputTokens?: number
    readonly temperature?: number
    readonly thinkingConfig?: {
      readonly thinkingBudget?: number
      readonly includeThoughts?: boolean
    }
  }
}

const DEFAULT_MODEL = 'gemini-2.5-flash'

/**
 * Gemini's thought signatures are kept in thinking blocks with this prefix, so
 * that no other provider takes them for its own and Gemini takes only its own.
 * A thinking block with empty `thinking` only carries the signature of the
 * part that follows it (a function call, or text).
 *
 * @internal
 */
export const SIGNATURE_PREFIX = 'gemini:'

/** A block as Gemini takes it in a message of `role`, or nothing to leave it out. */
const keep = (b: Block, role: Role): Block | undefined => {
  switch (b.type) {
    case 'text':
      return b.text === '' ? undefined : b
    case 'compaction':
      return b.content === '' ? undefined : { type: 'text', text: b.content }
    case 'thinking':
      return role === 'assistant' &&
        b.signature.startsWith(SIGNATURE_PREFIX) &&
        (b.thinking !== '' || b.signature.length > SIGNATURE_PREFIX.length)
        ? b
        : undefined
    case 'redacted_thinking':
    case 'unknown':
      return undefined
    default:
      return b
  }
}

const prepare = (messages: readonly Message[]): readonly Message[] =>
  alternate(
    messages.flatMap((m): Message[] => {
      if (typeof m.content === 'string') return m.content === '' ? [] : [m]
      const blocks = m.content.flatMap((b) => keep(b, m.role) ?? [])
      return blocks.length === 0 ? [] : [{ ...m, content: blocks }]
    }),
  )

const resultParts = (b: ToolResultBlock, name: string | undefined): GeminiPart[] => {
  const texts =
    typeof b.content === 'string'
      ? b.content
      : b.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n')
  const images =
    typeof b.content === 'string'
      ? []
      : b.content.flatMap((c) =>
          c.type === 'image'
            ? [{ inlineData: { mimeType: c.source.media_type, data: c.source.data } }]
            : [],
        )
  // A result whose call is not in the conversation has no function name: it goes as text.
  const head: GeminiPart =
    name === undefined
      ? { text: `Result of tool call ${b.tool_use_id}: ${texts}` }
      : {
          functionResponse: {
            id: b.tool_use_id,
            name,
            response: b.is_error === true ? { error: texts } : { output: texts },
          },
        }
  return [head, ...images]
}

const partsOf = (m: Message, names: ReadonlyMap<string, string>): GeminiPart[] => {
  if (typeof m.content === 'string') return [{ text: m.content }]
  const parts: GeminiPart[] = []
  let pending: string | undefined // a signature for the next part
  const push = (p: GeminiPart) => {
    if (pending !== undefined) {
      if (p.thoughtSignature === undefined) p = { ...p, thoughtSignature: pending }
      else parts.push({ text: '', thoughtSignature: pending })
      pending = undefined
    }
    parts.push(p)
  }
  for (const b of m.content) {
    switch (b.type) {
      case 'text':
        push({ text: b.text })
        break
      case 'image':
        push({ inlineData: { mimeType: b.source.media_type, data: b.source.data } })
        break
      case 'tool_use':
        push({ functionCall: { id: b.id, name: b.name, args: b.input } })
        break
      case 'tool_result':
        for (const p of resultParts(b, names.get(b.tool_use_id))) push(p)
        break
      case 'thinking': {
        const signature = b.signature.slice(SIGNATURE_PREFIX.length)
        if (b.thinking === '') {
          if (pending !== undefined) parts.push({ text: '', thoughtSignature: pending })
          pending = signature
        } else {
          push({
            text: b.thinking,
            thought: true,
            ...(signature === '' ? {} : { thoughtSignature: signature }),
          })
        }
        break
      }
      default:
        break // left out by `keep`
    }
  }
  if (pending !== undefined) parts.push({ text: '', thoughtSignature: pending })
  return parts
}

/**
 * The `generateContent` body for a request: `systemInstruction`, function
 * declarations (`parametersJsonSchema` is the tool's JSON schema),
 * `toolConfig.functionCallingConfig` (auto → AUTO, any → ANY, none → NONE, a
 * named tool → ANY with `allowedFunctionNames`; Gemini has no switch for
 * parallel calls, so `parallelToolCalls` is not sent), and contents with
 * roles `user` / `model`, joined so that roles alternate. Tool use ↔
 * `functionCall` and tool result ↔ `functionResponse` (`{ output }`, or
 * `{ error }` when `is_error`; its images follow as `inlineData` parts), both
 * with the tool use id. Thinking goes back only when it came from Gemini
 * (its signature has the `gemini:` prefix); redacted thinking and unknown
 * blocks are left out; compaction → text.
 *
 * @category providers
 * @example
 * import { geminiRequest } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const body = geminiRequest({
 *   system: 'Be brief.',
 *   messages: [{ type: 'message', role: 'user', content: 'hi' }],
 *   tools: [],
 * })
 * assert.deepStrictEqual(body.systemInstruction, { parts: [{ text: 'Be brief.' }] })
 * assert.deepStrictEqual(body.contents, [{ role: 'user', parts: [{ text: 'hi' }] }])
 */
export const geminiRequest = (
  request: ModelRequest,
  options: GeminiOptions = {},
): GeminiRequestBody => {
  const names = toolNamesById(request.messages)
  const choice = request.toolChoice ?? { type: 'auto' }
  const maxOutputTokens = request.maxTokens ?? options.maxTokens
  const thinking = options.thinking
  const generationConfig = {
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(thinking === undefined
      ? {}
      : {
          thinkingConfig: {
            ...(thinking.budgetTokens === undefined
              ? {}
              : { thinkingBudget: thinking.budgetTokens }),
            ...(thinking.includeThoughts === undefined
              ? {}
              : { includeThoughts: thinking.includeThoughts }),
          },
        }),
  }
  return {
    contents: prepare(request.messages).map((m) => ({
      role: m.role === 'assistant' ? 'model' : 'user',
      parts: partsOf(m, names),
    })),
    ...(request.system === '' ? {} : { systemInstruction: { parts: [{ text: request.system }] } }),
    ...(request.tools.length === 0
      ? {}
      : {
          tools: [
            {
              functionDeclarations: request.tools.map((d) => ({
                name: d.name,
                ...(d.description === '' ? {} : { description: d.description }),
                parametersJsonSchema: d.input_schema,
              })),
            },
          ],
          toolConfig: {
            functionCallingConfig:
              choice.type === 'tool'
                ? { mode: 'ANY', allowedFunctionNames: [choice.name] }
                : {
                    mode: choice.type === 'any' ? 'ANY' : choice.type === 'none' ? 'NONE' : 'AUTO',
                  },
          },
        }),
    ...(Object.keys(generationConfig).length === 0 ? {} : { generationConfig }),
  }
}

// ------------------------------------------------------------------ answers

/** The fields of a part of Gemini's answer (all optional). @internal */
export const answerPartFields = {
  text: t.string,
  thought: t.boolean,
  thoughtSignature: t.string,
  functionCall: struct('FunctionCall', { name: t.string }, { id: t.string, args: t.UnknownRecord }),
  inlineData: struct('Blob', { mimeType: t.string, data: t.string }),
}
const PartJson = struct('Part', {}, answerPartFields)
type PartJson = t.TypeOf<typeof PartJson>

const UsageJson = struct(
  'UsageMetadata',
  {},
  {
    promptTokenCount: t.number,
    candidatesTokenCount: t.number,
    thoughtsTokenCount: t.number,
    cachedContentTokenCount: t.number,
    toolUsePromptTokenCount: t.number,
    totalTokenCount: t.number,
  },
)
type UsageJson = t.TypeOf<typeof UsageJson>

const Answer = struct(
  'GenerateContentResponse',
  {},
  {
    candidates: t.array(
      struct(
        'Candidate',
        {},
        {
          content: struct('Content', {}, { parts: t.array(PartJson) }),
          finishReason: t.string,
        },
      ),
    ),
    usageMetadata: UsageJson,
    modelVersion: t.string,
    promptFeedback: struct('PromptFeedback', {}, { blockReason: t.string }),
  },
)
type Answer = t.TypeOf<typeof Answer>

/** Makes tool use ids `gemini_call_1`, `gemini_call_2`, … that are not taken. */
const idMaker = (taken: Iterable<string>) => {
  const used = new Set(taken)
  let k = 0
  return {
    take: (id: string) => used.add(id),
    next: (): string => {
      let id: string
      do id = `gemini_call_${++k}`
      while (used.has(id))
      used.add(id)
      return id
    },
  }
}

/** A thought signature kept in a thinking block. @internal */
export const signed = (sig: string | undefined): string => `${SIGNATURE_PREFIX}${sig ?? ''}`

/**
 * Blocks of an answer's parts, in order: runs of text parts (and of thought
 * parts) joined into one block, so a streamed answer gives the blocks its
 * whole answer gives. A signature on a part that is not a thought goes into an
 * empty thinking block just before that part's block. Parts of other kinds
 * (code execution, files) are left out.
 */
const blocksOf = (parts: readonly PartJson[], nextId: () => string): Block[] => {
  const out: Block[] = []
  for (const p of parts) {
    const last = out.at(-1)
    if (p.thought === true && p.text !== undefined) {
      if (last?.type === 'thinking' && last.thinking !== '' && last.signature === signed('')) {
        out[out.length - 1] = {
          ...last,
          thinking: last.thinking + p.text,
          signature: signed(p.thoughtSignature),
        }
      } else out.push({ type: 'thinking', thinking: p.text, signature: signed(p.thoughtSignature) })
      continue
    }
    if (p.thoughtSignature !== undefined) {
      out.push({ type: 'thinking', thinking: '', signature: signed(p.thoughtSignature) })
    }
    if (p.functionCall !== undefined) {
      const { id, name, args } = p.functionCall
      out.push({ type: 'tool_use', id: id ?? nextId(), name, input: args ?? {} })
    } else if (p.text !== undefined) {
      if (p.text === '') continue
      const prev = out.at(-1)
      if (prev?.type === 'text') out[out.length - 1] = { type: 'text', text: prev.text + p.text }
      else out.push({ type: 'text', text: p.text })
    } else if (p.inlineData?.mimeType.startsWith('image/') === true) {
      out.push({
        type: 'image',
        source: { type: 'base64', media_type: p.inlineData.mimeType, data: p.inlineData.data },
      })
    }
  }
  return out
}

const REFUSALS: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
])

const stopReasonOf = (a: Answer, content: readonly Block[]): string => {
  const finish = a.candidates?.[0]?.finishReason
  if (finish === undefined || finish === 'STOP' || finish === 'FINISH_REASON_UNSPECIFIED') {
    if (finish === undefined && a.promptFeedback?.blockReason !== undefined) return 'refusal'
    return content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'
  }
  if (finish === 'MAX_TOKENS') return 'max_tokens'
  return REFUSALS.has(finish) ? 'refusal' : finish
}

/** Output counts thoughts too, as other providers' output does; `reasoning_tokens` says how many. */
const usageOf = (u: UsageJson | undefined): Usage => {
  const thoughts = u?.thoughtsTokenCount
  return {
    input_tokens: (u?.promptTokenCount ?? 0) + (u?.toolUsePromptTokenCount ?? 0),
    output_tokens: (u?.candidatesTokenCount ?? 0) + (thoughts ?? 0),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    ...(thoughts === undefined ? {} : { reasoning_tokens: thoughts }),
    ...(u?.cachedContentTokenCount === undefined
      ? {}
      : { cached_tokens: u.cachedContentTokenCount }),
    ...(u?.totalTokenCount === undefined ? {} : { total_tokens: u.totalTokenCount }),
  }
}

const responseOf = (a: Answer, nextId: () => string): ModelResponse => {
  const content = blocksOf(a.candidates?.[0]?.content?.parts ?? [], nextId)
  return deepFreeze({
    content,
    stopReason: stopReasonOf(a, content),
    usage: usageOf(a.usageMetadata),
    ...(a.modelVersion === undefined ? {} : { model: a.modelVersion }),
  })
}

/**
 * The {@link ModelResponse} of a `generateContent` answer (JSON as
 * received), from its first candidate: text, thoughts (thinking blocks whose
 * signature is `gemini:` + the thought signature), function calls (tool uses
 * with Gemini's id, else `gemini_call_<n>`, the first n not in `takenIds`),
 * images. `STOP` → `end_turn` (or `tool_use` when it called a function),
 * `MAX_TOKENS` → `max_tokens`, safety stops and a blocked prompt → `refusal`,
 * others as they are. Usage: input = prompt + tool-use prompt tokens
 * (`cached_tokens` of them cached), output = candidates + thoughts
 * (`reasoning_tokens`). A body of the wrong shape throws a `ProviderMalformed`
 * whose path points at the bad field.
 *
 * @category providers
 * @example
 * import { geminiResponse } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const r = geminiResponse({
 *   candidates: [
 *     { content: { parts: [{ functionCall: { name: 'ls', args: {} } }] }, finishReason: 'STOP' },
 *   ],
 * })
 * assert.deepStrictEqual(r.content, [{ type: 'tool_use', id: 'gemini_call_1', name: 'ls', input: {} }])
 * assert.strictEqual(r.stopReason, 'tool_use')
 */
export const geminiResponse = (json: unknown, takenIds: Iterable<string> = []): ModelResponse => {
  const a = decodeAnswer(NAME, Answer, json)
  const ids = idMaker(takenIds)
  for (const p of a.candidates?.[0]?.content?.parts ?? []) {
    if (p.functionCall?.id !== undefined) ids.take(p.functionCall.id)
  }
  return responseOf(a, ids.next)
}

// ------------------------------------------------------------------ streams

/**
 * Gathers the chunks of a streamed answer (each one a whole
 * `GenerateContentResponse`) into the response the whole answer gives,
 * reporting deltas on the way. The stream is complete once a chunk has a
 * finish reason (or a blocked prompt). Paths of malformed chunks are
 * `/<chunk index>/<pointer in it>`.
 */
const gatherStream = (onDelta: ((d: ModelDelta) => void) | undefined, taken: Iterable<string>) => {
  const ids = idMaker(taken)
  const parts: PartJson[] = []
  let last: Answer = {}
  let finishReason: string | undefined
  let usage: UsageJson | undefined
  let n = -1
  const onEvent = (e: SseEvent): void => {
    n++
    const at = `/${n}`
    const data = parseEvent(NAME, e.data, at)
    if (isRecord(data) && isRecord(data.error)) {
      const code = data.error.code
      throw new ProviderHttpError(NAME, typeof code === 'number' ? code : 500, e.data)
    }
    const a = decodeAnswer(NAME, Answer, data, at)
    last = a
    const candidate = a.candidates?.[0]
    for (let p of candidate?.content?.parts ?? []) {
      if (p.functionCall !== undefined) {
        const call = { ...p.functionCall, id: p.functionCall.id ?? ids.next() }
        ids.take(call.id)
        p = { ...p, functionCall: call }
        onDelta?.({ type: 'tool_use', id: call.id, name: call.name })
      } else if (p.text !== undefined && p.text !== '') {
        onDelta?.({ type: p.thought === true ? 'thinking' : 'text', text: p.text })
      }
      parts.push(p)
    }
    finishReason = candidate?.finishReason ?? finishReason
    usage = a.usageMetadata ?? usage
  }
  const result = (): ModelResponse => {
    const blocked = last.promptFeedback?.blockReason !== undefined
    if (finishReason === undefined && !blocked) {
      throw new ProviderStreamCut(NAME, `no finishReason after ${n + 1} chunks`)
    }
    const whole: Answer = {
      candidates: [{ content: { parts }, ...(finishReason === undefined ? {} : { finishReason }) }],
      ...(usage === undefined ? {} : { usageMetadata: usage }),
      ...(last.modelVersion === undefined ? {} : { modelVersion: last.modelVersion }),
      ...(last.promptFeedback === undefined ? {} : { promptFeedback: last.promptFeedback }),
    }
    return responseOf(whole, ids.next)
  }
  return { onEvent, result }
}

/**
 * The reader of a streamed `generateContent` answer, for whoever reads one
 * off the wire (the model proxy, forwarding to Gemini).
 *
 * @internal
 */
export const geminiStream = (onDelta?: (d: ModelDelta) => void) => gatherStream(onDelta, [])

// ----------------------------------------------------------------- provider

/**
 * A {@link Provider} for the Gemini API over plain `fetch`: `POST
 * {baseUrl}/v1beta/models/{model}:generateContent` (or
 * `:streamGenerateContent?alt=sse` when streaming), header `x-goog-api-key`.
 * The request is {@link geminiRequest}'s body; the answer, streamed or not,
 * is read as {@link geminiResponse} reads it, with tool use ids unique within
 * the request's conversation. An error chunk in a stream is a
 * `ProviderHttpError` with its code. It never retries. Without an API key
 * (option, `GEMINI_API_KEY` or `GOOGLE_API_KEY`) it throws a `UsageError` at once.
 *
 * @category providers
 * @example
 * import { gemini } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const flash = gemini({ apiKey: 'test-key', model: 'gemini-2.5-flash', stream: true })
 * assert.strictEqual(flash.name, 'gemini')
 */
export const gemini = (options: GeminiOptions = {}): Provider => {
  checkProviderOptions(NAME, options)
  const apiKey = apiKeyFrom(NAME, options.apiKey, ['GEMINI_API_KEY', 'GOOGLE_API_KEY'])!
  const base = baseUrlOf(options, 'https://generativelanguage.googleapis.com')
  const method = options.stream === true ? 'streamGenerateContent?alt=sse' : 'generateContent'
  const taken = (request: ModelRequest) => toolNamesById(request.messages).keys()
  return httpProvider(
    {
      name: NAME,
      url: (request) => {
        const model = (request.model ?? options.model ?? DEFAULT_MODEL).replace(/^models\//, '')
        return `${base}/v1beta/models/${encodeURIComponent(model)}:${method}`
      },
      headers: { 'x-goog-api-key': apiKey },
      body: (request) => geminiRequest(request, options),
      answer: (json, request) => geminiResponse(json, taken(request)),
      stream: (request, onDelta) => gatherStream(onDelta, taken(request)),
    },
    options,
  )
}
