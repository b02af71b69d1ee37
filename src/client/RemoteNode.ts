/**
 * `RemoteNode`: one node of a daemon's session, driven over the wire. Each
 * method is one command (`EXECUTE_INPUT`, `RUN_COMMAND`, `SEND_INTERRUPT`,
 * `WRITE_DATA`, `GET_BUFFER`, `GET_HISTORY`, `STOP_NODE`, `FORK_NODE`,
 * `DELETE_NODE`, `GET_NODE`, `GET_CONVERSATION`); `executeStream` adds a subscription to the
 * node's output chunks.
 */
import type { NodeInfo } from '../node/index.js'
import type { HistoryEntry, Params, Results } from '../protocol/index.js'
import type { CallOptions, Calls } from './Calls.js'
import { Stopped } from '../errors.js'

/**
 * Options of {@link RemoteNode.execute}.
 *
 * @category client
 */
export interface ExecuteOptions extends CallOptions {
  /** A parser name the node's interpreter knows (`none`, `claude`, `json`, …). */
  readonly parser?: string
  /** Milliseconds before the daemon gives up (`Timeout` error). */
  readonly timeout?: number
}

/**
 * One item of {@link RemoteNode.executeStream}: output chunks as they come,
 * then the parsed answer, last.
 *
 * @category client
 */
export type StreamItem =
  | { readonly type: 'chunk'; readonly chunk: unknown }
  | { readonly type: 'answer'; readonly answer: unknown }

/**
 * Which history records {@link RemoteNode.history} returns.
 *
 * @category client
 */
export type HistoryQuery = Omit<Params<'GET_HISTORY'>, 'nodeId' | 'sessionId'>

/**
 * A node of a daemon's session.
 *
 * @category client
 */
export class RemoteNode {
  constructor(
    private readonly client: Calls,
    /** The node's name in its session. */
    readonly id: string,
    /** Its session; `undefined` for the daemon's default session. */
    readonly sessionId: string | undefined,
    /** What the daemon said about it when this handle was made, if it said anything. */
    readonly info: NodeInfo | undefined,
  ) {}

  private get where(): { nodeId: string; sessionId?: string } {
    return this.sessionId === undefined
      ? { nodeId: this.id }
      : { nodeId: this.id, sessionId: this.sessionId }
  }

  private static executeParams(options: ExecuteOptions): { parser?: string; timeout?: number } {
    return {
      ...(options.parser !== undefined && { parser: options.parser }),
      ...(options.timeout !== undefined && { timeout: options.timeout }),
    }
  }

  /** Sends `input` and resolves with the parsed answer. */
  execute(input: unknown, options: ExecuteOptions = {}): Promise<unknown> {
    return this.client.call(
      'EXECUTE_INPUT',
      { ...this.where, input, ...RemoteNode.executeParams(options) },
      options,
    )
  }

  /**
   * Sends `input`; yields the node's output chunks as they arrive and, last,
   * the parsed answer. Breaking out of the loop cancels the execute.
   */
  async *executeStream(input: unknown, options: ExecuteOptions = {}): AsyncGenerator<StreamItem> {
    const sub = await this.client.subscribe({ ...this.where, types: ['OUTPUT_CHUNK'] })
    const stop = new AbortController()
    const onAbort = (): void => {
      stop.abort(options.signal?.reason)
    }
    options.signal?.addEventListener('abort', onAbort, { once: true })
    const progress = { answered: false }
    let failure: { error: unknown } | undefined
    let answer: unknown
    const call = this.client
      .call(
        'EXECUTE_INPUT',
        { ...this.where, input, ...RemoteNode.executeParams(options) },
        { signal: stop.signal },
      )
      .then(
        (a) => {
          answer = a
        },
        (e: unknown) => {
          failure = { error: e }
        },
      )
      .finally(() => {
        progress.answered = true
        void sub.unsubscribe()
      })
    try {
      // The subscription ends when the answer arrives; its chunks came before it.
      for await (const event of sub) {
        if (event.type === 'OUTPUT_CHUNK') yield { type: 'chunk', chunk: event.chunk }
      }
      await call
      if (failure !== undefined) throw failure.error
      yield { type: 'answer', answer }
    } finally {
      options.signal?.removeEventListener('abort', onAbort)
      if (!progress.answered) stop.abort(new Stopped('executeStream: the consumer stopped reading'))
      await sub.unsubscribe()
    }
  }

  /** `RUN_COMMAND`: sends `input` without waiting for the answer (a failure becomes an `ERROR` event). */
  run(input: unknown, options: ExecuteOptions = {}): Promise<Results['RUN_COMMAND']> {
    return this.client.call(
      'RUN_COMMAND',
      { ...this.where, input, ...RemoteNode.executeParams(options) },
      options,
    )
  }

  /** `SEND_INTERRUPT`: Ctrl-C to a terminal, or aborts what the node runs. */
  async interrupt(options?: CallOptions): Promise<boolean> {
    return (await this.client.call('SEND_INTERRUPT', this.where, options)).interrupted
  }

  /** `WRITE_DATA`: raw text to a terminal. */
  async write(data: string, options?: CallOptions): Promise<void> {
    await this.client.call('WRITE_DATA', { ...this.where, data }, options)
  }

  /** `GET_BUFFER`: a terminal's whole buffer. */
  async read(options?: CallOptions): Promise<string> {
    return (await this.client.call('GET_BUFFER', { ...this.where }, options)).buffer
  }

  /** `GET_BUFFER` with `lines`: the last `lines` lines of a terminal's buffer. */
  async readTail(lines: number, options?: CallOptions): Promise<string> {
    return (await this.client.call('GET_BUFFER', { ...this.where, lines }, options)).buffer
  }

  /** `GET_HISTORY`: the node's history records, filtered. */
  async history(query: HistoryQuery = {}, options?: CallOptions): Promise<readonly HistoryEntry[]> {
    return (await this.client.call('GET_HISTORY', { ...this.where, ...query }, options)).records
  }

  /** `GET_CONVERSATION`: an LLM node's conversation now, as a Nerve conversation file's JSON. */
  conversation(options?: CallOptions): Promise<Results['GET_CONVERSATION']> {
    return this.client.call('GET_CONVERSATION', this.where, options)
  }

  /** `GET_NODE`: what the daemon says about the node now. */
  describe(options?: CallOptions): Promise<NodeInfo> {
    return this.client.call('GET_NODE', this.where, options)
  }

  /** `STOP_NODE`. */
  stop(options?: CallOptions): Promise<NodeInfo> {
    return this.client.call('STOP_NODE', this.where, options)
  }

  /** `FORK_NODE`: a copy named `targetId` (at a point of history with `at`). */
  async fork(
    targetId: string,
    options: { readonly at?: number } & CallOptions = {},
  ): Promise<RemoteNode> {
    await this.client.call(
      'FORK_NODE',
      {
        sourceId: this.id,
        targetId,
        ...(this.sessionId !== undefined && { sessionId: this.sessionId }),
        ...(options.at !== undefined && { at: options.at }),
      },
      options,
    )
    return new RemoteNode(this.client, targetId, this.sessionId, undefined)
  }

  /** `DELETE_NODE`. */
  async delete(options?: CallOptions): Promise<void> {
    await this.client.call('DELETE_NODE', this.where, options)
  }
}
