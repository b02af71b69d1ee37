/**
 * What a remote handle ({@link RemoteNode}, {@link RemoteRun}) needs of its
 * client: calls, subscriptions, and whether events reach it. `NerveClient`
 * is the one implementation; the handles depend on this, not on it.
 */
import type { Method, Params, Results } from '../protocol/index.js'
import type { Subscription } from './Subscription.js'

/**
 * Options of one call.
 *
 * @category client
 */
export interface CallOptions {
  /** Aborting it rejects the call with the signal's reason and cancels it on the daemon. */
  readonly signal?: AbortSignal | undefined
}

/**
 * Which events a subscription receives: all of a session's (the default
 * session when `sessionId` is absent), narrowed by node, run and types.
 *
 * @category client
 */
export type SubscribeFilter = Omit<Params<'SUBSCRIBE'>, never>

/**
 * The calls a remote handle makes through its client.
 *
 * @category client
 */
export interface Calls {
  call<M extends Method>(method: M, params: Params<M>, options?: CallOptions): Promise<Results[M]>
  subscribe(filter?: SubscribeFilter): Promise<Subscription>
  /** Whether the connection carries events (a `POST /rpc` client does not). */
  readonly carriesEvents: boolean
}
