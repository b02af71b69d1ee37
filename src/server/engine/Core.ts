import {
  builtinKinds,
  kindsOf,
  providerFromEnv,
  type Kinds,
  type Provider,
} from '../../interpreters/index.js'
import { systemClock, type Clock, type RunControl } from '../../runtime/index.js'
import { randomBytes } from 'node:crypto'
import {
  historyDir,
  sessionManager,
  type Session,
  type SessionManager,
} from '../../session/index.js'
import type { EngineEvent, SessionSummary } from '../../protocol/index.js'
import { echoProvider } from './echoProvider.js'
import {
  DefaultSession,
  NoStore,
  RequestCancelled,
  SessionExists,
  ShuttingDown,
  UnknownSession,
} from './errors.js'
import { nodeEvent } from './eventMap.js'
import { errorShape } from './json.js'
import { askPermission, engineControl } from './approvals.js'
import { Networks } from './networks.js'
import { limitsOf, type EngineOptions, type Limits, type SessionRestored } from './options.js'
import { Runs } from './runs.js'
import { Chats } from './chats.js'
import { memoryChatStore } from '../../chat/index.js'
import { restoreNodes, type SqliteStore } from '../../store/index.js'

/** Whether a store keeps nodes and conversations (the SQLite one). */
const isSqlite = (store: unknown): store is SqliteStore =>
  typeof (store as Partial<SqliteStore> | undefined)?.nodes === 'function' &&
  typeof (store as Partial<SqliteStore> | undefined)?.conversation === 'function'
import { SessionKit, type KitOptions } from './SessionKit.js'
import { SessionWriter } from './persist.js'

/** What the engine's connections give the core: a place to publish events. */
export interface Listener {
  publish(event: EngineEvent, json?: string): string | undefined
  /** The engine is gone: cancel what is in flight. */
  abortAll(reason: unknown): void
}

/**
 * A server name of this engine's own, for its histories: its start time,
 * pid and a random part, so two engines never share a history file.
 */
const engineName = (): string =>
  `engine-${new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${process.pid}-${randomBytes(3).toString('hex')}`

const providersOf = (options: EngineOptions): Readonly<Record<string, Provider>> => {
  // Streamed, so that a face sees an answer as it is written (CHAT_DELTA, OUTPUT_CHUNK).
  const env = providerFromEnv(options.env ?? process.env, { stream: true })
  return Object.freeze({
    echo: echoProvider,
    default: env ?? echoProvider,
    ...(env !== undefined && { [env.name]: env }),
    ...options.providers,
  })
}

/**
 * The state of an engine: its session manager and the kit of each session,
 * its graph runs, its connections (as listeners of events), and shutdown.
 * The commands work on it; it does no I/O of its own beyond the sessions'.
 */
export class Core {
  readonly limits: Limits
  readonly clock: Clock
  readonly runs: Runs
  readonly networks: Networks
  readonly chats: Chats
  /** Run control: every approval the engine's runs, nodes and networks ask. */
  readonly control: RunControl
  readonly providers: readonly string[]
  /** The kinds the engine runs: the built-in ones and those it was given. */
  readonly kinds: Kinds
  readonly defaultId: string
  readonly listeners = new Set<Listener>()
  readonly #manager: SessionManager
  readonly #kits = new Map<string, SessionKit>()
  readonly #kitOptions: KitOptions
  readonly #hasStore: boolean
  /** The engine's store when it keeps nodes, conversations and recordings (SQLite). */
  readonly sqlite: SqliteStore | undefined
  /** Writes nodes and conversations to the SQLite store as they change. */
  readonly #writer: SessionWriter | undefined
  readonly ready: Promise<void>
  /** What the engine brought back from its store at start, by session. */
  readonly restored: Promise<readonly SessionRestored[]>
  #shutdown: Promise<void> | undefined
  readonly closed: Promise<void>
  #resolveClosed!: () => void

