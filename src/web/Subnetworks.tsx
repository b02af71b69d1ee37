/**
 * A network's sub-networks in its settings: each edited in place (its
 * members in a list box, its budget; "Apply" sends what changed as one
 * `EDIT_NETWORK`) or removed, and one added (its id, its members, its
 * budget) — each one edit, so one undo. Every page mirrors them from
 * `NETWORK_PATCHED`; a value the daemon refuses comes back as its typed
 * error.
 */
import { useState } from 'preact/hooks'
import { BudgetFields, budgetOf, budgetText, Form, TextField } from './fields.js'
import { edit } from './NetworkEdits.js'
import type { NetView } from './networkState.js'
import {
  addSubnetworkPatches,
  removeSubnetworkPatches,
  subnetworkPatches,
  type SubnetworkValue,
} from './networkPatches.js'
import { problem } from './problem.js'

/** A budget in a line: its limits as the model names them, or "none". */
export const budgetLine = (b: object | undefined): string =>
  b === undefined || Object.keys(b).length === 0
    ? 'none'
    : Object.entries(b)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')

/**
 * The members chosen among the network's nodes: one list box, not a
 * checkbox per node (a network of hundreds of nodes is drawn at every event).
 */
const Members = (props: {
  readonly ids: readonly string[]
  readonly value: ReadonlySet<string>
  readonly onChange: (members: ReadonlySet<string>) => void
}) => (
  <label>
    Members
    <select
      multiple
      size={Math.min(8, Math.max(2, props.ids.length))}
      onChange={(e) => {
        props.onChange(new Set([...e.currentTarget.selectedOptions].map((o) => o.value)))
      }}
    >
      {props.ids.map((n) => (
        <option key={n} value={n} selected={props.value.has(n)}>
          {n}
        </option>
      ))}
    </select>
  </label>
)

/** A sub-network edited in place: its members and budget, "Apply" sending what changed. */
const EditSubnetwork = ({ net, group }: { net: NetView; group: SubnetworkValue }) => {
  const ids = Object.keys(net.network.nodes)
  const [members, setMembers] = useState<ReadonlySet<string>>(() => new Set(group.nodes))
  const [budget, setBudget] = useState(() => budgetText(group.budget))
  return (
    <Form
      class="editor"
      aria-label={`Sub-network ${group.id}`}
      data-subnetworkform={group.id}
      submit={() => {
        const b = budgetOf(budget)
        const patches = subnetworkPatches(group, {
          nodes: ids.filter((n) => members.has(n)),
          ...(b !== undefined && { budget: b }),
        })
        if (patches.length > 0) edit(net.networkId, patches)
      }}
    >
      <Members ids={ids} value={members} onChange={setMembers} />
      <BudgetFields legend={`Budget of ${group.id}`} value={budget} onInput={setBudget} />
      <p class="buttons">
        <button type="submit">Apply</button>
      </p>
    </Form>
  )
}

/** A sub-network added: its id, its members, its budget — one edit. */
const AddSubnetwork = ({ net }: { net: NetView }) => {
  const ids = Object.keys(net.network.nodes)
  const [id, setId] = useState('')
  const [members, setMembers] = useState<ReadonlySet<string>>(new Set())
  const [budget, setBudget] = useState(() => budgetText(undefined))
  return (
    <Form
      class="editor"
      aria-label={`Add a sub-network to ${net.networkId}`}
      submit={() => {
        const b = budgetOf(budget)
        const patches = addSubnetworkPatches(net.network, {
          id,
          nodes: ids.filter((n) => members.has(n)),
          ...(b !== undefined && { budget: b }),
        })
        if (patches === undefined) {
          problem.value = `The network has a sub-network "${id}" already: edit it above.`
          return
        }
        edit(net.networkId, patches)
        setId('')
        setMembers(new Set())
        setBudget(budgetText(undefined))
      }}
    >
      <TextField
        label="Sub-network"
        value={id}
        required
        pattern="[A-Za-z0-9_.\-]+"
        onInput={setId}
      />
      <Members ids={ids} value={members} onChange={setMembers} />
      <BudgetFields legend="Its budget" value={budget} onInput={setBudget} />
      <p class="buttons">
        <button type="submit">Add sub-network</button>
      </p>
    </Form>
  )
}

/**
 * A sub-network in the list: its members and budget in a line, removed
 * with a button, edited in a form shown when asked (a form holds a list
 * box of every node: one per sub-network at every event would cost a
 * large network's page its speed). The form starts again from the
 * sub-network whenever an edit, from any page, changed it.
 */
const SubnetworkRow = ({ net, group: g }: { net: NetView; group: SubnetworkValue }) => {
  const [open, setOpen] = useState(false)
  return (
    <li data-subnetwork={g.id}>
      <strong>{g.id}</strong>: {g.nodes.length === 0 ? 'no nodes' : g.nodes.join(', ')} · budget{' '}
      {budgetLine(g.budget)}{' '}
      <button
        type="button"
        aria-label={`Remove sub-network ${g.id}`}
        onClick={() => {
          edit(net.networkId, removeSubnetworkPatches(net.network, g.id))
        }}
      >
        Remove
      </button>
      <details
        open={open}
        onToggle={(e) => {
          setOpen(e.currentTarget.open)
        }}
      >
        <summary>Edit {g.id}</summary>
        {open && <EditSubnetwork key={JSON.stringify(g)} net={net} group={g} />}
      </details>
    </li>
  )
}

/** The network's sub-networks, then the form adding one. */
export const Subnetworks = ({ net }: { net: NetView }) => {
  const groups = Object.values(net.network.subnetworks ?? {})
  return (
    <>
      <h5>Sub-networks</h5>
      <ul class="subnetworks" aria-label={`Sub-networks of ${net.networkId}`}>
        {groups.map((g) => (
          <SubnetworkRow key={g.id} net={net} group={g} />
        ))}
        {groups.length === 0 && <li class="empty">None.</li>}
      </ul>
      <AddSubnetwork net={net} />
    </>
  )
}
