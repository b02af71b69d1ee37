/**
 * Live networks: start a network file, the topology laid out (each node's
 * role, firing or done; each edge's delivery and its inbox counts), envelopes as they are
 * delivered, the approvals waiting (approve, deny), pause, resume, stop,
 * cancel, the envelopes' DAG of causes, and edits of the topology and of
 * the network's own settings sent as the patches `EDIT_NETWORK` takes (add
 * or remove a node, an edge or a sub-network, change any option of them,
 * the workflow, limits and budget), with undo.
 */
import { useState } from 'preact/hooks'
import { BOX } from './drawing.js'
import { GraphSvg } from './GraphSvg.js'
import { useLayout } from './layoutClient.js'
import { networks, setNetwork, type NetView } from './networkState.js'
import { EnvelopeDag } from './EnvelopeDag.js'
import { countsOf, EdgeList, edgesOf } from './EdgeList.js'
import { Choice, Form, TextField } from './fields.js'
import { AddEdge, AddNode } from './NetworkEdits.js'
import { editNode, NodeEditor } from './NodeEditor.js'
import { chosenNetwork } from './nav.js'
import { NetworkSettings, SettingsLine } from './NetworkSettings.js'
import { attempt } from './problem.js'
import { client } from './session.js'
import { ProblemLine } from './ProblemLine.js'
import { SubnetworkGroups } from './SubnetworkGroups.js'
import { inShown, shown } from './state.js'

/** The middle point of an SVG `points` value. */
const middle = (points: string): { x: number; y: number } => {
  const ps = points.split(' ').map((p) => p.split(',').map(Number))
  const [a, b] = [ps[Math.floor((ps.length - 1) / 2)]!, ps[Math.ceil((ps.length - 1) / 2)]!]
  return { x: ((a[0] ?? 0) + (b[0] ?? 0)) / 2, y: ((a[1] ?? 0) + (b[1] ?? 0)) / 2 }
}

/**
 * The topology, each sub-network a box around its members, laid out in
 * full when first shown and when asked; an edit keeps every box where it
 * is and draws only what it added.
 */
const Topology = ({ net }: { net: NetView }) => {
  const ids = Object.keys(net.network.nodes)
  const edges = edgesOf(net)
  const {
    drawing: d,
    laying,
    relayout,
  } = useLayout(
    `network:${net.networkId}`,
    ids,
    edges.map((e) => [e.from, e.to] as const),
    { when: 'asked', groups: Object.values(net.network.subnetworks ?? {}) },
  )
  const both = new Set(edges.filter((e) => e.direction === 'both').map((e) => `${e.from}>${e.to}`))
  const edgeOf = new Map(edges.map((e) => [`${e.from}>${e.to}`, e.id]))
  return (
    <>
      <p class="buttons">
        <button type="button" disabled={laying} onClick={relayout}>
          Lay out again
        </button>{' '}
        <span role="status" data-laying={laying}>
          {laying ? 'Laying out…' : ''}
        </span>
      </p>
      <GraphSvg label={`Topology of ${net.networkId}`} drawing={d} arrow="arrow-net">
        {d.groups !== undefined && <SubnetworkGroups net={net} groups={d.groups} />}
        {d.lines.map((l) => (
          <polyline
            key={`${l.from}>${l.to}`}
            class="edge"
            data-edge={`${l.from}>${l.to}`}
            points={l.points}
            marker-end="url(#arrow-net)"
            {...(both.has(`${l.from}>${l.to}`) && { 'marker-start': 'url(#arrow-net)' })}
          />
        ))}
        {d.lines.map((l) => {
          const id = edgeOf.get(`${l.from}>${l.to}`)
          const c = id === undefined ? undefined : countsOf(net, id)
          if (c === undefined || c.waiting + c.delivered === 0) return null
          const m = middle(l.points)
          return (
            <text key={`count ${id}`} class="count" data-inbox={id} x={m.x} y={m.y - 4}>
              {c.delivered} sent{c.waiting > 0 && ` · ${c.waiting} waiting`}
            </text>
          )
        })}
        {d.boxes.map((b) => {
          const state = net.firing.has(b.id) ? 'running' : net.done.has(b.id) ? 'done' : 'idle'
          const respawns = net.respawns.get(b.id) ?? 0
          return (
            <g
              key={b.id}
              class={`box ${state}`}
              data-netnode={b.id}
              data-state={state}
              transform={`translate(${b.x - BOX.width / 2},${b.y - BOX.height / 2})`}
              tabIndex={0}
              role="button"
              onClick={() => {
                editNode(net.networkId, b.id)
              }}
              onKeyDown={(e) => {
                if (e.key === 'Enter' || e.key === ' ') editNode(net.networkId, b.id)
              }}
            >
              <rect width={BOX.width} height={BOX.height} rx="6" />
              <text x="10" y="17">
                {b.id}
              </text>
              <text x="10" y="32" class="sub">
                {net.network.nodes[b.id]?.role ?? ''} · {state}
                {respawns > 0 && ` · respawned ×${respawns}`}
              </text>
            </g>
          )
        })}
      </GraphSvg>
    </>
  )
}

const Send = ({ net }: { net: NetView }) => {
  const ids = Object.keys(net.network.nodes)
  const [to, setTo] = useState(ids[0] ?? '')
  const [message, setMessage] = useState('')
  return (
    <Form
      class="inline"
      submit={() => {
        attempt(async () => {
          await client().call('SEND_ENVELOPE', { networkId: net.networkId, nodeId: to, message })
          setMessage('')
        })
      }}
    >
      <Choice label="Send to" value={to} options={ids} onChange={setTo} />
      <TextField label="Message" value={message} required onInput={setMessage} />
      <button type="submit">Send</button>
    </Form>
  )
}

