import { taggedError } from '../../../errors.js'
import type { ModelRequest, ModelResponse } from '../../llm/Provider.js'

/**
 * A model call as a {@link ProxyProtocol} reads it off the wire: Nerve's
 * provider request, whether the client asked for a stream, and the model it
 * named.
 *
 * @category proxy
 */
export interface DecodedCall {
  readonly request: ModelRequest
  readonly stream: boolean
}

/**
 * A response to write back: its status, content type and body, in the
 * order the chunks go out (one chunk per server-sent event for a stream).
 *
 * @category proxy
 */
export interface EncodedResponse {
  readonly status: number
  readonly contentType: string
  readonly chunks: readonly string[]
}

/**
 * Reads an upstream's answer as it streams through the proxy (forward
 * mode), to keep its usage, cost and content: `push` each piece of the
 * body, then `result` (undefined when the body was not a complete answer).
 *
 * @category proxy
 */
export interface AnswerReader {
  push(text: string): void
  result(): ModelResponse | undefined
}

/**
 * One model API, as the model proxy speaks it: which requests are model
 * calls, how a request decodes into Nerve's {@link ModelRequest}, how a
 * {@link ModelResponse} encodes as this protocol's answer (a stream of
 * server-sent events, or JSON), how an upstream's answer is read back, and
 * the shape of its errors. A protocol is one module: the Anthropic Messages
 * API ({@link anthropicMessages}), the OpenAI Responses API, Gemini's
 * `generateContent`.
 *
 * @category proxy
 */
export interface ProxyProtocol {
  /** Names the protocol in calls and errors (`'anthropic-messages'`). */
  readonly name: string
  /** Whether `method` on `path` (no agent prefix, query kept) is a model call of this protocol. */
  isModelCall(method: string, path: string): boolean
  /** Decodes a model call's JSON body; throws {@link ProxyRequestInvalid} with the path of the bad field. */
  decode(body: unknown, path: string): DecodedCall
  /** The answer, in this protocol, to a call decoded as `call`; `id` is unique per call. */
  encode(response: ModelResponse, call: DecodedCall, id: string): EncodedResponse
  /** A reader of an upstream's answer to a call (streamed or not). */
  reader(call: DecodedCall): AnswerReader
  /** This protocol's error answer: a refused call (over budget) or a failed upstream. */
  error(status: number, message: string): EncodedResponse
  /** The answer to a request that is not a model call when no upstream serves it (e.g. token counting); undefined: 404. */
  aside?(method: string, path: string, body: unknown): EncodedResponse | undefined
}

/**
 * A request the proxy could not read as a model call of its protocol:
 * `path` is the JSON pointer of the bad field.
 *
 * @category errors
 */
export class ProxyRequestInvalid extends taggedError('ProxyRequestInvalid', 'invalidInput')<{
  readonly protocol: string
  readonly path: string
}> {
  constructor(protocol: string, path: string, detail: string) {
    super(`${protocol}: invalid request at ${path === '' ? '/' : path}: ${detail}`, {
      protocol,
      path,
    })
  }
}
