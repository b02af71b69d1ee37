/**
 * A network run as the network commands (and `NETWORK_CREATED`) carry it:
 * its value, its inboxes, its state.
 */
import * as t from 'io-ts'
import type { Network } from '../network/index.js'
import { ApprovalRequestCodec } from './approvals.js'
import { literals, struct, WireErrorShapeCodec } from './parts.js'

/**
 * One inbox of a network run: the edge and the way it carries (no edge for
 * a node's messages from the user), its delivery, what waits and what went.
 *
 * @category protocol
 */
export const InboxInfoCodec = struct('InboxInfo', {
  route: struct('Route', {
    // absent on the wire (JSON has no undefined) for a node's inbox from the user
    edgeId: t.union([t.string, t.undefined]),
    from: t.string,
    to: t.string,
  }),
  delivery: literals('Delivery', ['queue', 'latest', 'debounce']),
  waiting: t.number,
  holding: t.boolean,
  delivered: t.number,
  dropped: t.number,
})

/**
 * A network value on the wire. The protocol checks its frame (`_tag`,
 * `id`, the records of nodes and edges, each an object with its `id`); the
 * network's own codec (its file format) is what checks a node through.
 *
 * @category protocol
 */
export const NetworkValueCodec = struct('Network', {
  _tag: t.literal('Network'),
  id: t.string,
  workflow: t.string,
  nodes: t.record(t.string, struct('NetworkNode', { id: t.string, role: t.string })),
  edges: t.record(t.string, t.UnknownRecord),
}) as unknown as t.Type<Network, Network>

/**
 * A network run as the network commands answer it: its id, the session it
 * was created in, its workspace, its state (`running`, `paused`,
 * `finished`) and, once finished, how it ended (`done`, `halted`, `idle`,
 * `cancelled`); the network value as it is now (live edits applied — the
 * value `NETWORK_PATCHED` patches apply to); the envelopes sent so far, the
 * nodes that reached Done, the halts, the usage of the whole network (and
 * of each sub-network that fired: what its budget's limits bound), the
 * approvals waiting for a decision, and its inboxes (each node's messages
 * from the user, then each way of each edge).
 *
 * @category protocol
 */
export const NetworkInfoCodec = struct(
  'NetworkInfo',
  {
    networkId: t.string,
    sessionId: t.string,
    root: t.string,
    startedAt: t.string,
    state: literals('NetworkState', ['running', 'paused', 'finished']),
    network: NetworkValueCodec,
    envelopes: t.number,
    done: t.readonlyArray(t.string),
    halts: t.readonlyArray(
      t.intersection([WireErrorShapeCodec, struct('Halt', { nodes: t.readonlyArray(t.string) })]),
    ),
    usage: struct('Usage', { tokens: t.number, apiCalls: t.number, cost: t.number }),
    pending: t.readonlyArray(ApprovalRequestCodec),
    inboxes: t.readonlyArray(InboxInfoCodec),
  },
  {
    outcome: literals('NetworkOutcome', ['done', 'halted', 'idle', 'cancelled']),
    subnetworkUsage: t.record(
      t.string,
      struct('SubnetworkUsage', {
        firings: t.number,
        timeMs: t.number,
        tokens: t.number,
        apiCalls: t.number,
        cost: t.number,
      }),
    ),
  },
)

/**
 * A network run as the network commands answer it.
 *
 * @category protocol
 */
export type NetworkInfo = t.TypeOf<typeof NetworkInfoCodec>
