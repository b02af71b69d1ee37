/**
 * The Gemini API as the model proxy speaks it (what Gemini CLI calls at
 * `GOOGLE_GEMINI_BASE_URL`: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`
 * for its turns, `:generateContent` for side calls).
 */
import * as t from 'io-ts'
import type { Block, Message, ToolDefinition } from '../../../conversation/Entry.js'
import { struct } from '../../../conversation/codec/combinators.js'
import {
  answerPartFields,
  geminiResponse,
  geminiStream,
  SIGNATURE_PREFIX,
  signed,
} from '../../llm/gemini.js'
import type { ModelResponse, ToolChoice } from '../../llm/Provider.js'
import type { AnswerReader, DecodedCall, EncodedResponse, ProxyProtocol } from './ProxyProtocol.js'
import { decodeRequest, jsonReader, jsonResponse, streamAnswerReader } from './wire.js'

const NAME = 'gemini'
const MODEL_CALL =
  /^\/v1(?:beta|alpha)?\/models\/([^/:?]+):(generateContent|streamGenerateContent)(?:\?|$)/

const Part = struct(
  'Part',
  {},
  {
    ...answerPartFields,
    functionResponse: struct(
      'FunctionResponse',
      { name: t.string },
      { id: t.string, response: t.UnknownRecord },
    ),
  },
)
const Content = struct('Content', { parts: t.array(Part) }, { role: t.string })
const Declaration = struct(
  'FunctionDeclaration',
  { name: t.string },
  { description: t.string, parameters: t.UnknownRecord, parametersJsonSchema: t.UnknownRecord },
)
const Body = struct(
  'GenerateContentRequest',
  { contents: t.array(Content) },
  {
    systemInstruction: t.union([t.string, struct('System', { parts: t.array(Part) })]),
    tools: t.array(struct('Tool', {}, { functionDeclarations: t.array(Declaration) })),
    toolConfig: struct(
      'ToolConfig',
      {},
      {
        functionCallingConfig: struct(
          'FunctionCallingConfig',
          {},
          { mode: t.string, allowedFunctionNames: t.array(t.string) },
        ),
      },
    ),
    generationConfig: struct(
      'GenerationConfig',
      {},
      { maxOutputTokens: t.number, temperature: t.number },
    ),
  },
)
type PartJson = t.TypeOf<typeof Part>

/** Pairs each function response with the earliest unanswered call of its name. */
class Calls {
  private n = 0
  private readonly open: { readonly name: string; readonly id: string }[] = []

  call(name: string, id: string | undefined): string {
    const made = id ?? `gemini_call_${++this.n}`
    this.open.push({ name, id: made })
    return made
  }

  answer(name: string, id: string | undefined): string {
    const at = this.open.findIndex((c) => (id !== undefined ? c.id === id : c.name === name))
    if (at < 0) return id ?? `gemini_orphan_${++this.n}`
    return this.open.splice(at, 1)[0]!.id
  }
}

const blocksOf = (parts: readonly PartJson[], model: boolean, calls: Calls): Block[] => {
  const blocks: Block[] = []
  for (const p of parts) {
    const signature = p.thoughtSignature
    if (p.thought === true) {
      blocks.push({
        type: 'thinking',
        thinking: p.text ?? '',
        signature: signed(signature),
      })
      continue
    }
    // A signature on another part travels as an empty thinking block before it.
    if (model && signature !== undefined)
      blocks.push({ type: 'thinking', thinking: '', signature: signed(signature) })
    if (p.functionCall !== undefined) {
      const { name, id, args } = p.functionCall
      blocks.push({ type: 'tool_use', id: calls.call(name, id), name, input: args ?? {} })
    } else if (p.functionResponse !== undefined) {
      const { name, id, response } = p.functionResponse
      const output = response?.output ?? response?.error ?? response ?? {}
      blocks.push({
        type: 'tool_result',
        tool_use_id: calls.answer(name, id),
        content: typeof output === 'string' ? output : JSON.stringify(output),
        ...(response?.error !== undefined && { is_error: true }),
      })
    } else if (p.inlineData !== undefined) {
      const { mimeType, data } = p.inlineData
      blocks.push({ type: 'image', source: { type: 'base64', media_type: mimeType, data } })
    } else if (p.text !== undefined && p.text !== '') blocks.push({ type: 'text', text: p.text })
  }
  return blocks
}

const choiceOf = (
  mode: string | undefined,
  names: readonly string[] = [],
): ToolChoice | undefined => {
  if (mode === 'ANY')
    return names.length === 1 ? { type: 'tool', name: names[0]! } : { type: 'any' }
  if (mode === 'NONE') return { type: 'none' }
  return mode === undefined ? undefined : { type: 'auto' }
}

const decode = (body: unknown, path: string): DecodedCall => {
  const b = decodeRequest(NAME, Body, body)
  const route = MODEL_CALL.exec(path)
  const calls = new Calls()
  const messages: Message[] = []
  for (const c of b.contents) {
    const role = c.role === 'model' ? 'assistant' : 'user'
    const blocks = blocksOf(c.parts, role === 'assistant', calls)
    if (blocks.length > 0) messages.push({ type: 'message', role, content: blocks })
  }
  const sys = b.systemInstruction
  const system =
    sys === undefined
      ? ''
      : typeof sys === 'string'
        ? sys
        : sys.parts.flatMap((p) => (p.text === undefined ? [] : [p.text])).join('\n\n')
  const tools: ToolDefinition[] = (b.tools ?? []).flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((d) => ({
      name: d.name,
      description: d.description ?? '',
      input_schema: d.parametersJsonSchema ?? d.parameters ?? {},
    })),
  )
  const config = b.toolConfig?.functionCallingConfig
  const choice = choiceOf(config?.mode, config?.allowedFunctionNames)
  const generation = b.generationConfig
  return {
    stream: route?.[2] === 'streamGenerateContent',
    request: {
      ...(route === null ? {} : { model: decodeURIComponent(route[1]!) }),
      system,
      messages,
      tools,
      ...(choice === undefined ? {} : { toolChoice: choice }),
      ...(generation?.maxOutputTokens === undefined
        ? {}
        : { maxTokens: generation.maxOutputTokens }),
      ...(generation?.temperature === undefined ? {} : { temperature: generation.temperature }),
    },
  }
}

