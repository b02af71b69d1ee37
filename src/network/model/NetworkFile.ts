import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { UsageError } from '../../errors.js'
import {
  jsonSchemaOf,
  shapeErrors,
  showShapeError,
  whereIn,
  type JsonSchema,
  type ShapeError,
} from '../../codec/index.js'
import { showInvalidName, validateName } from '../../node/index.js'
import type { Budget } from '../../runtime/index.js'
import { role as makeRole, roles, type AgentRole } from './AgentRole.js'
import { connect } from './edgeEdits.js'
import { network } from './edit.js'
import { addNode } from './nodeEdits.js'
import { defineSubnetwork } from './subnetworkEdits.js'
import type {
  Acceptance,
  Delivery,
  Direction,
  Limits,
  Network,
  NodeMode,
  ProviderSpec,
  Trigger,
  WorkflowMode,
} from './Network.js'
import {
  AcceptanceCodec,
  BudgetCodec,
  DeliveryCodec,
  DirectionCodec,
  LimitsCodec,
  ModeCodec,
  ProviderCodec,
  strict,
  StringList,
  TriggerCodec,
  WorkflowCodec,
} from './parts.js'

/**
 * A node as a network file holds it.
 *
 * @category network files
 */
export interface NetworkNodeFile {
  readonly id: string
  readonly role?: string
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

/**
 * An edge as a network file holds it.
 *
 * @category network files
 */
export interface NetworkEdgeFile {
  readonly from: string
  readonly to: string
  readonly direction?: Direction
  readonly delivery?: Delivery
}

/**
 * A sub-network as a network file holds it: its id, its nodes' ids, its budget.
 *
 * @category network files
 */
export interface NetworkSubnetworkFile {
  readonly id: string
  readonly nodes: readonly string[]
  readonly budget?: Budget
}

/**
 * A role defined in a network file.
 *
 * @category network files
 */
export interface NetworkRoleFile {
  readonly system: string
  readonly tools?: readonly string[]
  readonly mode?: NodeMode
  readonly approves?: boolean
}

/**
 * A network file (JSON): `format` `"nerve/network"`, `version` 1.
 *
 * @category network files
 */
export interface NetworkFile {
  /** Where the file's JSON Schema is (`nerve schema network`), for editors; the decoder ignores it. */
  readonly $schema?: string
  readonly format?: 'nerve/network'
  readonly version?: 1
  readonly id: string
  readonly workflow?: WorkflowMode
  readonly limits?: Partial<Limits>
  readonly budget?: Budget
  readonly roles?: Readonly<Record<string, NetworkRoleFile>>
  readonly nodes: readonly NetworkNodeFile[]
  readonly edges?: readonly NetworkEdgeFile[]
  readonly subnetworks?: readonly NetworkSubnetworkFile[]
}

const RoleFileCodec = strict<NetworkRoleFile>(
  'Role',
  { system: t.string },
  { tools: StringList, mode: ModeCodec, approves: t.boolean },
)

const NodeFileCodec = strict<NetworkNodeFile>(
  'Node',
  { id: t.string },
  {
    role: t.string,
    mode: ModeCodec,
    trigger: TriggerCodec,
    provider: ProviderCodec,
    system: t.string,
    tools: StringList,
    prompt: t.string,
    budget: BudgetCodec,
    acceptance: AcceptanceCodec,
    assignment: StringList,
  },
)

const EdgeFileCodec = strict<NetworkEdgeFile>(
  'Edge',
  { from: t.string, to: t.string },
  { direction: DirectionCodec, delivery: DeliveryCodec },
)

const SubnetworkFileCodec = strict<NetworkSubnetworkFile>(
  'Subnetwork',
  { id: t.string, nodes: StringList },
  { budget: BudgetCodec },
)

/**
 * The shape of a network file, strict: an unknown key is an error.
 *
 * @category network files
 */
export const NetworkFileCodec: t.Type<NetworkFile> = strict<NetworkFile>(
  'NetworkFile',
  { id: t.string, nodes: t.readonlyArray(NodeFileCodec) },
  {
    $schema: t.string,
    format: t.literal('nerve/network'),
    version: t.literal(1),
    workflow: WorkflowCodec,
    limits: LimitsCodec,
    budget: BudgetCodec,
    roles: t.record(t.string, RoleFileCodec),
    edges: t.readonlyArray(EdgeFileCodec),
    subnetworks: t.readonlyArray(SubnetworkFileCodec),
  },
)

/**
 * The JSON Schema of a network file, made from {@link NetworkFileCodec}
 * (what `nerve schema network` prints).
 *
 * @category network files
 * @example
 * import { networkFileSchema } from 'nerve-agents/network'
 * import assert from 'assert'
 *
 * const schema = networkFileSchema()
 * assert.deepStrictEqual(schema.required, ['id', 'nodes'])
 */
export const networkFileSchema = (): { readonly required: readonly string[] } & JsonSchema =>
  ({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Nerve network file',
    ...jsonSchemaOf(NetworkFileCodec),
  }) as never

/**
 * What is wrong with a network file, with the JSON pointer of where.
 *
 * @category network files
 */
export type NetworkFileError =
  | ShapeError
  | { readonly _tag: 'InvalidName'; readonly path: string; readonly reason: string }
  | { readonly _tag: 'DuplicateId'; readonly path: string; readonly id: string }
  | { readonly _tag: 'UnknownNode'; readonly path: string; readonly ref: string }
  | { readonly _tag: 'UnknownRole'; readonly path: string; readonly role: string }
  | { readonly _tag: 'DuplicateSubnetwork'; readonly path: string; readonly id: string }
  | {
      readonly _tag: 'DuplicateEdge'
      readonly path: string
      readonly from: string
      readonly to: string
    }

/**
 * One line for a {@link NetworkFileError}: where, then what.
 *
 * @category network files
 */
export const showNetworkFileError = (e: NetworkFileError): string => {
  const at = whereIn(e.path)
  switch (e._tag) {
    case 'WrongType':
    case 'MissingKey':
    case 'UnknownKey':
      return showShapeError(e)
    case 'InvalidName':
      return `${at}: ${e.reason}`
    case 'DuplicateId':
      return `${at}: the node id "${e.id}" is already used`
    case 'UnknownNode':
      return `${at}: no node "${e.ref}" in the network`
    case 'UnknownRole':
      return `${at}: no role "${e.role}" (built in: ${Object.keys(roles).join(', ')}; or define it under "roles")`
    case 'DuplicateSubnetwork':
      return `${at}: the sub-network id "${e.id}" is already used`
    case 'DuplicateEdge':
      return `${at}: "${e.from}" and "${e.to}" are already joined by an edge`
  }
}

const nameProblem = (path: string, name: string): NetworkFileError[] => {
  const v = validateName(name)
  return v._tag === 'Left' ? [{ _tag: 'InvalidName', path, reason: showInvalidName(v.left) }] : []
}

/**
 * Decodes a network file into a {@link Network}, collecting every error
 * with its JSON pointer: the shape (strict: unknown keys, bad delivery or
 * trigger options), node ids (the name rule, duplicates), edges naming an
 * unknown node, two edges joining the same nodes, unknown roles,
 * sub-networks naming an unknown node or sharing an id.
 *
 * @category network files
 * @example
 * import { decodeNetwork } from 'nerve-agents/network'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const file = {
 *   id: 'team',
 *   nodes: [{ id: 'plan', role: 'Planner' }, { id: 'code', role: 'Coder' }],
 *   edges: [{ from: 'plan', to: 'code' }, { from: 'code', to: 'ghost', delivery: { type: 'soon' } }],
 * }
 * assert.deepStrictEqual(decodeNetwork(file), E.left([
 *   { _tag: 'WrongType', path: '/edges/1/delivery/type', expected: '"queue" | "latest" | "debounce"', actual: 'soon' },
 * ]))
 * const fixed = { ...file, edges: [file.edges[0], { from: 'code', to: 'ghost' }] }
 * assert.deepStrictEqual(decodeNetwork(fixed), E.left([
 *   { _tag: 'UnknownNode', path: '/edges/1/to', ref: 'ghost' },
 * ]))
 */
export const decodeNetwork = (u: unknown): E.Either<readonly NetworkFileError[], Network> => {
  const shape = NetworkFileCodec.decode(u)
  if (E.isLeft(shape)) return E.left(shapeErrors(shape.left))
  const file = shape.right
  const errors: NetworkFileError[] = [...nameProblem('/id', file.id)]
  const custom = new Map<string, AgentRole>()
  for (const [name, r] of Object.entries(file.roles ?? {})) {
    custom.set(name, makeRole(name, r))
  }
  const ids = new Set<string>()
  file.nodes.forEach((n, i) => {
    errors.push(...nameProblem(`/nodes/${i}/id`, n.id))
    if (ids.has(n.id)) errors.push({ _tag: 'DuplicateId', path: `/nodes/${i}/id`, id: n.id })
    ids.add(n.id)
    if (n.role !== undefined && !custom.has(n.role) && !(n.role in roles)) {
      errors.push({ _tag: 'UnknownRole', path: `/nodes/${i}/role`, role: n.role })
    }
  })
  const pairs = new Set<string>()
  ;(file.edges ?? []).forEach((e, i) => {
    for (const end of ['from', 'to'] as const) {
      if (!ids.has(e[end]))
        errors.push({ _tag: 'UnknownNode', path: `/edges/${i}/${end}`, ref: e[end] })
    }
    const key = [e.from, e.to].sort().join('\u0000')
    if (pairs.has(key))
      errors.push({ _tag: 'DuplicateEdge', path: `/edges/${i}`, from: e.from, to: e.to })
    pairs.add(key)
  })
  const groups = new Set<string>()
  ;(file.subnetworks ?? []).forEach((g, i) => {
    errors.push(...nameProblem(`/subnetworks/${i}/id`, g.id))
    if (groups.has(g.id))
      errors.push({ _tag: 'DuplicateSubnetwork', path: `/subnetworks/${i}/id`, id: g.id })
    groups.add(g.id)
    g.nodes.forEach((n, j) => {
      if (!ids.has(n))
        errors.push({ _tag: 'UnknownNode', path: `/subnetworks/${i}/nodes/${j}`, ref: n })
    })
  })
  if (errors.length > 0) return E.left(errors)
  let net = network(file.id, {
    ...(file.workflow !== undefined && { workflow: file.workflow }),
    ...(file.limits !== undefined && { limits: file.limits }),
    ...(file.budget !== undefined && { budget: file.budget }),
  })
  for (const n of file.nodes) {
    const { role, ...rest } = n
    net = addNode({ ...rest, ...(role !== undefined && { role: custom.get(role) ?? role }) })(net)
  }
  for (const e of file.edges ?? []) {
    net = connect(e.from, e.to, {
      ...(e.direction !== undefined && { direction: e.direction }),
      ...(e.delivery !== undefined && { delivery: e.delivery }),
    })(net)
  }
  for (const g of file.subnetworks ?? []) {
    net = defineSubnetwork(g.id, {
      nodes: g.nodes,
      ...(g.budget !== undefined && { budget: g.budget }),
    })(net)
  }
  return E.right(net)
}

/**
 * A network as a file: every node field written out, so decoding it gives
 * the same network back.
 *
 * @category network files
 * @example
 * import { addNode, connect, network } from 'nerve-agents'
 * import { decodeNetwork, encodeNetwork } from 'nerve-agents/network'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const net = pipe(network('t'), addNode({ id: 'a', role: 'Coder' }), addNode({ id: 'b' }), connect('a', 'b'))
 * assert.deepStrictEqual(decodeNetwork(JSON.parse(JSON.stringify(encodeNetwork(net)))), E.right(net))
 */
export const encodeNetwork = (net: Network): NetworkFile => {
  const given: unknown = net
  if ((given as Network | null)?._tag !== 'Network') {
    throw new UsageError('encodeNetwork', `expects a Network, got ${typeof given}`)
  }
  const custom: Record<string, NetworkRoleFile> = {}
  for (const n of Object.values(net.nodes)) {
    if (!(n.role in roles) && custom[n.role] === undefined) {
      custom[n.role] = { system: n.system, tools: n.tools, mode: n.mode }
    }
  }
  return {
    format: 'nerve/network',
    version: 1,
    id: net.id,
    workflow: net.workflow,
    limits: net.limits,
    ...(net.budget !== undefined && { budget: net.budget }),
    ...(Object.keys(custom).length > 0 && { roles: custom }),
    nodes: Object.values(net.nodes),
    edges: Object.values(net.edges).map((e) => ({
      from: e.from,
      to: e.to,
      direction: e.direction,
      delivery: e.delivery,
    })),
    ...(net.subnetworks !== undefined && { subnetworks: Object.values(net.subnetworks) }),
  }
}
