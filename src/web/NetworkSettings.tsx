/**
 * A network's own settings on its page: its workflow, its limits and its
 * budget, "Apply" sending the ones that changed as one `EDIT_NETWORK` (one
 * undo); below, its sub-networks ({@link ./Subnetworks.tsx}). Every page
 * mirrors them from `NETWORK_PATCHED`; a value the daemon refuses comes
 * back as its typed error.
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
import { settingsPatches, type NetworkValue } from './networkPatches.js'
import { budgetLine, Subnetworks } from './Subnetworks.js'

/** Every limit of a network run (the model's `Limits`), with its label. */
const LIMITS = {
  maxInFlight: 'Most firings at once',
  maxIterations: 'Most iterations of a loop',
  stallAfter: 'Stall after (repeats)',
  maxSpawned: 'Most spawned nodes',
} as const
type Limit = keyof typeof LIMITS

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

/**
 * The network's settings form (started again from the network whenever an
 * edit, from any page, changed them) and its sub-networks.
 */
export const NetworkSettings = ({ net }: { net: NetView }) => {
  const n = net.network
  return (
    <section class="nodeeditor" aria-label={`Network settings of ${net.networkId}`}>
      <h4>Network settings</h4>
      <SettingsForm key={JSON.stringify([n.workflow, n.limits, n.budget])} net={net} />
      <Subnetworks net={net} />
    </section>
  )
}