/** The answer's parts; a Gemini signature (an empty thinking block) goes on the part after it. */
const partsOf = (r: ModelResponse): Record<string, unknown>[] => {
  const parts: Record<string, unknown>[] = []
  let signature: string | undefined
  const push = (part: Record<string, unknown>) => {
    parts.push(signature === undefined ? part : { ...part, thoughtSignature: signature })
    signature = undefined
  }
  for (const b of r.content) {
    const own = b.type === 'thinking' && b.signature.startsWith(SIGNATURE_PREFIX)
    if (b.type === 'thinking' && b.thinking === '') {
      if (own) signature = b.signature.slice(SIGNATURE_PREFIX.length) || undefined
    } else if (b.type === 'thinking') {
      const sig = own ? b.signature.slice(SIGNATURE_PREFIX.length) : ''
      parts.push({
        text: b.thinking,
        thought: true,
        ...(sig === '' ? {} : { thoughtSignature: sig }),
      })
    } else if (b.type === 'text') push({ text: b.text })
    else if (b.type === 'tool_use') push({ functionCall: { name: b.name, args: b.input } })
  }
  return parts
}

const FINISH: Readonly<Record<string, string>> = {
  end_turn: 'STOP',
  tool_use: 'STOP',
  stop_sequence: 'STOP',
  max_tokens: 'MAX_TOKENS',
  refusal: 'SAFETY',
}

const usageJson = (r: ModelResponse) => {
  const u = r.usage
  const thoughts = u.reasoning_tokens ?? 0
  const prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
  const cached = u.cached_tokens ?? u.cache_read_input_tokens
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, u.output_tokens - thoughts),
    ...(thoughts > 0 && { thoughtsTokenCount: thoughts }),
    ...(cached > 0 && { cachedContentTokenCount: cached }),
    totalTokenCount: u.total_tokens ?? prompt + u.output_tokens,
  }
}

const encode = (r: ModelResponse, call: DecodedCall, id: string): EncodedResponse => {
  const body = {
    candidates: [
      {
        content: { role: 'model', parts: partsOf(r) },
        finishReason: FINISH[r.stopReason] ?? 'OTHER',
        index: 0,
      },
    ],
    usageMetadata: usageJson(r),
    modelVersion: r.model ?? call.request.model ?? 'gemini',
    responseId: id,
  }
  if (!call.stream) return jsonResponse(200, body)
  return {
    status: 200,
    contentType: 'text/event-stream',
    chunks: [`data: ${JSON.stringify(body)}\r\n\r\n`],
  }
}

const reader = (call: DecodedCall): AnswerReader =>
  call.stream ? streamAnswerReader(geminiStream()) : jsonReader((json) => geminiResponse(json))

const STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
}

const error = (status: number, message: string): EncodedResponse =>
  jsonResponse(status, { error: { code: status, message, status: STATUS[status] ?? 'INTERNAL' } })

/**
 * The Gemini API protocol of the model proxy. Model calls are `POST
 * /v1beta/models/{model}:generateContent` (JSON) and
 * `:streamGenerateContent` (server-sent events with `?alt=sse`); the model
 * is read from the path. A request decodes into a `ModelRequest`:
 * `systemInstruction` as the system prompt; `user` and `model` contents as
 * user and assistant messages (text, images, thoughts as thinking blocks
 * whose signature is `gemini:` + the thought signature, function calls as
 * tool uses, function responses as tool results paired with their call by
 * id, else by name and order); function declarations as tools; the calling
 * mode as tool choice; `maxOutputTokens` and `temperature`. An answer
 * encodes as one `GenerateContentResponse` (in one event when streamed):
 * the parts, the finish reason (`STOP`, `MAX_TOKENS`, `SAFETY`) and the
 * usage (`promptTokenCount` counts cached input, `thoughtsTokenCount` the
 * reasoning tokens of the output). Errors are `{ error: { code, message,
 * status } }`.
 *
 * @category proxy
 * @example
 * import { geminiProtocol } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const path = '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse'
 * const call = geminiProtocol.decode({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, path)
 * assert.strictEqual(call.stream, true)
 * assert.strictEqual(call.request.model, 'gemini-2.5-pro')
 * const out = geminiProtocol.encode(
 *   { content: [{ type: 'text', text: 'Hello' }], stopReason: 'end_turn',
 *     usage: { input_tokens: 3, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
 *   call,
 *   '1',
 * )
 * assert.ok(out.chunks[0]?.includes('"finishReason":"STOP"'))
 */
export const geminiProtocol: ProxyProtocol = Object.freeze({
  name: NAME,
  isModelCall: (method: string, path: string) => method === 'POST' && MODEL_CALL.test(path),
  decode,
  encode,
  reader,
  error,
})
