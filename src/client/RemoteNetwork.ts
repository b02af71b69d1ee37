/**
 * `RemoteNetwork`: a live agent network on the daemon. Each method is one
 * network command; `events()` are the network's own events from its start
 * (the client subscribed before creating it, so none is missed) to its
 * `NETWORK_COMPLETED`.
 */
import type { Envelope, NodeMode, Patch, WorkflowMode } from '../network/index.js'
import type { EngineEvent, NetworkInfo, NetworkPatches } from '../protocol/index.js'
import type { CallOptions, Calls } from './Calls.js'
import type { Subscription } from './Subscription.js'

/**
 * A live network on the daemon.
 *
 * @category client
 */
export class RemoteNetwork {
  constructor(
    private readonly client: Calls,
    /** The network's id. */
    readonly networkId: string,
    private readonly subscription: Subscription | undefined,
  ) {}

  private get id(): { readonly networkId: string } {
    return { networkId: this.networkId }
  }

  /** `GET_NETWORK`: its state, the network as it is now, envelopes, Done, halts, usage, approvals waiting. */
  info(options?: CallOptions): Promise<NetworkInfo> {
    return this.client.call('GET_NETWORK', this.id, options)
  }

  /** `SEND_ENVELOPE`: a user message to a node; the envelope sent. */
  async send(nodeId: string, message: string, structured?: unknown): Promise<Envelope> {
    const params = { ...this.id, nodeId, message, ...(structured !== undefined && { structured }) }
    return (await this.client.call('SEND_ENVELOPE', params)).envelope
  }

  /** `TRIGGER_NODE`: fires a node now (a `manual` node's only way to fire). */
  async trigger(nodeId: string, message?: string): Promise<void> {
    await this.client.call('TRIGGER_NODE', {
      ...this.id,
      nodeId,
      ...(message !== undefined && { message }),
    })
  }

  /** `EDIT_NETWORK`: a live edit as JSON patches of the network value; answers them and their inverse. */
  edit(patches: readonly Patch[]): Promise<NetworkPatches> {
    return this.client.call('EDIT_NETWORK', { ...this.id, patches })
  }

  /** `UNDO_NETWORK`: undoes the last edit; false when there is none. */
  async undo(): Promise<boolean> {
    return (await this.client.call('UNDO_NETWORK', this.id)).undone
  }

  /** `SET_NODE_MODE`: `interactive` or `auto`, as a live edit. */
  setMode(nodeId: string, mode: NodeMode): Promise<NetworkPatches> {
    return this.client.call('SET_NODE_MODE', { ...this.id, nodeId, mode })
  }

  /** `SET_WORKFLOW_MODE`: `planning` or `implementation`, as a live edit. */
  setWorkflow(workflow: WorkflowMode): Promise<NetworkPatches> {
    return this.client.call('SET_WORKFLOW_MODE', { ...this.id, workflow })
  }

  /** `APPROVE`: a waiting approval request is approved. */
  async approve(requestId: string, by?: string, note?: string): Promise<void> {
    await this.client.call('APPROVE', { ...this.id, requestId, ...decider(by, note) })
  }

  /** `DENY`: a waiting approval request is denied. */
  async deny(requestId: string, by?: string, note?: string): Promise<void> {
    await this.client.call('DENY', { ...this.id, requestId, ...decider(by, note) })
  }

  pause(): Promise<NetworkInfo> {
    return this.client.call('PAUSE_NETWORK', this.id)
  }

  resume(): Promise<NetworkInfo> {
    return this.client.call('RESUME_NETWORK', this.id)
  }

  /** `STOP_NETWORK`: waits until nothing is in flight and nothing can fire, then ends the run. */
  stop(options?: CallOptions): Promise<NetworkInfo> {
    return this.client.call('STOP_NETWORK', this.id, options)
  }

  /** `CANCEL_NETWORK`: ends the run at once; firings in flight are aborted. */
  cancel(): Promise<NetworkInfo> {
    return this.client.call('CANCEL_NETWORK', this.id)
  }

  /** `GET_ENVELOPES`: every envelope so far, in order. */
  async envelopes(): Promise<readonly Envelope[]> {
    return (await this.client.call('GET_ENVELOPES', this.id)).envelopes
  }

  /**
   * The network's events until its `NETWORK_COMPLETED` (or the daemon's
   * shutdown), then the subscription ends. One reader: the events are
   * read once. Empty for a handle made by id.
   */
  async *events(): AsyncGenerator<EngineEvent> {
    const sub = this.subscription
    if (sub === undefined) return
    try {
      for await (const e of sub) {
        yield e
        if (e.type === 'NETWORK_COMPLETED' || e.type === 'SERVER_SHUTDOWN') return
      }
    } finally {
      await sub.unsubscribe()
    }
  }
}

const decider = (by: string | undefined, note: string | undefined) => ({
  ...(by !== undefined && { by }),
  ...(note !== undefined && { note }),
})
