/**
 * Edits of a network's topology from the page, each sent as the JSON
 * patches `EDIT_NETWORK` takes (so each is one undo, and every page
 * mirrors it from the daemon's `NETWORK_PATCHED`): add a node (with an
 * edge to it), add an edge.
 */
import { useState } from 'preact/hooks'
import { edgeIdOf } from './networkPatches.js'
import type { NetView } from './networkState.js'
import { attempt } from './problem.js'
import { client } from './session.js'
import { Choice, Form, TextField } from './fields.js'

/** Sends `patches` to the network as one edit; a refusal is shown. */
export const edit = (networkId: string, patches: readonly object[]): void => {
  attempt(() => client().call('EDIT_NETWORK', { networkId, patches: patches as never }))
}

export const AddEdge = ({ net }: { net: NetView }) => {
  const ids = Object.keys(net.network.nodes)
  const [from, setFrom] = useState(ids[0] ?? '')
  const [to, setTo] = useState(ids[1] ?? ids[0] ?? '')
  const [direction, setDirection] = useState<'one-way' | 'both'>('one-way')
  return (
    <Form
      class="inline"
      submit={() => {
        edit(net.networkId, [addEdge(from, to, direction)])
      }}
    >
      <Choice label="From" value={from} options={ids} onChange={setFrom} />
      <Choice label="To" value={to} options={ids} onChange={setTo} />
      <Choice
        label="Direction"
        value={direction}
        options={['one-way', 'both'] as const}
        onChange={setDirection}
      />
      <button type="submit">Add edge</button>
    </Form>
  )
}

/** The edge `from` → `to` (one way, queued) as a patch adding it. */
const addEdge = (from: string, to: string, direction: 'one-way' | 'both' = 'one-way') => {
  const id = edgeIdOf(from, to, direction)
  return {
    op: 'add',
    path: ['edges', id],
    value: { id, from, to, direction, delivery: { type: 'queue' } },
  }
}

/**
 * A node added: its id, a role (one the network's nodes have, whose
 * instructions, tools and mode it takes, or a plain agent), what answers
 * it (a scripted reply, or the daemon's default model), and optionally an
 * edge to it from a node — one edit.
 */
export const AddNode = ({ net }: { net: NetView }) => {
  const nodes = Object.values(net.network.nodes)
  const roles = [...new Set(['Agent', ...nodes.map((n) => n.role)])]
  const [id, setId] = useState('')
  const [role, setRole] = useState('Agent')
  const [reply, setReply] = useState('')
  const [from, setFrom] = useState('')
  return (
    <Form
      class="inline"
      submit={() => {
        const like = nodes.find((n) => n.role === role)
        const node = {
          id,
          role,
          mode: like?.mode ?? 'interactive',
          trigger: { type: 'any' },
          provider:
            reply.trim() === ''
              ? { type: 'llm', provider: 'default' }
              : { type: 'mock', script: [reply] },
          system: like?.system ?? '',
          tools: like?.tools ?? [],
        }
        edit(net.networkId, [
          { op: 'add', path: ['nodes', id], value: node },
          ...(from === '' ? [] : [addEdge(from, id)]),
        ])
        setId('')
      }}
    >
      <TextField label="Node" value={id} required pattern="[A-Za-z0-9_.\-]+" onInput={setId} />
      <Choice label="Role" value={role} options={roles} onChange={setRole} />
      <TextField
        label="Scripted reply"
        value={reply}
        placeholder="empty: the daemon's model"
        onInput={setReply}
      />
      <Choice
        label="Edge from"
        value={from}
        options={['', ...nodes.map((n) => n.id)]}
        onChange={setFrom}
      />
      <button type="submit">Add node</button>
    </Form>
  )
}
