import { ErrorCode, type WireError } from './errors.js'

/**
 * A request id: a string or a number, chosen by the client, unique among
 * its requests in flight.
 *
 * @category protocol
 */
export type RequestId = string | number

/**
 * What one line of the wire is, once read: a request (it has an `id` and
 * is answered), a notification (no `id`, no answer) or something that is
 * not a JSON-RPC 2.0 call (`Invalid`, with the error to answer and the id
 * when one could be read).
 *
 * @category protocol
 */
export type Incoming =
  | {
      readonly _tag: 'Request'
      readonly id: RequestId
      readonly method: string
      readonly params: unknown
    }
  | { readonly _tag: 'Notification'; readonly method: string; readonly params: unknown }
  | { readonly _tag: 'Invalid'; readonly id: RequestId | null; readonly error: WireError }

const MEMBERS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params'])

const invalid = (id: RequestId | null, code: number, message: string, tag: string): Incoming => ({
  _tag: 'Invalid',
  id,
  error: { code, message, data: { tag } },
})

const isId = (u: unknown): u is RequestId =>
  typeof u === 'string' || (typeof u === 'number' && Number.isFinite(u))

/**
 * Reads one line (without its newline) as a JSON-RPC 2.0 message. Never
 * throws: a line that is not JSON is a `ParseError`; a batch (an array), a
 * missing or wrong `jsonrpc`, a bad `id` or `method`, `params` that are not
 * an object, or another member is an `InvalidRequest`.
 *
 * @category protocol
 * @example
 * import { readMessage } from 'nerve-agents/protocol'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(readMessage('{"jsonrpc":"2.0","id":1,"method":"PING"}'), { _tag: 'Request', id: 1, method: 'PING', params: {} })
 * assert.strictEqual(readMessage('{oops').error?.code, -32700)
 */
export const readMessage = (line: string): Incoming & { readonly error?: WireError } => {
  let u: unknown
  try {
    u = JSON.parse(line)
  } catch {
    return invalid(null, ErrorCode.ParseError, 'the line is not JSON', 'ParseError')
  }
  if (Array.isArray(u)) {
    return invalid(null, ErrorCode.InvalidRequest, 'batches are not supported', 'InvalidRequest')
  }
  if (typeof u !== 'object' || u === null) {
    return invalid(null, ErrorCode.InvalidRequest, 'a request is a JSON object', 'InvalidRequest')
  }
  const m = u as Record<string, unknown>
  const hasId = Object.hasOwn(m, 'id')
  const id = hasId && isId(m.id) ? m.id : null
  if (hasId && id === null) {
    return invalid(
      null,
      ErrorCode.InvalidRequest,
      'id must be a string or a finite number',
      'InvalidRequest',
    )
  }
  if (m.jsonrpc !== '2.0') {
    return invalid(id, ErrorCode.InvalidRequest, 'jsonrpc must be "2.0"', 'InvalidRequest')
  }
  const extra = Object.keys(m).find((k) => !MEMBERS.has(k))
  if (extra !== undefined) {
    return invalid(
      id,
      ErrorCode.InvalidRequest,
      `"${extra.slice(0, 40)}" is not a member of a request`,
      'InvalidRequest',
    )
  }
  if (typeof m.method !== 'string' || m.method === '') {
    return invalid(
      id,
      ErrorCode.InvalidRequest,
      'method must be a non-empty string',
      'InvalidRequest',
    )
  }
  const params: unknown = m.params === undefined ? {} : m.params
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    return {
      _tag: 'Invalid',
      id,
      error: {
        code: ErrorCode.InvalidParams,
        message: 'params must be an object',
        data: { tag: 'InvalidParams', path: '' },
      },
    }
  }
  return id === null
    ? { _tag: 'Notification', method: m.method, params }
    : { _tag: 'Request', id, method: m.method, params }
}

/**
 * The line of a successful response.
 *
 * @category protocol
 */
export const resultLine = (id: RequestId, result: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, result: result ?? null })

/**
 * The line of an error response (`id` is `null` when the request's could not be read).
 *
 * @category protocol
 */
export const errorLine = (id: RequestId | null, error: WireError): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error })

/**
 * The line of a notification (an `EVENT`, a `CANCEL_REQUEST`).
 *
 * @category protocol
 */
export const notificationLine = (method: string, params: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', method, params })

/**
 * The line of a request, as a client writes it.
 *
 * @category protocol
 * @example
 * import { requestLine } from 'nerve-agents/protocol'
 * import assert from 'assert'
 *
 * assert.strictEqual(requestLine(1, 'PING', {}), '{"jsonrpc":"2.0","id":1,"method":"PING","params":{}}')
 */
export const requestLine = (id: RequestId, method: string, params: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params })

/**
 * A response as a client reads it: the id and either `result` or `error`.
 *
 * @category protocol
 */
export type Response =
  | { readonly jsonrpc: '2.0'; readonly id: RequestId; readonly result: unknown }
  | { readonly jsonrpc: '2.0'; readonly id: RequestId | null; readonly error: WireError }
