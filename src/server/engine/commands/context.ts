import type { Method, Params, Results } from '../../../protocol/index.js'
import type { Core } from '../Core.js'
import type { Outbox } from '../Outbox.js'

/** What a command gets beside its params: the engine, the call's signal, the caller's outbox. */
export interface CallContext {
  readonly core: Core
  /** Aborted by `CANCEL_REQUEST`, by the peer going away, or by shutdown. */
  readonly signal: AbortSignal
  readonly outbox: Outbox
}

/** A command: decoded params in, result out (or a rejection with a tagged error). */
export type Command<M extends Method> = (params: Params<M>, ctx: CallContext) => Promise<Results[M]>

/** The commands of a group, by method name. */
export type Commands<M extends Method> = { readonly [K in M]: Command<K> }

/** Throws the signal's reason (a RequestCancelled, a RequestTimeout) when it was aborted, else `e`. */
export const rethrow = (signal: AbortSignal, e: unknown): never => {
  if (signal.aborted) throw signal.reason
  throw e
}
