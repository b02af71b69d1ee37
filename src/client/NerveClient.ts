/**
 * `NerveClient`: the SDK's connection to a daemon (or to an engine in the
 * same process). Requests are JSON-RPC calls matched to their answers by
 * id; the daemon's errors come back as `ProtocolError`s carrying the tag,
 * code and path the engine sent; an AbortSignal on a call sends
 * `CANCEL_REQUEST`; a lost connection rejects every pending call at once with
 * a {@link ConnectionError}. Every result is decoded with the protocol's
 * codec of its command; one that does not decode rejects the call with a
 * {@link MalformedResult} naming the path. Events reach {@link Subscription}s
 * by id.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { NodeInfo } from '../node/index.js'
import * as E from 'fp-ts/lib/Either.js'
import {
  CANCEL_REQUEST,
  describeError,
  EngineEventCodec,
  EVENT,
  isMethod,
  protocolError,
  resultCodecs,
  runEventTypes,
  type KindInfo,
  type EngineEvent,
  type Method,
  type Params,
  type Results,
  type WireError,
} from '../protocol/index.js'
import { UsageError } from '../errors.js'
import type { CallOptions, Calls, SubscribeFilter } from './Calls.js'
import { ConnectionError } from './ConnectionError.js'
import { defaultDaemonDir, defaultSocketPath } from './daemonDir.js'
import { MalformedResult } from './MalformedResult.js'
import { RemoteChat } from './RemoteChat.js'
import { RemoteNetwork } from './RemoteNetwork.js'
import { RemoteNode } from './RemoteNode.js'
import { RemoteRun } from './RemoteRun.js'
import { Subscription } from './Subscription.js'
import { postWire, streamWire, webSocketWire, type Wire, type WireOpener } from './wire.js'

/**
 * The token of a TCP or HTTP connection: given, or read from a file (by
 * default the daemon's generated `nerve.token` in its directory).
 *
 * @category client
 */
export interface TokenOptions {
  readonly token?: string
  readonly tokenFile?: string
}

/**
 * Which waiting approvals {@link NerveClient.approvals} lists.
 *
 * @category client
 */
export interface ApprovalFilter {
  readonly sessionId?: string
  readonly nodeId?: string
  readonly networkId?: string
}

/**
 * What an approver adds to a decision: who decides, a note, and edited
 * arguments (approve only).
 *
 * @category client
 */
export interface ApprovalAnswer {
  readonly by?: string
  readonly note?: string
  readonly arguments?: Readonly<Record<string, unknown>>
}

interface Pending {
  readonly method: string
  readonly resolve: (value: unknown) => void
  readonly reject: (error: Error) => void
  /** Runs synchronously when the result arrives, before any later line is read. */
  readonly accept?: ((result: unknown) => void) | undefined
  readonly cleanup?: (() => void) | undefined
}

/** What a followed run is told: its own events, its steps' output, and the connection's end or lag. */
const RUN_EVENT_TYPES = [...runEventTypes, 'OUTPUT_CHUNK', 'SERVER_SHUTDOWN', 'LAGGED'] as const

const tokenOf = (options: TokenOptions): string => {
  if (options.token !== undefined) return options.token
  const file = options.tokenFile ?? join(defaultDaemonDir(), 'nerve.token')
  try {
    return readFileSync(file, 'utf8').trim()
  } catch (e) {
    throw new ConnectionError(file, 'no token given and the token file cannot be read', {
      cause: e,
    })
  }
}

/**
 * A connection to a Nerve daemon, or to an engine in this process
 * (`standaloneClient` and `inProcessClient` of `nerve-agents/server`). All
 * kinds speak the same protocol and behave the same.
 *
 * @category client
 * @example
 * import { standaloneClient } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * const client = await standaloneClient({ history: false })
 * const node = await client.createNode('sh', 'bash')
 * const answer = (await node.execute('echo hello')) as { stdout: string }
 * assert.strictEqual(answer.stdout.trim(), 'hello')
 * assert.deepStrictEqual((await client.listNodes()).map((n) => n.id), ['sh'])
 * await client.close()
 */