const Network = ({ net }: { net: NetView }) => {
  const networkId = net.networkId
  const control = (
    method: 'PAUSE_NETWORK' | 'RESUME_NETWORK' | 'STOP_NETWORK' | 'CANCEL_NETWORK',
  ) => {
    attempt(async () => {
      setNetwork(await client().call(method, { networkId }))
    })
  }
  const live = net.state !== 'finished'
  return (
    <section
      class="run"
      aria-label={`Network ${networkId}`}
      data-network={networkId}
      data-state={net.state}
    >
      <h3>
        {networkId} <span class={`state ${net.state}`}>{net.outcome ?? net.state}</span>
      </h3>
      {live && (
        <p class="buttons">
          {net.state === 'paused' ? (
            <button
              type="button"
              onClick={() => {
                control('RESUME_NETWORK')
              }}
            >
              Resume
            </button>
          ) : (
            <button
              type="button"
              onClick={() => {
                control('PAUSE_NETWORK')
              }}
            >
              Pause
            </button>
          )}
          <button
            type="button"
            onClick={() => {
              control('STOP_NETWORK')
            }}
          >
            Stop
          </button>
          <button
            type="button"
            onClick={() => {
              control('CANCEL_NETWORK')
            }}
          >
            Cancel
          </button>
          <button
            type="button"
            onClick={() => {
              attempt(() => client().call('UNDO_NETWORK', { networkId }))
            }}
          >
            Undo edit
          </button>
        </p>
      )}
      <SettingsLine net={net} />
      <Topology net={net} />
      {live && <Send net={net} />}
      {live && <AddNode net={net} />}
      {live && <AddEdge net={net} />}
      <EdgeList net={net} live={live} />
      {live && <NodeEditor net={net} />}
      {live && <NetworkSettings net={net} />}
      <h4>Approvals</h4>
      <ul class="approvals" aria-label="Approvals waiting">
        {net.pending.map((r) => (
          <li key={r.id} data-approval={r.id}>
            <strong>{r.nodeId}</strong> asks to {r.action} <code>{r.target}</code>: {r.reason}{' '}
            <button
              type="button"
              onClick={() => {
                attempt(() =>
                  client().call('APPROVE', { networkId, requestId: r.id, by: 'dashboard' }),
                )
              }}
            >
              Approve
            </button>
            <button
              type="button"
              onClick={() => {
                attempt(() =>
                  client().call('DENY', { networkId, requestId: r.id, by: 'dashboard' }),
                )
              }}
            >
              Deny
            </button>
          </li>
        ))}
        {net.pending.length === 0 && <li class="empty">None waiting.</li>}
      </ul>
      <EnvelopeDag net={net} />
      <h4>Envelopes</h4>
      {/* Scrolled on its own once long: reachable by keyboard. */}
      <ol class="envelopes" aria-label="Envelopes delivered" tabIndex={0}>
        {net.envelopes.map((e) => (
          <li key={e.id} data-envelope={e.id}>
            <span class="kind">{e.kind}</span> {e.fromNodeId} → {e.toNodeId}:{' '}
            <span class="msg">{e.payload.message}</span>
          </li>
        ))}
      </ol>
    </section>
  )
}

/** Starts a network file on the daemon, in the session shown, working in `root` when given. */
const startFile = async (file: File, root: string): Promise<void> => {
  const network: unknown = JSON.parse(await file.text())
  const info = await client().call('CREATE_NETWORK', {
    ...inShown(),
    network,
    ...(root.trim() !== '' && { root: root.trim() }),
  })
  setNetwork(info)
  chosenNetwork.value = info.networkId
}

export const NetworksView = () => {
  const [root, setRoot] = useState('')
  const list = [...networks.value.values()].reverse()
  const net = chosenNetwork.value === undefined ? list[0] : networks.value.get(chosenNetwork.value)
  return (
    <section aria-labelledby="networks-title" class="runs">
      <h2 id="networks-title">Networks</h2>
      <div class="inline">
        <TextField
          label="Workspace"
          value={root}
          placeholder="the daemon's directory"
          onInput={setRoot}
        />
        <label class="file">
          Start a network file{' '}
          <input
            type="file"
            accept=".json,application/json"
            onChange={(e) => {
              const file = e.currentTarget.files?.[0]
              e.currentTarget.value = ''
              if (file !== undefined) attempt(() => startFile(file, root))
            }}
          />
        </label>
      </div>
      <p class="hint">
        A network starts in the session shown ({shown.value ?? 'the default one'}); the list has
        those of every session.
      </p>
      <ProblemLine />
      <div class="split">
        <ul class="runlist" aria-label="Networks">
          {list.map((n) => (
            <li key={n.networkId}>
              <button
                type="button"
                aria-pressed={net?.networkId === n.networkId}
                onClick={() => {
                  chosenNetwork.value = n.networkId
                }}
              >
                {n.networkId} <span class={`state ${n.state}`}>{n.outcome ?? n.state}</span>
              </button>
            </li>
          ))}
          {list.length === 0 && <li class="empty">No networks yet.</li>}
        </ul>
        {net !== undefined && <Network key={net.networkId} net={net} />}
      </div>
    </section>
  )
}
