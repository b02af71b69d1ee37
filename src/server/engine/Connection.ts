import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import {
  CANCEL_REQUEST,
  CancelParamsCodec,
  describeError,
  ErrorCode,
  errorPath,
  isMethod,
  paramsCodecs,
  readMessage,
  type EngineEvent,
  type Method,
  type RequestId,
  type WireError,
} from '../../protocol/index.js'
import { commandOf } from './commands/index.js'
import type { Core, Listener } from './Core.js'
import { LimitReached, RequestCancelled, ShuttingDown, toWireError } from './errors.js'
import { toJson } from './json.js'
import { Outbox } from './Outbox.js'

/**
 * Where a connection's messages go out: one JSON-RPC message, serialised,
 * without the newline. Returns false when the transport is congested: the
 * connection then holds further EVENT notifications in bounded
 * per-subscription buffers (responses are never dropped) until
 * `drained()` is called; overflow drops the oldest events and, once
 * drained, sends one `LAGGED { dropped }` event for that subscription
 * before the rest.
 *
 * @category engine
 */
export interface ConnectionSink {
  send(line: string): boolean
}

/**
 * One peer of an engine, as a transport sees it.
 *
 * @category engine
 */
export interface EngineConnection {
  /**
   * One NDJSON line in (no newline). Never throws: parse errors → -32700,
   * invalid request → -32600, unknown method → -32601, invalid params →
   * -32602 with `error.data.path`, engine errors → application codes with
   * `error.data.tag`. Requests run concurrently; each gets its response by id.
   */
  receive(line: string): void
  /** The transport can take more after `send` answered false. */
  drained(): void
  /** The peer went away: drop its subscriptions, abort its in-flight requests' signals. */
  close(): void
}

/** Commands a shutting-down engine still answers. */
const WHILE_SHUTTING_DOWN: ReadonlySet<Method> = new Set([
  'PING',
  'GET_RUN',
  'UNSUBSCRIBE',
  'SHUTDOWN',
])

/** The decode error reply of a method's params. */
const invalidParams = (method: Method, errors: t.Errors): WireError => {
  const first = errors[0]!
  return {
    code: ErrorCode.InvalidParams,
    message: `invalid params of ${method}: ${errors.slice(0, 3).map(describeError).join('; ')}`,
    data: {
      tag: 'InvalidParams',
      path: errorPath(first),
      errors: errors.slice(0, 20).map((e) => ({ path: errorPath(e), message: describeError(e) })),
    },
  }
}

/** One connection of an engine: reads requests, runs their commands, answers, and carries events. */
export class Connection implements EngineConnection, Listener {
  readonly #core: Core
  readonly #outbox: Outbox
  readonly #inFlight = new Map<RequestId, AbortController>()
  /** Notifications (calls without id) being run: aborted on close too. */
  readonly #silent = new Set<AbortController>()
  #closed = false

  constructor(core: Core, sink: ConnectionSink) {
    this.#core = core
    this.#outbox = new Outbox(
      (line) => sink.send(line),
      core.limits.eventBuffer,
      () => core.now(),
      core.limits.eventBufferBytes,
    )
  }

  receive(line: string): void {
    if (this.#closed) return
    try {
      this.#receive(line)
    } catch (e) {
      this.#reply(null, {
        code: ErrorCode.InternalError,
        message: e instanceof Error ? e.message : String(e),
        data: { tag: 'InternalError' },
      })
    }
  }

  drained(): void {
    this.#outbox.drained()
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#core.listeners.delete(this)
    this.#outbox.close()
    this.abortAll(new RequestCancelled('the connection closed'))
  }

  publish(event: EngineEvent, json?: string): string | undefined {
    return this.#outbox.publish(event, json)
  }

  abortAll(reason: unknown): void {
    for (const c of this.#inFlight.values()) c.abort(reason)
    for (const c of this.#silent) c.abort(reason)
  }

  /** Calls of this connection running now, answered or not. */
  get #running(): number {
    return this.#inFlight.size + this.#silent.size
  }

  #receive(line: string): void {
    const message = readMessage(line)
    if (message._tag === 'Invalid') {
      this.#reply(message.id, message.error)
    } else if (message._tag === 'Notification') {
      if (message.method === CANCEL_REQUEST) {
        const p = CancelParamsCodec.decode(message.params)
        if (E.isRight(p)) {
          this.#inFlight.get(p.right.id)?.abort(new RequestCancelled(CANCEL_REQUEST))
        }
      } else if (isMethod(message.method) && this.#running < this.#core.limits.maxInFlight) {
        this.#call(undefined, message.method, message.params)
      }
    } else {
      const { id, method, params } = message
      const refusal = this.#refusal(id, method)
      if (refusal !== undefined) this.#reply(id, refusal)
      else this.#call(id, method as Method, params)
    }
  }

  /** Why a request is not run: its id is in flight, its method unknown, or too many run. */
  #refusal(id: RequestId, method: string): WireError | undefined {
    if (this.#inFlight.has(id)) {
      return {
        code: ErrorCode.InvalidRequest,
        message: `a request with id ${JSON.stringify(id)} is in flight`,
        data: { tag: 'DuplicateId' },
      }
    }
    if (!isMethod(method)) {
      return {
        code: ErrorCode.MethodNotFound,
        message: `no method ${JSON.stringify(method.slice(0, 80))}`,
        data: { tag: 'MethodNotFound' },
      }
    }
    const max = this.#core.limits.maxInFlight
    return this.#running >= max
      ? toWireError(new LimitReached('requests in flight', max))
      : undefined
  }

  /** Decodes and runs one call; answers it when it has an id. */
  #call(id: RequestId | undefined, method: Method, params: unknown): void {
    const decoded = paramsCodecs[method].decode(params)
    if (E.isLeft(decoded)) {
      if (id !== undefined) this.#reply(id, invalidParams(method, decoded.left))
      return
    }
    if (this.#core.shuttingDown && !WHILE_SHUTTING_DOWN.has(method)) {
      if (id !== undefined) this.#reply(id, toWireError(new ShuttingDown()))
      return
    }
    const controller = new AbortController()
    if (id === undefined) this.#silent.add(controller)
    else this.#inFlight.set(id, controller)
    const ctx = { core: this.#core, signal: controller.signal, outbox: this.#outbox }
    const done = (): void => {
      if (id === undefined) this.#silent.delete(controller)
      else this.#inFlight.delete(id)
    }
    Promise.resolve()
      .then(() => commandOf(method)(decoded.right, ctx))
      .then(
        (result) => {
          done()
          if (id !== undefined) this.#answer(id, result)
          if (method === 'SHUTDOWN') void this.#core.shutdown()
        },
        (e: unknown) => {
          done()
          if (id !== undefined)
            this.#reply(
              id,
              toWireError(controller.signal.aborted ? controller.signal.reason : e, params),
            )
        },
      )
  }

  #answer(id: RequestId, result: unknown): void {
    const json = toJson(result)
    if (json === undefined) {
      this.#reply(id, {
        code: ErrorCode.InternalError,
        message: 'the result could not be written as JSON',
        data: { tag: 'Unserialisable' },
      })
      return
    }
    this.#outbox.line(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json}}`)
  }

  #reply(id: RequestId | null, error: WireError): void {
    const json = toJson(error) ?? JSON.stringify({ code: error.code, message: error.message })
    this.#outbox.line(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${json}}`)
  }
}
