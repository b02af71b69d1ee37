/**
 * A network node's every field edited on the page — its role (a role
 * another node has brings its instructions, tools and mode), mode,
 * trigger (and its schedule), provider, instructions, tools, prompt,
 * budget, acceptance check and assignment — sent as one `EDIT_NETWORK`
 * of the fields that changed (one undo); or the node removed with its
 * edges. The node is chosen in the list or by its box in the topology.
 */
import { signal } from '@preact/signals'
import { useState } from 'preact/hooks'
import {
  BudgetFields,
  budgetOf,
  budgetText,
  Choice,
  Form,
  numberOf as num,
  numberText as text,
  TextField,
  type BudgetText,
} from './fields.js'
import { edit } from './NetworkEdits.js'
import type { NetView } from './networkState.js'
import { nodePatches, removeNodePatches, type NetworkNodeValue } from './networkPatches.js'
import { problem } from './problem.js'

/** The node chosen for editing, by network. */
export const editedNode = signal<ReadonlyMap<string, string>>(new Map())

/** Chooses `nodeId` of `networkId` for editing. */
export const editNode = (networkId: string, nodeId: string): void => {
  editedNode.value = new Map(editedNode.value).set(networkId, nodeId)
}

const TRIGGERS = ['any', 'all', 'manual', 'scheduled: every', 'scheduled: cron'] as const
type TriggerChoice = (typeof TRIGGERS)[number]

/** The node's fields as the form's text. */
interface Form {
  readonly role: string
  readonly mode: string
  readonly trigger: TriggerChoice
  readonly schedule: string
  readonly provider: string
  readonly system: string
  readonly tools: string
  readonly prompt: string
  readonly budget: BudgetText
  readonly check: string
  readonly checkTimeout: string
  readonly assignment: string
}

const list = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '')

const formOf = (n: NetworkNodeValue): Form => {
  const t = n.trigger as { type: string; everyMs?: number; cron?: string }
  return {
    role: n.role,
    mode: n.mode,
    trigger:
      t.type === 'scheduled'
        ? t.cron === undefined
          ? 'scheduled: every'
          : 'scheduled: cron'
        : (t.type as TriggerChoice),
    schedule: t.cron ?? text(t.everyMs),
    provider: JSON.stringify(n.provider, null, 1),
    system: n.system,
    tools: n.tools.join(', '),
    prompt: n.prompt ?? '',
    budget: budgetText(n.budget),
    check: n.acceptance?.command ?? '',
    checkTimeout: text(n.acceptance?.timeoutMs),
    assignment: (n.assignment ?? []).join(', '),
  }
}

/** The form's provider as a value, or what is wrong with it. */
const providerOf = (text: string): { readonly value: unknown } | { readonly problem: string } => {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch (e) {
    return { problem: `The provider is not JSON: ${e instanceof Error ? e.message : String(e)}` }
  }
}

/** The node the form describes, with its provider's value. */
const nodeOf = (f: Form, provider: unknown): Readonly<Record<string, unknown>> => {
  const budget = budgetOf(f.budget)
  return {
    role: f.role,
    mode: f.mode,
    trigger:
      f.trigger === 'scheduled: every'
        ? { type: 'scheduled', everyMs: num(f.schedule) ?? null }
        : f.trigger === 'scheduled: cron'
          ? { type: 'scheduled', cron: f.schedule }
          : { type: f.trigger },
    provider,
    system: f.system,
    tools: list(f.tools),
    ...(f.prompt !== '' && { prompt: f.prompt }),
    ...(budget !== undefined && { budget }),
    ...(f.check.trim() !== '' && {
      acceptance: {
        command: f.check,
        ...(num(f.checkTimeout) !== undefined && { timeoutMs: num(f.checkTimeout) }),
      },
    }),
    ...(f.assignment.trim() !== '' && { assignment: list(f.assignment) }),
  }
}

const Area = (props: {
  readonly label: string
  readonly value: string
  readonly onInput: (value: string) => void
}) => (
  <label class="area">
    {props.label}{' '}
    <textarea
      rows={3}
      value={props.value}
      onInput={(e) => {
        props.onInput(e.currentTarget.value)
      }}
    />
  </label>
)

