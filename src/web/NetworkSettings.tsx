/**
 * A network's own settings on its page: its workflow, its limits and its
 * budget, "Apply" sending the ones that changed as one `EDIT_NETWORK` (one
 * undo); its sub-networks listed, one added (its members, its budget) or
 * removed, each one edit. Every page mirrors them from `NETWORK_PATCHED`;
 * a value the daemon refuses comes back as its typed error.
 */
import { useState } from 'preact/hooks'
import {
  BudgetFields,
  budgetOf,
  budgetText,
  Choice,
  Form,
  numberOf,
  numberText,
  TextField,
  type BudgetText,
} from './fields.js'
import { edit } from './NetworkEdits.js'
import type { NetView } from './networkState.js'
import {
  addSubnetworkPatches,
  removeSubnetworkPatches,
  settingsPatches,
  type NetworkValue,
} from './networkPatches.js'
import { problem } from './problem.js'

/** Every limit of a network run (the model's `Limits`), with its label. */
const LIMITS = {
  maxInFlight: 'Most firings at once',
  maxIterations: 'Most iterations of a loop',
  stallAfter: 'Stall after (repeats)',
  maxSpawned: 'Most spawned nodes',
} as const
type Limit = keyof typeof LIMITS

/** A budget in a line: its limits as the model names them, or "none". */
const budgetLine = (b: object | undefined): string =>
  b === undefined || Object.keys(b).length === 0
    ? 'none'
    : Object.entries(b)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')

/** The network's settings in a line, above its drawing: what every page shows of them. */
export const SettingsLine = ({ net }: { net: NetView }) => {
  const n = net.network
  const groups = Object.values(n.subnetworks ?? {})
  return (
    <p class="hint" data-settings={net.networkId}>
      Workflow {n.workflow} · limits{' '}
      {(Object.keys(LIMITS) as Limit[]).map((k) => `${k} ${n.limits[k]}`).join(', ')} · budget{' '}
      {budgetLine(n.budget)} · sub-networks{' '}
      {groups.length === 0
        ? 'none'
        : groups.map((g) => `${g.id} (${g.nodes.join(', ')})`).join('; ')}
    </p>
  )
}

interface Form {
  readonly workflow: string
  readonly limits: Readonly<Record<Limit, string>>
  readonly budget: BudgetText
}

const formOf = (n: NetworkValue): Form => ({
  workflow: n.workflow,
  limits: Object.fromEntries(
    (Object.keys(LIMITS) as Limit[]).map((k) => [k, numberText(n.limits[k])]),
  ) as Form['limits'],
  budget: budgetText(n.budget),
})

const SettingsForm = ({ net }: { net: NetView }) => {
  const [f, setF] = useState(() => formOf(net.network))
  return (
    <Form
      class="editor"
      aria-label={`Settings of ${net.networkId}`}
      data-settingsform={net.networkId}
      submit={() => {
        const budget = budgetOf(f.budget)
        const patches = settingsPatches(net.network, {
          workflow: f.workflow,
          // An empty limit is sent as none (null): the daemon says what it expected.
          limits: Object.fromEntries(
            Object.entries(f.limits).map(([k, v]) => [k, numberOf(v) ?? null]),
          ),
          ...(budget !== undefined && { budget }),
        })
        if (patches.length > 0) edit(net.networkId, patches)
      }}
    >
      <Choice
        label="Workflow"
        value={f.workflow}
        options={['implementation', 'planning']}
        onChange={(workflow) => {
          setF({ ...f, workflow })
        }}
      />
      <fieldset>
        <legend>Limits</legend>
        {(Object.keys(LIMITS) as Limit[]).map((k) => (
          <TextField
            key={k}
            label={LIMITS[k]}
            number
            value={f.limits[k]}
            onInput={(v) => {
              setF({ ...f, limits: { ...f.limits, [k]: v } })
            }}
          />
        ))}
      </fieldset>
      <BudgetFields
        legend="Network budget"
        value={f.budget}
        onInput={(budget) => {
          setF({ ...f, budget })
        }}
      />
      <p class="buttons">
        <button type="submit">Apply settings</button>
      </p>
    </Form>
  )
}

/** A sub-network added: its id, its members (checked), its budget — one edit. */
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
          problem.value = `The network has a sub-network "${id}" already: remove it first.`
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
      {/* One list box, not a checkbox per node: a network of hundreds of nodes is drawn at every event. */}
      <label>
        Members
        <select
          multiple
          size={Math.min(8, Math.max(2, ids.length))}
          onChange={(e) => {
            setMembers(new Set([...e.currentTarget.selectedOptions].map((o) => o.value)))
          }}
        >
          {ids.map((n) => (
            <option key={n} value={n} selected={members.has(n)}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <BudgetFields legend="Its budget" value={budget} onInput={setBudget} />
      <p class="buttons">
        <button type="submit">Add sub-network</button>
      </p>
    </Form>
  )
}

/**
 * The network's settings form (started again from the network whenever an
 * edit, from any page, changed them) and its sub-networks.
 */
export const NetworkSettings = ({ net }: { net: NetView }) => {
  const n = net.network
  const groups = Object.values(n.subnetworks ?? {})
  return (
    <section class="nodeeditor" aria-label={`Network settings of ${net.networkId}`}>
      <h4>Network settings</h4>
      <SettingsForm key={JSON.stringify([n.workflow, n.limits, n.budget])} net={net} />
      <h5>Sub-networks</h5>
      <ul class="subnetworks" aria-label={`Sub-networks of ${net.networkId}`}>
        {groups.map((g) => (
          <li key={g.id} data-subnetwork={g.id}>
            <strong>{g.id}</strong>: {g.nodes.length === 0 ? 'no nodes' : g.nodes.join(', ')} ·
            budget {budgetLine(g.budget)}{' '}
            <button
              type="button"
              aria-label={`Remove sub-network ${g.id}`}
              onClick={() => {
                edit(net.networkId, removeSubnetworkPatches(n, g.id))
              }}
            >
              Remove
            </button>
          </li>
        ))}
        {groups.length === 0 && <li class="empty">None.</li>}
      </ul>
      <AddSubnetwork net={net} />
    </section>
  )
}
