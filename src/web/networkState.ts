/**
 * The live networks the page shows, fed by the daemon's network events: the
 * topology as it is now (each `NETWORK_PATCHED` applies the very patches
 * the run published, so every page mirrors an edit made anywhere), the
 * envelopes delivered, the nodes firing and done, the approvals waiting.
 */
import { signal } from '@preact/signals'
import type * as t from 'io-ts'
import { UsageError } from '../errors.js'
import type {
  ApprovalRequestCodec,
  EnvelopeCodec,
  InboxInfoCodec,
  NetworkEngineEvent,
  NetworkInfo,
} from '../protocol/index.js'

/** immer, once loaded: the node list drawn first needs none of it, so it comes in a chunk of its own. */
let immer: typeof import('immer') | undefined
let loading: Promise<void> | undefined

/** Loads immer (once); a `NETWORK_PATCHED` event is applied only after this resolved. */
export const patchesReady = (): Promise<void> =>
  (loading ??= import('immer').then((m) => {
    m.enablePatches()
    immer = m
  }))

type Envelope = t.TypeOf<typeof EnvelopeCodec>
type Approval = t.TypeOf<typeof ApprovalRequestCodec>
/** One way of an edge (or a node's messages from the user): what waits, what went. */
export type Inbox = t.TypeOf<typeof InboxInfoCodec>

/** A network as drawn. */
export interface NetView {
  readonly networkId: string
  readonly state: string
  readonly outcome: string | undefined
  readonly network: NetworkInfo['network']
  /** The last envelopes delivered, oldest first. */
  readonly envelopes: readonly Envelope[]
  readonly firing: ReadonlySet<string>
  readonly done: ReadonlySet<string>
  /** How many times each node's terminal was started again since the page followed the network. */
  readonly respawns: ReadonlyMap<string, number>
  readonly pending: readonly Approval[]
  /** The inboxes as the daemon last told them (read again after the network's events, at most 4 times a second). */
  readonly inboxes: readonly Inbox[]
  /** What each sub-network that fired used, as the daemon last told it (read again with the inboxes). */
  readonly subnetworkUsage: NonNullable<NetworkInfo['subnetworkUsage']>
}

/** The most envelopes kept per network. */
const KEEP = 500

export const networks = signal<ReadonlyMap<string, NetView>>(new Map())

/** Takes a network as a network command answered it (listed, created, fetched). */
export const setNetwork = (info: NetworkInfo): void => {
  const known = networks.value.get(info.networkId)
  const next = new Map(networks.value)
  next.set(info.networkId, {
    networkId: info.networkId,
    state: info.state,
    outcome: info.outcome,
    network: info.network,
    envelopes: known?.envelopes ?? [],
    firing: known?.firing ?? new Set(),
    done: new Set(info.done),
    respawns: known?.respawns ?? new Map(),
    pending: info.pending,
    inboxes: info.inboxes,
    subnetworkUsage: info.subnetworkUsage ?? {},
  })
  networks.value = next
}

const update = (id: string, f: (n: NetView) => NetView): void => {
  const n = networks.value.get(id)
  if (n === undefined) return
  const next = new Map(networks.value)
  next.set(id, f(n))
  networks.value = next
}

const toggled = (set: ReadonlySet<string>, id: string, on: boolean): ReadonlySet<string> => {
  const next = new Set(set)
  if (on) next.add(id)
  else next.delete(id)
  return next
}

/** `known` and then those of `more` it does not hold yet (by id), the last {@link KEEP}. */
const withEnvelopes = (
  known: readonly Envelope[],
  more: readonly Envelope[],
): readonly Envelope[] => {
  const ids = new Set(known.map((e) => e.id))
  return [...known, ...more.filter((e) => !ids.has(e.id))].slice(-KEEP)
}

/** Adds the envelopes a network sent before the page followed it (`GET_ENVELOPES`). */
export const addEnvelopes = (networkId: string, envelopes: readonly Envelope[]): void => {
  update(networkId, (n) => ({
    ...n,
    envelopes: withEnvelopes(envelopes, n.envelopes),
  }))
}

/**
 * Applies a network event; true when the page does not know the network yet
 * (so it should fetch it). A `NETWORK_PATCHED` needs {@link patchesReady}.
 */
export const applyNetworkEvent = (e: NetworkEngineEvent): boolean => {
  if (!networks.value.has(e.networkId)) return true
  update(e.networkId, (n): NetView => {
    switch (e.type) {
      case 'ENVELOPE_DELIVERED':
        return { ...n, envelopes: withEnvelopes(n.envelopes, [e.envelope]) }
      case 'NODE_FIRING':
        return { ...n, firing: toggled(n.firing, e.nodeId, true) }
      case 'NODE_FIRED':
        return { ...n, firing: toggled(n.firing, e.nodeId, false) }
      case 'NODE_DONE':
        return { ...n, done: toggled(n.done, e.nodeId, true) }
      case 'NETWORK_PATCHED':
        if (immer === undefined)
          throw new UsageError('applyNetworkEvent', 'call patchesReady() first')
        return { ...n, network: immer.applyPatches(n.network, e.patches) }
      case 'NETWORK_NODE_RESPAWNED':
        return {
          ...n,
          respawns: new Map(n.respawns).set(e.nodeId, (n.respawns.get(e.nodeId) ?? 0) + 1),
        }
      case 'APPROVAL_REQUESTED':
        return { ...n, pending: [...n.pending, e.request] }
      case 'APPROVAL_DECIDED':
        return { ...n, pending: n.pending.filter((r) => r.id !== e.decision.request.id) }
      case 'NETWORK_PAUSED':
        return { ...n, state: 'paused' }
      case 'NETWORK_RESUMED':
        return { ...n, state: 'running' }
      case 'NETWORK_COMPLETED':
        return { ...n, state: 'finished', outcome: e.status, firing: new Set() }
      default:
        return n
    }
  })
  return false
}