const NodeForm = ({ net, node }: { net: NetView; node: NetworkNodeValue }) => {
  const [f, setF] = useState(() => formOf(node))
  const set = (part: Partial<Form>) => {
    setF((old) => ({ ...old, ...part }))
  }
  const others = Object.values(net.network.nodes).filter((n) => n.id !== node.id)
  const roles = [...new Set(['Agent', ...Object.values(net.network.nodes).map((n) => n.role)])]
  return (
    <Form
      class="editor"
      aria-label={`Node ${node.id}`}
      data-nodeeditor={node.id}
      submit={() => {
        const provider = providerOf(f.provider)
        if ('problem' in provider) {
          problem.value = provider.problem
          return
        }
        const patches = nodePatches(node, nodeOf(f, provider.value))
        if (patches.length > 0) edit(net.networkId, patches)
      }}
    >
      <label>
        Role{' '}
        <input
          value={f.role}
          list={`roles-${net.networkId}`}
          onInput={(e) => {
            set({ role: e.currentTarget.value })
          }}
          onChange={(e) => {
            // A role another node has, once chosen (not on the way to typing another), brings its
            // instructions, tools and mode, as the role did there.
            const like = others.find((n) => n.role === e.currentTarget.value)
            if (like !== undefined) {
              set({ system: like.system, tools: like.tools.join(', '), mode: like.mode })
            }
          }}
        />
      </label>
      <datalist id={`roles-${net.networkId}`}>
        {roles.map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>
      <Choice
        label="Mode"
        value={f.mode}
        options={['interactive', 'auto']}
        onChange={(mode) => {
          set({ mode })
        }}
      />
      <Choice
        label="Trigger"
        value={f.trigger}
        options={TRIGGERS}
        onChange={(trigger) => {
          set({ trigger })
        }}
      />
      <TextField
        label={f.trigger === 'scheduled: cron' ? 'Cron' : 'Every (ms)'}
        value={f.schedule}
        disabled={!f.trigger.startsWith('scheduled')}
        onInput={(schedule) => {
          set({ schedule })
        }}
      />
      <Area
        label="Instructions"
        value={f.system}
        onInput={(system) => {
          set({ system })
        }}
      />
      <TextField
        label="Tools"
        value={f.tools}
        onInput={(tools) => {
          set({ tools })
        }}
      />
      <Area
        label="Prompt"
        value={f.prompt}
        onInput={(prompt) => {
          set({ prompt })
        }}
      />
      <Area
        label="Provider (JSON)"
        value={f.provider}
        onInput={(provider) => {
          set({ provider })
        }}
      />
      <BudgetFields
        legend="Budget"
        value={f.budget}
        onInput={(budget) => {
          set({ budget })
        }}
      />
      <TextField
        label="Accepted when this command passes"
        value={f.check}
        onInput={(check) => {
          set({ check })
        }}
      />
      <TextField
        label="Its timeout (ms)"
        number
        value={f.checkTimeout}
        onInput={(checkTimeout) => {
          set({ checkTimeout })
        }}
      />
      <TextField
        label="Assignment (paths)"
        value={f.assignment}
        onInput={(assignment) => {
          set({ assignment })
        }}
      />
      <p class="buttons">
        <button type="submit">Apply</button>
        <button
          type="button"
          onClick={() => {
            edit(net.networkId, removeNodePatches(net.network, node.id))
          }}
        >
          Remove node
        </button>
      </p>
    </Form>
  )
}

/**
 * The node chosen (the first when none is) and its form; the form starts
 * again from the node whenever an edit (from any page) changed it.
 */
export const NodeEditor = ({ net }: { net: NetView }) => {
  const ids = Object.keys(net.network.nodes)
  const chosen = editedNode.value.get(net.networkId)
  const id = chosen !== undefined && ids.includes(chosen) ? chosen : ids[0]
  const node = id === undefined ? undefined : net.network.nodes[id]
  return (
    <section class="nodeeditor" aria-label={`Edit a node of ${net.networkId}`}>
      <h4>Edit a node</h4>
      <Choice
        label="Node to edit"
        value={id ?? ''}
        options={ids}
        onChange={(n) => {
          editNode(net.networkId, n)
        }}
      />
      {node !== undefined && (
        <NodeForm key={`${node.id} ${JSON.stringify(node)}`} net={net} node={node} />
      )}
    </section>
  )
}
