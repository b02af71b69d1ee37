import type { Patch } from 'immer'
import type { Envelope } from '../model/Envelope.js'
import type { ApprovalDecision, ApprovalRequest } from '../../runtime/index.js'

/**
 * What a network run tells as it goes: envelopes sent, firings started and
 * ended, live edits (with their patches, so a client mirrors the topology),
 * halts (stall, iterations, budget), Done, approvals and their decisions,
 * policy refusals, a node's terminal started again after its program
 * exited (`respawned`), pause and resume, the end.
 *
 * @category network run
 */
export type NetworkEvent =
  | { readonly type: 'envelope'; readonly runId: string; readonly envelope: Envelope }
  | {
      readonly type: 'firing'
      readonly runId: string
      readonly nodeId: string
      readonly iteration: number
      readonly causedBy: readonly string[]
    }
  | {
      readonly type: 'fired'
      readonly runId: string
      readonly nodeId: string
      readonly iteration: number
      readonly ok: boolean
      readonly durationMs: number
    }
  | {
      readonly type: 'patch'
      readonly runId: string
      readonly label: string
      readonly patches: readonly Patch[]
      readonly inverse: readonly Patch[]
    }
  | {
      readonly type: 'halt'
      readonly runId: string
      readonly nodes: readonly string[]
      readonly error: string
      readonly message: string
    }
  | {
      readonly type: 'done'
      readonly runId: string
      readonly nodeId: string
      readonly reason: string
    }
  | { readonly type: 'approval'; readonly runId: string; readonly request: ApprovalRequest }
  | { readonly type: 'decision'; readonly runId: string; readonly decision: ApprovalDecision }
  | {
      readonly type: 'refused'
      readonly runId: string
      readonly nodeId: string
      readonly tool: string
      readonly target: string
      readonly reason: string
    }
  | { readonly type: 'respawned'; readonly runId: string; readonly nodeId: string }
  | { readonly type: 'paused' | 'resumed'; readonly runId: string }
  | { readonly type: 'finished'; readonly runId: string; readonly status: string }

/**
 * Fans events out to subscribers; each subscription buffers until read and
 * ends when the hub closes.
 *
 * @internal
 */
export class NetworkEventHub {
  readonly #subs = new Set<{ buffer: NetworkEvent[]; wake: (() => void) | undefined }>()
  #closed = false

  publish(event: NetworkEvent): void {
    for (const s of this.#subs) {
      s.buffer.push(event)
      s.wake?.()
    }
  }

  close(): void {
    this.#closed = true
    for (const s of this.#subs) s.wake?.()
  }

  async *subscribe(): AsyncGenerator<NetworkEvent, void, undefined> {
    const sub: { buffer: NetworkEvent[]; wake: (() => void) | undefined } = {
      buffer: [],
      wake: undefined,
    }
    this.#subs.add(sub)
    try {
      for (;;) {
        while (sub.buffer.length > 0) yield sub.buffer.shift()!
        if (this.#closed) return
        await new Promise<void>((resolve) => (sub.wake = resolve))
        sub.wake = undefined
      }
    } finally {
      this.#subs.delete(sub)
    }
  }
}
