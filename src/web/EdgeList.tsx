/**
 * A network's edges as a table: each edge's direction, its delivery (and a
 * debounce's wait), what its inboxes sent and what waits; every option
 * changed here is one `EDIT_NETWORK` (one undo), and an edge is removed
 * the same way.
 */
import { useState } from 'preact/hooks'
import { edit } from './NetworkEdits.js'
import type { NetView } from './networkState.js'
import { deliveryOf, directionPatches, type EdgeValue } from './networkPatches.js'

export const edgesOf = (n: NetView): readonly EdgeValue[] => Object.values(n.network.edges)

/** What waits in an edge's inboxes (both ways) and what they delivered. */
export const countsOf = (n: NetView, edgeId: string): { waiting: number; delivered: number } =>
  n.inboxes
    .filter((i) => i.route.edgeId === edgeId)
    .reduce(
      (sum, i) => ({ waiting: sum.waiting + i.waiting, delivered: sum.delivered + i.delivered }),
      { waiting: 0, delivered: 0 },
    )

const deliveries = ['queue', 'latest', 'debounce'] as const
const directions = ['one-way', 'both'] as const

/** The most edges listed before the list is folded (a large network opens faster). */
const LISTED = 50

/** A debounce's wait, changed when the person is done typing it (Enter or leaving the field). */
const Wait = ({ networkId, edge }: { networkId: string; edge: EdgeValue }) =>
  edge.delivery.type !== 'debounce' ? null : (
    <input
      type="number"
      step="any"
      class="short"
      aria-label={`Debounce of ${edge.id} (ms)`}
      value={edge.delivery.ms}
      onChange={(ev) => {
        const v = ev.currentTarget.value
        // An empty or bad field is sent as it is: the daemon names what it expected.
        edit(networkId, [
          {
            op: 'replace',
            path: ['edges', edge.id, 'delivery'],
            value: { type: 'debounce', ms: v.trim() === '' ? null : Number(v) },
          },
        ])
      }}
    />
  )

const EdgeRow = ({ net, edge, live }: { net: NetView; edge: EdgeValue; live: boolean }) => {
  const { networkId } = net
  const counts = countsOf(net, edge.id)
  return (
    <tr data-edgerow={edge.id}>
      <th scope="row">{edge.id}</th>
      <td>
        <select
          aria-label={`Direction of ${edge.id}`}
          value={edge.direction}
          disabled={!live}
          onChange={(ev) => {
            edit(networkId, directionPatches(edge, ev.currentTarget.value))
          }}
        >
          {directions.map((d) => (
            <option key={d}>{d}</option>
          ))}
        </select>
      </td>
      <td>
        <select
          aria-label={`Delivery of ${edge.id}`}
          value={edge.delivery.type}
          disabled={!live}
          onChange={(ev) => {
            edit(networkId, [
              {
                op: 'replace',
                path: ['edges', edge.id, 'delivery'],
                value: deliveryOf(ev.currentTarget.value),
              },
            ])
          }}
        >
          {deliveries.map((d) => (
            <option key={d}>{d}</option>
          ))}
        </select>{' '}
        {live && <Wait networkId={networkId} edge={edge} />}
      </td>
      <td data-sent={counts.delivered}>{counts.delivered}</td>
      <td data-waiting={counts.waiting}>{counts.waiting}</td>
      <td>
        <button
          type="button"
          disabled={!live}
          onClick={() => {
            edit(networkId, [{ op: 'remove', path: ['edges', edge.id] }])
          }}
        >
          Remove
        </button>
      </td>
    </tr>
  )
}

/** The edges with their options and inbox counts, each one changed or removed here. */
export const EdgeList = ({ net, live }: { net: NetView; live: boolean }) => {
  const edges = edgesOf(net)
  const [open, setOpen] = useState(edges.length <= LISTED)
  return (
    <details
      open={open}
      onToggle={(e) => {
        setOpen(e.currentTarget.open)
      }}
    >
      <summary>Edges ({edges.length})</summary>
      {open && (
        <table class="nodes" aria-label="Edges">
          <thead>
            <tr>
              <th scope="col">Edge</th>
              <th scope="col">Direction</th>
              <th scope="col">Delivery</th>
              <th scope="col">Sent</th>
              <th scope="col">Waiting</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {edges.map((e) => (
              <EdgeRow key={e.id} net={net} edge={e} live={live} />
            ))}
          </tbody>
        </table>
      )}
    </details>
  )
}
