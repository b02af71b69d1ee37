import { UsageError } from '../../errors.js'
import type { Kind, Provider, Tool } from '../../interpreters/index.js'
import type { Interpreter } from '../../node/index.js'
import type { SessionRecord, SessionRecordSink } from '../../session/index.js'
import type { Recording, Restored } from '../../store/index.js'
import type { ChatStore } from '../../chat/index.js'
import type { Clock } from '../../runtime/index.js'

/**
 * Per-connection limits of an engine. Each is a positive integer.
 *
 * @category engine
 */
export interface EngineLimits {
  /** Subscriptions one connection may hold at once. Default: 64. */
  readonly maxSubscriptions?: number
  /** Events held for one subscription while its connection is congested; older ones are dropped (and counted in a `LAGGED` event). Default: 1024. */
  readonly eventBuffer?: number
  /** Characters of event JSON held for one subscription while its connection is congested (the newest event is always kept); older events are dropped and counted alike. Default: 4 MiB. */
  readonly eventBufferBytes?: number
  /** Requests of one connection running at once; more are refused with `TooManyRequests`. Default: 256. */
  readonly maxInFlight?: number
  /** Finished graph runs `GET_RUN` still knows (the oldest are forgotten first). Default: 256. */
  readonly keptRuns?: number
}

/**
 * Where node histories are written: `<dir>/<server>/<session>/<node>.jsonl`.
 * By default each engine writes under a server name of its own, in
 * `history` of Nerve's home (`NERVE_HOME`, else `~/.nerve`): a new engine
 * never reads an unrelated earlier engine's records, and nothing lands in
 * the working directory.
 *
 * @category engine
 */
export interface EngineHistory {
  /** The histories directory. Default: `history` in Nerve's home (see `historyDir`). */
  readonly dir?: string
  /** A project directory whose `.nerve/history` holds the histories, when asked for; `dir` wins. */
  readonly root?: string
  /** Default: a name of this engine's own, `engine-<start time>-<pid>-<random>`. */
  readonly server?: string
}

/**
 * What an engine brought back of one saved session: the nodes it registered
 * again and those it could not, with why.
 *
 * @category engine
 */
export interface SessionRestored extends Restored {
  readonly sessionId: string
}

/**
 * Options of `createEngine`.
 *
 * @category engine
 */
export interface EngineOptions {
  /** The id (and name) of the default session, the one a call without `sessionId` uses. Default: `'default'`. */
  readonly defaultSession?: string
  /**
   * Model providers by the names LLM nodes give (`options.provider`). Over
   * these come the built-in `echo` provider (deterministic: it answers the
   * last user message, for tests and demos) and, when the environment names
   * one (see `providerFromEnv`), that provider, streaming its answers,
   * under its own name and as `default`; without one, `default` is `echo`.
   */
  readonly providers?: Readonly<Record<string, Provider>>
  /** The environment `providerFromEnv` reads. Default: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Tools LLM nodes may name. */
  readonly tools?: readonly Tool[]
  /**
   * Node kinds of your own (each a `Kind`: its options codec, builder,
   * interpreter factory and capabilities), beside the built-in ones; a kind
   * named like a built-in one replaces it. `CREATE_NODE`, `LIST_KINDS`,
   * graph files and the store take them like the built-in ones.
   */
  readonly kinds?: readonly Kind[]
  /** More interpreters, added to every session's (a kind given here replaces the built-in one). */
  readonly interpreters?: readonly Interpreter[]
  /** Where `SAVE_SESSION` and shutdown save session records (e.g. a `sessionStore`). Without one, `SAVE_SESSION` fails with `NoStore`. */
  readonly store?: SessionRecordSink & {
    /** With it, the sessions saved there are opened again when the engine starts. */
    readonly load?: () => Promise<readonly SessionRecord[]>
    /** With it (the SQLite store), each recorded run's recording is saved there under its run id, with its graph file. */
    readonly saveRecording?: (recording: Recording, options: { readonly graph?: unknown }) => string
  }
  /** Where chats are kept. Default: `store` when it is the SQLite one, else memory (chats last as long as the engine). */
  readonly chats?: ChatStore
  /** Told, once the engine has opened them, what it brought back of the sessions its store saved. */
  readonly onRestored?: (sessions: readonly SessionRestored[]) => void
  /** Where node histories go, or `false` to record none. Default: `{}` (Nerve's home, this engine's own server name). */
  readonly history?: EngineHistory | false
  readonly clock?: Clock
  readonly limits?: EngineLimits
}

/** The limits with their defaults filled in. */
export type Limits = Required<EngineLimits>

const DEFAULTS: Limits = Object.freeze({
  maxSubscriptions: 64,
  eventBuffer: 1024,
  eventBufferBytes: 4 * 1024 * 1024,
  maxInFlight: 256,
  keptRuns: 256,
})

/** The limits of `options`, checked (a `UsageError` names a bad one). */
export const limitsOf = (options: EngineOptions): Limits => {
  const given = options.limits ?? {}
  const out: Record<string, number> = { ...DEFAULTS }
  for (const [key, value] of Object.entries(given)) {
    if (!Object.hasOwn(DEFAULTS, key)) {
      throw new UsageError('createEngine', `options.limits.${key} is not a limit`)
    }
    if (value === undefined) continue
    if (!Number.isSafeInteger(value) || (value as number) < 1) {
      throw new UsageError(
        'createEngine',
        `options.limits.${key} must be a positive integer, got ${String(value)}`,
      )
    }
    out[key] = value as number
  }
  return Object.freeze(out) as Limits
}