  constructor(options: EngineOptions) {
    this.limits = limitsOf(options)
    this.clock = options.clock ?? systemClock
    const keep = options.store?.saveRecording?.bind(options.store)
    const sqlite = isSqlite(options.store) ? options.store : undefined
    this.runs = new Runs(
      this.limits.keptRuns,
      keep && ((recording, graph) => keep(recording, { graph })),
      sqlite &&
        ((trace, sessionId) => {
          try {
            sqlite.saveTrace(trace, sessionId)
          } catch (e) {
            this.publish({ type: 'ERROR', time: this.now(), sessionId, error: errorShape(e) })
          }
        }),
    )
    this.networks = new Networks(this.limits.keptRuns)
    this.chats = new Chats(
      options.chats ?? (isSqlite(options.store) ? options.store : memoryChatStore()),
    )
    this.control = engineControl({
      clock: this.clock,
      defaultSession: options.defaultSession ?? 'default',
      now: () => this.now(),
      publish: (e) => {
        this.publish(e)
      },
      isNetwork: (runId) => this.networks.has(runId),
    })
    const providers = providersOf(options)
    this.providers = Object.freeze(Object.keys(providers))
    this.kinds = kindsOf(...builtinKinds.values(), ...(options.kinds ?? []))
    this.defaultId = options.defaultSession ?? 'default'
    this.#hasStore = options.store !== undefined
    this.sqlite = sqlite
    this.#writer =
      this.sqlite &&
      new SessionWriter(this.sqlite, (sessionId, error) => {
        this.publish({ type: 'ERROR', time: this.now(), sessionId, error: errorShape(error) })
      })
    const history = options.history === false ? undefined : (options.history ?? {})
    this.#kitOptions = {
      kinds: this.kinds,
      providers,
      tools: options.tools ?? [],
      extra: options.interpreters ?? [],
      history:
        history === undefined
          ? undefined
          : { dir: historyDir(history), server: history.server ?? engineName() },
      clock: options.clock,
      control: this.control,
      onPermission: (sessionId, request, answer) =>
        askPermission(
          this.control,
          sessionId,
          this.#kits.get(sessionId)?.session?.get(request.nodeId),
          request,
          answer,
        ),
      onHistoryError: (sessionId, error) => {
        this.publish({ type: 'ERROR', time: this.now(), sessionId, error: errorShape(error) })
      },
    }
    this.#manager = sessionManager({
      ...(options.clock !== undefined && { clock: options.clock }),
      ...(options.store !== undefined && { store: options.store }),
    })
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve
    })
    this.restored = this.#restore(options.store)
    void this.restored.then(options.onRestored, () => undefined)
    this.ready = this.restored.then(() => undefined)
    this.ready.catch(() => undefined) // a failing store fails each call, not the process
  }

  /** The engine's providers by name (`llm` nodes and network nodes name them). */
  get providerTable(): KitOptions['providers'] {
    return this.#kitOptions.providers
  }

  /** Where node histories are written; `undefined` when the engine records none. */
  get historyRoot(): KitOptions['history'] {
    return this.#kitOptions.history
  }

  get shuttingDown(): boolean {
    return this.#shutdown !== undefined
  }

  now(): string {
    return new Date(this.clock.now()).toISOString()
  }

  publish(event: EngineEvent): void {
    this.runs.saw(event) // where a run's steps stand, for GET_RUN while it runs
    let json: string | undefined
    for (const l of this.listeners) json = l.publish(event, json)
  }

  /** The kit of a session (the default one without an id); UnknownSession when there is none. */
  async kit(sessionId: string | undefined): Promise<SessionKit & { readonly session: Session }> {
    await this.ready
    const id = sessionId ?? this.defaultId
    const kit = this.#kits.get(id)
    if (kit?.session === undefined || kit.session.closed) throw new UnknownSession(id)
    return kit as SessionKit & { readonly session: Session }
  }

  async createSession(
    id: string,
    tags: readonly string[] = [],
    metadata: Readonly<Record<string, unknown>> = {},
  ): Promise<SessionSummary> {
    await this.ready
    if (this.shuttingDown) throw new ShuttingDown()
    if (this.#kits.has(id)) throw new SessionExists(id)
    const summary = this.summary(await this.#open(id, tags, metadata))
    this.publish({ type: 'SESSION_CREATED', time: this.now(), sessionId: id, session: summary })
    return summary
  }

  async closeSession(id: string): Promise<boolean> {
    await this.ready
    if (id === this.defaultId) throw new DefaultSession(id)
    const kit = this.#kits.get(id)
    if (kit === undefined) throw new UnknownSession(id)
    this.#kits.delete(id)
    kit.session?.interrupt(undefined, new RequestCancelled('the session was closed'))
    await this.#manager.close(id)
    this.publish({ type: 'SESSION_CLOSED', time: this.now(), sessionId: id })
    return true
  }

  async saveSession(id: string | undefined): Promise<string> {
    const kit = await this.kit(id)
    if (!this.#hasStore) throw new NoStore()
    await this.#manager.save(kit.session.id)
    return kit.session.id
  }

  sessions(): readonly SessionSummary[] {
    return [...this.#kits.values()].flatMap((k) =>
      k.session === undefined || k.session.closed ? [] : [this.summary(k.session)],
    )
  }

  summary(session: Session): SessionSummary {
    return Object.freeze({
      sessionId: session.id,
      name: session.name,
      default: session.id === this.defaultId,
      createdAt: session.createdAt,
      tags: session.tags,
      nodes: session.size,
    })
  }

  /**
   * Cancels running graphs, saves every session (with a store), closes
   * them (which stops their nodes), stops terminals graph runs left,
   * tells subscribers `SERVER_SHUTDOWN`, and resolves `closed`. Idempotent.
   */
  shutdown(): Promise<void> {
    if (this.#shutdown !== undefined) return this.#shutdown
    const reason = new ShuttingDown()
    this.#shutdown = (async () => {
      await this.ready.catch(() => undefined)
      await this.runs.cancelAll(reason)
      this.chats.cancelAll(reason)
      await this.networks.stopAll()
      for (const l of this.listeners) l.abortAll(reason)
      const kits = [...this.#kits.values()]
      for (const k of kits) k.session?.interrupt(undefined, reason)
      this.#writer?.stop()
      if (this.#hasStore) {
        await Promise.allSettled(kits.map((k) => this.#manager.save(k.id)))
      }
      await Promise.allSettled(kits.map((k) => k.session?.close() ?? Promise.resolve()))
      this.publish({ type: 'SERVER_SHUTDOWN', time: this.now() })
    })().finally(() => {
      this.#resolveClosed()
    })
    return this.#shutdown
  }

  /**
   * Opens the default session and every session the store saved, their
   * nodes rebuilt when the store keeps nodes (SQLite): see `restoreNodes`.
   */
  async #restore(store: EngineOptions['store']): Promise<readonly SessionRestored[]> {
    const records = (await store?.load?.()) ?? []
    const byId = new Map(records.map((r) => [r.id, r]))
    const ids = new Set([this.defaultId, ...byId.keys()])
    const out: SessionRestored[] = []
    for (const id of ids) {
      const r = byId.get(id)
      const session = await this.#open(id, r?.tags, r?.metadata)
      if (r !== undefined && isSqlite(store)) {
        out.push({ sessionId: id, ...restoreNodes(store, session, this.kinds) })
      }
    }
    return Object.freeze(out)
  }

  async #open(
    id: string,
    tags: readonly string[] = [],
    metadata: Readonly<Record<string, unknown>> = {},
  ): Promise<Session> {
    const kit = new SessionKit(id, this.#kitOptions)
    this.#kits.set(id, kit)
    try {
      const session = await this.#manager.create({
        id,
        name: id,
        tags,
        metadata,
        interpreters: kit.registry,
        onEvent: (e) => {
          this.#writer?.note(session, e)
          const event = nodeEvent(e, (name) => session.state(name))
          if (event !== undefined) this.publish(event)
        },
      })
      kit.session = session
      return session
    } catch (e) {
      this.#kits.delete(id)
      throw e
    }
  }
}
