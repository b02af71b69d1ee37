/**
 * A network node from a spec: every field checked with the network codecs
 * (a `UsageError` names the bad one), defaults filled in, a role's system
 * instructions, tools and mode applied unless given.
 */
import { UsageError } from '../../errors.js'
import type { Budget } from '../../runtime/index.js'
import { roleOf, type AgentRole } from './AgentRole.js'
import { requireId } from './editCore.js'
import type { Acceptance, NetworkNode, NodeMode, ProviderSpec, Trigger } from './Network.js'
import {
  AcceptanceCodec,
  BudgetCodec,
  checked,
  ModeCodec,
  ProviderCodec,
  StringList,
  TriggerCodec,
} from './parts.js'

/**
 * What {@link addNode} takes: an id and, optionally, every other field of
 * a {@link NetworkNode}. A `role` (a built-in name or a {@link AgentRole})
 * gives `system`, `tools` and `mode` unless they are given.
 *
 * @category network builders
 */
export interface NodeSpec {
  readonly id: string
  readonly role?: AgentRole | string
  readonly mode?: NodeMode
  readonly trigger?: Trigger
  readonly provider?: ProviderSpec
  readonly system?: string
  readonly tools?: readonly string[]
  readonly prompt?: string
  readonly budget?: Budget
  readonly acceptance?: Acceptance
  readonly assignment?: readonly string[]
}

const SPEC_KEYS: ReadonlySet<string> = new Set([
  'id',
  'role',
  'mode',
  'trigger',
  'provider',
  'system',
  'tools',
  'prompt',
  'budget',
  'acceptance',
  'assignment',
])

/**
 * A node made from a spec: checked (a `UsageError` names the bad field) and
 * with defaults filled in. The default provider is the LLM provider named
 * `default`; the default trigger `any`; the default mode the role's, else
 * `interactive`.
 *
 * @category network builders
 */
export const networkNode = (spec: NodeSpec, api = 'networkNode'): NetworkNode => {
  if (typeof spec !== 'object' || (spec as unknown) === null) {
    throw new UsageError(api, 'expects a node spec object with an id')
  }
  const id = requireId(api, 'the node id', spec.id)
  for (const key of Object.keys(spec)) {
    if (!SPEC_KEYS.has(key)) throw new UsageError(api, `node "${id}": "${key}" is not a node field`)
  }
  const at = `node "${id}"`
  const r = spec.role === undefined ? undefined : roleOf(api, spec.role)
  const system = spec.system ?? r?.system ?? ''
  if (typeof system !== 'string') throw new UsageError(api, `${at}: system must be a string`)
  if (spec.prompt !== undefined && typeof spec.prompt !== 'string') {
    throw new UsageError(api, `${at}: prompt must be a string`)
  }
  const node: NetworkNode = {
    id,
    role: r?.name ?? 'Agent',
    mode: checked(api, `${at}: mode`, ModeCodec, spec.mode ?? r?.mode ?? 'interactive'),
    trigger: checked(api, `${at}: trigger`, TriggerCodec, spec.trigger ?? { type: 'any' }),
    provider: checked(
      api,
      `${at}: provider`,
      ProviderCodec,
      spec.provider ?? { type: 'llm', provider: 'default' },
    ),
    system,
    tools: checked(api, `${at}: tools`, StringList, spec.tools ?? r?.tools ?? []),
    ...(spec.prompt !== undefined && { prompt: spec.prompt }),
    ...(spec.budget !== undefined && {
      budget: checked(api, `${at}: budget`, BudgetCodec, spec.budget),
    }),
    ...(spec.acceptance !== undefined && {
      acceptance: checked(api, `${at}: acceptance`, AcceptanceCodec, spec.acceptance),
    }),
    ...(spec.assignment !== undefined && {
      assignment: checked(api, `${at}: assignment`, StringList, spec.assignment),
    }),
  }
  return node
}