export class NerveClient implements Calls {
  private nextId = 1
  private readonly pending = new Map<number, Pending>()
  private readonly subscriptions = new Map<string, Subscription>()
  private wire: Wire | undefined
  private lost: ConnectionError | undefined
  private resolveClosed!: (e: ConnectionError) => void
  /** Resolves with the reason once the connection has ended (closed here, or lost). */
  readonly closed: Promise<ConnectionError>

  private constructor(private readonly onClose: (() => Promise<void>) | undefined) {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve
    })
  }

  /**
   * A client over a wire of your own making (`streamWire`, `webSocketWire`,
   * `postWire`, the server's in-process wire); `onClose` runs after the
   * connection is closed here (e.g. shutting down an engine it owns).
   */
  static async open(opener: WireOpener, onClose?: () => Promise<void>): Promise<NerveClient> {
    const client = new NerveClient(onClose)
    client.wire = await opener({
      line: (line) => {
        client.receive(line)
      },
      closed: (error) => {
        client.lose(error)
      },
    })
    return client
  }

  /**
   * Connects to the daemon's Unix socket (by default `$XDG_RUNTIME_DIR/nerve/nerve.sock`
   * or `~/.nerve/nerve.sock`). Rejects with a {@link ConnectionError} when nothing listens.
   */
  static connect(socketPath: string = defaultSocketPath()): Promise<NerveClient> {
    return NerveClient.open(streamWire({ path: socketPath }))
  }

  /** Connects over TCP, presenting the token first. */
  static connectTcp(host: string, port: number, options: TokenOptions = {}): Promise<NerveClient> {
    return NerveClient.open(streamWire({ host, port }, tokenOf(options)))
  }

  /**
   * Connects over HTTP: the WebSocket `/ws` (events included) by default, or
   * one `POST /rpc` per call with `{ post: true }` (no events, no subscriptions).
   * `url` is the server's base URL, e.g. `http://127.0.0.1:7070`.
   */
  static connectHttp(
    url: string,
    options: TokenOptions & { readonly post?: boolean } = {},
  ): Promise<NerveClient> {
    const base = url.replace(/\/+$/, '')
    const token = tokenOf(options)
    return NerveClient.open(
      options.post === true
        ? postWire(`${base}/rpc`, token)
        : webSocketWire(`${base.replace(/^http/, 'ws')}/ws`, token),
    )
  }

  /** Where the client is connected: a socket path, `host:port`, a URL or `in-process`. */
  get address(): string {
    return this.wire!.address
  }

  /** Whether events reach this client (all transports but `POST /rpc`). */
  get carriesEvents(): boolean {
    return this.wire!.events
  }

  /** Whether the connection is still up. */
  get connected(): boolean {
    return this.lost === undefined
  }

  // ------------------------------------------------------------ the wire

  /**
   * Sends one command and resolves with its result. The typed methods below
   * are built on it; use it for a command they do not cover.
   */
  call<M extends Method>(method: M, params: Params<M>, options?: CallOptions): Promise<Results[M]>
  call(method: string, params?: object, options?: CallOptions): Promise<unknown>
  call(method: string, params: object = {}, options: CallOptions = {}): Promise<unknown> {
    return this.request(method, params, options)
  }

  /** @internal {@link call} with a synchronous hook run as the result arrives. */
  request(
    method: string,
    params: object,
    options: CallOptions,
    accept?: (result: unknown) => void,
  ): Promise<unknown> {
    if (this.lost !== undefined) return Promise.reject(this.lost)
    const { signal } = options
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error)
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      let cleanup: (() => void) | undefined
      if (signal !== undefined) {
        const onAbort = (): void => {
          if (!this.pending.delete(id)) return
          this.notify(CANCEL_REQUEST, { id })
          reject(signal.reason as Error)
        }
        signal.addEventListener('abort', onAbort, { once: true })
        cleanup = () => {
          signal.removeEventListener('abort', onAbort)
        }
      }
      this.pending.set(id, { method, resolve, reject, accept, cleanup })
      this.wire!.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  private notify(method: string, params: object): void {
    if (this.lost === undefined) this.wire!.send(JSON.stringify({ jsonrpc: '2.0', method, params }))
  }

  private receive(line: string): void {
    let msg: {
      id?: unknown
      method?: unknown
      params?: { subscription?: unknown; event?: EngineEvent }
      result?: unknown
      error?: WireError
    }
    try {
      msg = JSON.parse(line) as typeof msg
    } catch {
      return // the daemon does not send such lines; nothing to match it to
    }
    if (msg.method === EVENT) {
      const sub = this.subscriptions.get(String(msg.params?.subscription))
      if (sub === undefined || msg.params?.event === undefined) return
      const event = EngineEventCodec.decode(msg.params.event)
      // An event that does not decode reaches the subscriber as an ERROR event saying where.
      sub.push(
        E.isRight(event)
          ? event.right
          : {
              type: 'ERROR',
              time: new Date().toISOString(),
              error: {
                tag: 'MalformedEvent',
                message: event.left.map(describeError).join('; '),
              },
            },
      )
      return
    }
    if (typeof msg.id !== 'number') return // an error about a line the daemon could not read
    const p = this.pending.get(msg.id)
    if (p === undefined) return // a call cancelled here, answered meanwhile
    this.pending.delete(msg.id)
    p.cleanup?.()
    if (msg.error !== undefined) {
      p.reject(protocolError(msg.error))
      return
    }
    if (!isMethod(p.method)) {
      p.accept?.(msg.result) // a command this protocol does not know: taken as it came
      p.resolve(msg.result)
      return
    }
    const decoded = resultCodecs[p.method].decode(msg.result)
    if (E.isLeft(decoded)) {
      p.reject(new MalformedResult(p.method, decoded.left))
      return
    }
    p.accept?.(decoded.right)
    p.resolve(decoded.right)
  }

  private lose(error: ConnectionError): void {
    if (this.lost !== undefined) return
    this.lost = error
    const pending = [...this.pending.values()]
    this.pending.clear()
    for (const p of pending) {
      p.cleanup?.()
      p.reject(error)
    }
    for (const s of this.subscriptions.values()) s.finish(error)
    this.subscriptions.clear()
    this.resolveClosed(error)
  }

  // ------------------------------------------------------------ commands

  /** `PING`: the round trip to the daemon. */
  ping(options?: CallOptions): Promise<Results['PING']> {
    return this.call('PING', {}, options)
  }

  /** `LIST_KINDS`: the node kinds the daemon runs, those `createNode` makes among them. */
  async listKinds(options?: CallOptions): Promise<readonly KindInfo[]> {
    return (await this.call('LIST_KINDS', {}, options)).kinds
  }

  /** `CREATE_NODE`: a node of `kind` (a name or alias `listKinds` gives) named `nodeId`, with the kind's options. */
  async createNode(
    nodeId: string,
    kind: string,
    options: { readonly options?: Record<string, unknown>; readonly sessionId?: string } = {},
  ): Promise<RemoteNode> {
    const info = await this.call('CREATE_NODE', { nodeId, kind, ...options })
    return new RemoteNode(this, nodeId, options.sessionId, info)
  }

  /** `GET_NODE`: a node that exists (rejects with `UnknownNode` otherwise). */
  async getNode(nodeId: string, sessionId?: string): Promise<RemoteNode> {
    const info = await this.call('GET_NODE', {
      nodeId,
      ...(sessionId !== undefined && { sessionId }),
    })
    return new RemoteNode(this, nodeId, sessionId, info)
  }

  /** A handle on a node by name, without a round trip. */
  node(nodeId: string, sessionId?: string): RemoteNode {
    return new RemoteNode(this, nodeId, sessionId, undefined)
  }

  /** `LIST_NODES`: the nodes of a session. */
  async listNodes(sessionId?: string): Promise<readonly NodeInfo[]> {
    return (await this.call('LIST_NODES', sessionId === undefined ? {} : { sessionId })).nodes
  }

  /** `FORK_NODE`: a copy of `sourceId` named `targetId` (at a point of its history with `at`). */
  async forkNode(
    sourceId: string,
    targetId: string,
    options: { readonly at?: number; readonly sessionId?: string } = {},
  ): Promise<RemoteNode> {
    await this.call('FORK_NODE', { sourceId, targetId, ...options })
    return new RemoteNode(this, targetId, options.sessionId, undefined)
  }

  /** `DELETE_NODE`: stops the node and forgets it. */
  async deleteNode(nodeId: string, sessionId?: string): Promise<void> {
    await this.call('DELETE_NODE', { nodeId, ...(sessionId !== undefined && { sessionId }) })
  }

  /**
   * `EXECUTE_GRAPH`: starts a graph-file value; the run's events are
   * subscribed before it starts, so none is missed.
   */
  async runGraph(
    graph: unknown,
    options: {
      readonly input?: unknown
      readonly sessionId?: string
      /** Record the run: its info (`result()`) then carries a `recording` to replay. */
      readonly record?: boolean
      /** Where the nodes the file describes run when they name no `cwd` (default: the daemon's directory). */
      readonly cwd?: string
    } = {},
  ): Promise<RemoteRun> {
    const events = this.wire!.events
      ? await this.subscribe({
          ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
          types: RUN_EVENT_TYPES,
        })
      : undefined
    try {
      const { runId } = await this.call('EXECUTE_GRAPH', { graph, ...options })
      return new RemoteRun(this, runId, events)
    } catch (e) {
      await events?.unsubscribe()
      throw e
    }
  }

  /** `LIST_RUNS`: the daemon's graph runs, running and the last finished, oldest first. */
  async listRuns(sessionId?: string): Promise<Results['LIST_RUNS']['runs']> {
    return (await this.call('LIST_RUNS', sessionId === undefined ? {} : { sessionId })).runs
  }

  /**
   * A run already going (or ended) on the daemon, followed from now: its
   * events from this call to its end (those before are not replayed), and
   * its `result()`.
   */
  async watchRun(runId: string): Promise<RemoteRun> {
    const events = this.wire!.events
      ? await this.subscribe({
          runId,
          types: RUN_EVENT_TYPES,
        })
      : undefined
    return new RemoteRun(this, runId, events)
  }

  /** A handle on a run by id (its events are not followed). */
  run(runId: string): RemoteRun {
    return new RemoteRun(this, runId, undefined)
  }

  /**
   * `CREATE_NETWORK`: starts a network-file value on the daemon, as
   * `networkId` (default the file's id), working in `root` (default the
   * daemon's directory). Its events are subscribed before it starts.
   */
  async createNetwork(
    network: unknown,
    options: {
      readonly networkId?: string
      readonly root?: string
      readonly sessionId?: string
    } = {},
  ): Promise<RemoteNetwork> {
    const fileId = (network as { id?: unknown } | null)?.id
    const networkId = options.networkId ?? (typeof fileId === 'string' ? fileId : undefined)
    const events =
      this.wire!.events && networkId !== undefined ? await this.subscribe({ networkId }) : undefined
    try {
      const info = await this.call('CREATE_NETWORK', { network, ...options })
      return new RemoteNetwork(this, info.networkId, events)
    } catch (e) {
      await events?.unsubscribe()
      throw e
    }
  }

  /**
   * A network already running on the daemon, followed from now: its events
   * from this call to its `NETWORK_COMPLETED` (those before are not replayed).
   */
  async watchNetwork(networkId: string): Promise<RemoteNetwork> {
    const events = this.wire!.events ? await this.subscribe({ networkId }) : undefined
    return new RemoteNetwork(this, networkId, events)
  }

  /** A handle on a network by id (its events are not followed). */
  network(networkId: string): RemoteNetwork {
    return new RemoteNetwork(this, networkId, undefined)
  }

  /** `LIST_NETWORKS`: the running networks and the last finished ones. */
  async listNetworks(): Promise<Results['LIST_NETWORKS']['networks']> {
    return (await this.call('LIST_NETWORKS', {})).networks
  }

  /** `LIST_SAVED_SESSIONS`: the sessions the daemon's store saved (`NoStore` without one). */
  async savedSessions(): Promise<Results['LIST_SAVED_SESSIONS']['sessions']> {
    return (await this.call('LIST_SAVED_SESSIONS', {})).sessions
  }

  /** `GET_SAVED_SESSION`: a saved session and its nodes, an LLM node with its conversation. */
  async savedSession(sessionId: string): Promise<Results['GET_SAVED_SESSION']> {
    return this.call('GET_SAVED_SESSION', { sessionId })
  }

  /**
   * `LOAD_SAVED_SESSION`: the nodes a saved session held, registered again
   * live in the open session `into` (default: the daemon's), an LLM node
   * with its conversation; what was registered and what was skipped, with why.
   */
  async loadSavedSession(sessionId: string, into?: string): Promise<Results['LOAD_SAVED_SESSION']> {
    return this.call('LOAD_SAVED_SESSION', { sessionId, ...(into !== undefined && { into }) })
  }

  /** `LIST_RECORDINGS`: the recordings of recorded runs the daemon's store keeps. */
  async recordings(): Promise<Results['LIST_RECORDINGS']['recordings']> {
    return (await this.call('LIST_RECORDINGS', {})).recordings
  }

  /**
   * `REPLAY_GRAPH`: a recording's graph run again, its steps answered from
   * the recording (or, `from` a step on, live); answers the new run's id.
   */
  async replay(
    recordingId: string,
    options: Omit<Params<'REPLAY_GRAPH'>, 'recordingId'> = {},
  ): Promise<string> {
    return (await this.call('REPLAY_GRAPH', { recordingId, ...options })).runId
  }

  /**
   * `CHAT_CREATE`: opens the chat kept under `chatId`, or a new one that
   * runs `graph` (a graph-file value; `step` names its agent, `output` the
   * answer's step when it has none) or the canonical graph of an `agent`
   * (an llm node's options: `provider`, `system`, `model`, …; default the
   * engine's default provider).
   */
  async chat(
    chatId: string,
    options: Omit<Params<'CHAT_CREATE'>, 'chatId'> = {},
  ): Promise<RemoteChat> {
    await this.call('CHAT_CREATE', { chatId, ...options })
    return new RemoteChat(this, chatId, options.sessionId)
  }

  /**
   * `LIST_APPROVALS`: the approval requests waiting — CLI agents'
   * permission prompts, tool calls and gates of runs, networks' actions —
   * oldest first; only those of a session, node or network when `filter`
   * names one.
   */
  async approvals(filter: ApprovalFilter = {}): Promise<Results['LIST_APPROVALS']['pending']> {
    return (await this.call('LIST_APPROVALS', filter)).pending
  }

  /**
   * `APPROVE`: a waiting request is approved (by `user` unless `by` says);
   * `arguments` replaces a tool call's arguments where the asker allows it.
   */
  async approve(requestId: string, decision: ApprovalAnswer = {}): Promise<void> {
    await this.call('APPROVE', { requestId, ...decision })
  }

  /** `DENY`: a waiting request is denied. */
  async deny(requestId: string, decision: Omit<ApprovalAnswer, 'arguments'> = {}): Promise<void> {
    await this.call('DENY', { requestId, ...decision })
  }

  /** `SUBSCRIBE`: events that match `filter`, as an AsyncIterable. */
  async subscribe(filter: SubscribeFilter = {}): Promise<Subscription> {
    if (!this.wire!.events) {
      throw new UsageError(
        'subscribe',
        `${this.address} carries no events: use the WebSocket (connectHttp without post)`,
      )
    }
    let sub: Subscription | undefined
    await this.request('SUBSCRIBE', filter, {}, (result) => {
      // Registered before any later line is read: its first events cannot be missed.
      const id = (result as Results['SUBSCRIBE']).subscription
      sub = new Subscription(id, async (s) => {
        this.subscriptions.delete(s)
        await this.call('UNSUBSCRIBE', { subscription: s })
      })
      this.subscriptions.set(id, sub)
    })
    return sub!
  }

  /** `SAVE_SESSION`. */
  saveSession(sessionId?: string): Promise<Results['SAVE_SESSION']> {
    return this.call('SAVE_SESSION', sessionId === undefined ? {} : { sessionId })
  }

  /** `SHUTDOWN`: the daemon shuts down gracefully; the connection then ends. */
  shutdown(): Promise<Results['SHUTDOWN']> {
    return this.call('SHUTDOWN', {})
  }

  /** Closes the connection (and shuts down a standalone engine). Pending calls reject with a ConnectionError. */
  async close(): Promise<void> {
    this.wire?.close()
    this.lose(new ConnectionError(this.wire?.address ?? 'client', 'closed by the client'))
    if (this.onClose !== undefined) await this.onClose()
  }
}
