import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { NodeKinds } from '../node/NodeKind.js'
import { nodeKinds } from '../node/nodeKinds.js'
import type { NodeRegistry } from '../node/NodeRegistry.js'
import { isNameTemplate, validateName } from '../node/name.js'
import type { Node } from '../node/Node.js'
import { describedNode } from './describedNode.js'
import { linkProblem } from './linkPorts.js'
import { addStep } from './build.js'
import { compile } from './compile.js'
import { fail, policyProblems, type ErrorPolicy } from './ErrorPolicy.js'
import { graph, isGraph, isMaxParallel, type Graph } from './Graph.js'
import {
  GraphFileCodec,
  type EdgeFile,
  type GraphFile,
  type GraphNodeDescription,
  type PolicyFile,
  type StepFile,
} from './GraphFile.js'
import {
  fromValidationErrors,
  pointer,
  showGraphFileError,
  type GraphFileError,
} from './GraphFileError.js'
import type { Links, StepSpec } from './Step.js'
import { encodeGraph } from './encodeGraph.js'

/**
 * Options of {@link decodeGraph}.
 *
 * @category graph files
 */
export interface DecodeGraphOptions {
  /**
   * Nodes a file refers to without describing them: function nodes (which a
   * file cannot hold) and shared nodes. The file's own `nodes` table is
   * looked in first.
   */
  readonly nodes?: NodeRegistry
  /**
   * The kinds the file's `nodes` table may describe: each such node is
   * decoded with its kind's options codec. A kind not listed is taken as
   * described (a kind an interpreter of your own runs). Default: the
   * built-in {@link nodeKinds}.
   */
  readonly kinds?: NodeKinds
}

/** A graph description, the top one or one of the `nodes` table. */
interface Description {
  readonly at: string
  readonly id: string
  readonly maxParallel?: number
  readonly metadata?: Readonly<Record<string, unknown>>
  readonly steps: readonly StepFile[]
  readonly edges?: readonly EdgeFile[]
}

const ALLOWED: Readonly<Record<PolicyFile['type'], readonly string[]>> = {
  fail: [],
  skip: ['value'],
  fallback: ['node'],
  retry: ['count', 'delayMs', 'backoff', 'maxDelayMs', 'jitter', 'then'],
}

const nameError = (path: string, name: unknown): GraphFileError[] => {
  const checked = validateName(name)
  return E.isLeft(checked) ? [{ _tag: 'InvalidName', path, name, reason: checked.left.reason }] : []
}

/** The checks of a policy that need no built node; `known` tells node references. */
const checkPolicy = (
  p: PolicyFile,
  at: string,
  known: (ref: string) => boolean,
  errors: GraphFileError[],
): void => {
  for (const key of Object.keys(p)) {
    if (key !== 'type' && !ALLOWED[p.type].includes(key)) {
      errors.push({
        _tag: 'InvalidValue',
        path: `${at}/${key}`,
        reason: `is not a field of a "${p.type}" policy`,
      })
    }
  }
  if (p.type === 'fallback') {
    if (p.node === undefined) errors.push({ _tag: 'MissingKey', path: `${at}/node` })
    else if (!known(p.node)) errors.push({ _tag: 'UnknownNode', path: `${at}/node`, ref: p.node })
  }
  if (p.type === 'retry') {
    if (p.count === undefined) errors.push({ _tag: 'MissingKey', path: `${at}/count` })
    else {
      for (const problem of policyProblems({ ...retryOf(p), then: fail })) {
        errors.push({
          _tag: 'InvalidValue',
          path: `${at}/${problem.field}`,
          reason: problem.reason,
        })
      }
    }
    if (p.then !== undefined) checkPolicy(p.then, `${at}/then`, known, errors)
  }
}

const retryOf = (p: PolicyFile) => ({
  _tag: 'retry' as const,
  count: p.count ?? 0,
  delayMs: p.delayMs ?? 0,
  backoff: p.backoff ?? 1,
  ...(p.maxDelayMs !== undefined && { maxDelayMs: p.maxDelayMs }),
  jitter: p.jitter ?? 0,
})

/** A checked policy as a value. */
const policyOf = (p: PolicyFile, resolve: (ref: string) => Node): ErrorPolicy => {
  switch (p.type) {
    case 'fail':
      return fail
    case 'skip':
      return { _tag: 'skip', value: p.value }
    case 'fallback':
      return { _tag: 'fallback', node: resolve(p.node!) }
    case 'retry':
      return {
        ...retryOf(p),
        then: p.then === undefined ? fail : (policyOf(p.then, resolve) as typeof fail),
      }
  }
}

/** Steps of one description, checked, with edges folded in; or errors. */
interface Checked {
  readonly dependsOn: string[][]
  readonly links: Record<string, string[]>[]
}

const checkDescription = (
  d: Description,
  known: (ref: string) => boolean,
  kindOf: (step: StepFile) => string | undefined,
  errors: GraphFileError[],
  kinds: NodeKinds,
): Checked => {
  const index = new Map<string, number>()
  const dependsOn: string[][] = []
  const links: Record<string, string[]>[] = []
  d.steps.forEach((s, i) => {
    const at = `${d.at}/steps/${i}`
    errors.push(...nameError(`${at}/id`, s.id))
    if (index.has(s.id)) errors.push({ _tag: 'DuplicateId', path: `${at}/id`, id: s.id })
    else index.set(s.id, i)
    dependsOn.push([])
    links.push({})
  })
  d.steps.forEach((s, i) => {
    const at = `${d.at}/steps/${i}`
    if (s.node !== undefined && s.nodeRef !== undefined) {
      errors.push({ _tag: 'InvalidValue', path: at, reason: 'has both node and nodeRef' })
    } else if (s.node === undefined && s.nodeRef === undefined) {
      errors.push({ _tag: 'InvalidValue', path: at, reason: 'needs node or nodeRef' })
    }
    if (s.node !== undefined && !known(s.node)) {
      errors.push({ _tag: 'UnknownNode', path: `${at}/node`, ref: s.node })
    }
    if (s.nodeRef !== undefined && !isNameTemplate(s.nodeRef)) {
      errors.push(...nameError(`${at}/nodeRef`, s.nodeRef))
    }
    if (s.parser !== undefined) errors.push(...nameError(`${at}/parser`, s.parser))
    if (s.timeoutMs !== undefined && !(s.timeoutMs > 0 && s.timeoutMs < Infinity)) {
      errors.push({ _tag: 'InvalidValue', path: `${at}/timeoutMs`, reason: 'must be a number > 0' })
    }
    if (s.onError !== undefined) checkPolicy(s.onError, `${at}/onError`, known, errors)
    const deps = dependsOn[i]!
    ;(s.dependsOn ?? []).forEach((dep, k) => {
      const path = `${at}/dependsOn/${k}`
      if (dep === s.id)
        errors.push({ _tag: 'InvalidValue', path, reason: 'a step cannot depend on itself' })
      else if (!index.has(dep)) errors.push({ _tag: 'UnknownStep', path, stepId: dep })
      else if (deps.includes(dep))
        errors.push({ _tag: 'InvalidValue', path, reason: `lists "${dep}" twice` })
      else deps.push(dep)
    })
  })
  ;(d.edges ?? []).forEach((edge, k) => {
    const at = `${d.at}/edges/${k}`
    if (!index.has(edge.from))
      errors.push({ _tag: 'UnknownStep', path: `${at}/from`, stepId: edge.from })
    if (!index.has(edge.to)) errors.push({ _tag: 'UnknownStep', path: `${at}/to`, stepId: edge.to })
    if (edge.from === edge.to) {
      errors.push({
        _tag: 'InvalidValue',
        path: at,
        reason: 'an edge cannot join a step to itself',
      })
    }
    if (edge.channel === undefined) {
      errors.push({ _tag: 'MissingChannelMetadata', path: `${at}/channel`, field: 'channel' })
      return
    }
    const to = index.get(edge.to)
    if (edge.handle !== undefined && edge.port !== undefined) {
      errors.push({
        _tag: 'InvalidValue',
        path: `${at}/port`,
        reason: 'is another name for handle: give one of them',
      })
      return
    }
    const handle = edge.handle ?? edge.port
    const handleKey = edge.handle !== undefined ? 'handle' : 'port'
    if (edge.channel === 'flow') {
      if (handle !== undefined) {
        errors.push({
          _tag: 'InvalidValue',
          path: `${at}/${handleKey}`,
          reason: `a flow edge has no ${handleKey}`,
        })
      }
      if (to === undefined || edge.from === edge.to) return
      const deps = dependsOn[to]!
      if (deps.includes(edge.from)) {
        errors.push({
          _tag: 'InvalidValue',
          path: at,
          reason: `repeats a dependency of "${edge.to}"`,
        })
      } else deps.push(edge.from)
      return
    }
    if (handle === undefined) {
      errors.push({ _tag: 'MissingChannelMetadata', path: `${at}/handle`, field: 'handle' })
      return
    }
    const named = nameError(`${at}/${handleKey}`, handle)
    errors.push(...named)
    const from = index.get(edge.from)
    if (to === undefined || from === undefined || edge.from === edge.to) return
    const problem =
      named.length > 0
        ? undefined
        : linkProblem(handle, kindOf(d.steps[from]!), kindOf(d.steps[to]!), kinds)
    if (problem !== undefined) {
      const [end, reason] = problem
      errors.push({
        _tag: 'InvalidValue',
        path: `${at}/${end === 'port' ? handleKey : 'from'}`,
        reason: end === 'from' ? `step "${edge.from}" ${reason}` : reason,
      })
      return
    }
    const targets = (links[to]![handle] ??= [])
    if (targets.includes(edge.from)) {
      errors.push({ _tag: 'InvalidValue', path: at, reason: `repeats a link of "${edge.to}"` })
    } else targets.push(edge.from)
  })
  if (d.maxParallel !== undefined && !isMaxParallel(d.maxParallel)) {
    errors.push({
      _tag: 'InvalidValue',
      path: `${d.at}/maxParallel`,
      reason: 'must be a positive integer',
    })
  }
  return { dependsOn, links }
}

/** Builds a checked description; step cycles become errors. */
const buildDescription = (
  d: Description,
  checked: Checked,
  resolve: (ref: string) => Node,
  errors: GraphFileError[],
): Graph => {
  let g = graph(d.id, {
    ...(d.maxParallel !== undefined && { maxParallel: d.maxParallel }),
    ...(d.metadata !== undefined && { metadata: d.metadata }),
  })
  d.steps.forEach((s, i) => {
    const links: Links = checked.links[i]!
    const spec = {
      id: s.id,
      ...(s.node !== undefined ? { node: resolve(s.node) } : { nodeRef: s.nodeRef! }),
      ...(s.input !== undefined && { input: s.input }),
      dependsOn: checked.dependsOn[i]!,
      ...(s.onError !== undefined && { onError: policyOf(s.onError, resolve) }),
      ...(s.timeoutMs !== undefined && { timeoutMs: s.timeoutMs }),
      ...(s.parser !== undefined && { parser: s.parser }),
      ...(Object.keys(links).length > 0 && { links }),
    } as StepSpec
    g = addStep(spec)(g)
  })
  const compiled = compile(g)
  if (E.isLeft(compiled)) {
    const at = new Map(d.steps.map((s, i) => [s.id, `${d.at}/steps/${i}`]))
    for (const e of compiled.left) {
      // Only this graph's own cycles: the other checks were done on the file,
      // and nested graphs report their cycles where they are described.
      if (e._tag === 'Cycle' && e.path.length === 0) {
        errors.push({ _tag: 'CycleInFile', path: at.get(e.cycle[0]!) ?? d.at, cycle: e.cycle })
      }
    }
  }
  return g
}

/** The graph nodes of the table that a description's steps use. */
const graphRefs = (d: Description, graphs: ReadonlyMap<string, Description>): string[] => {
  const out: string[] = []
  const add = (ref: string | undefined): void => {
    if (ref !== undefined && graphs.has(ref) && !out.includes(ref)) out.push(ref)
  }
  for (const s of d.steps) {
    add(s.node)
    add(s.onError?.node)
    add(s.onError?.then?.node)
  }
  return out
}

/**
 * The table's graphs in an order where each comes after the graphs it uses,
 * or the cycles among them. Iterative depth-first search.
 */
const graphOrder = (
  graphs: ReadonlyMap<string, Description>,
  errors: GraphFileError[],
): string[] => {
  const state = new Map<string, 'open' | 'done'>()
  const order: string[] = []
  for (const rootId of graphs.keys()) {
    if (state.has(rootId)) continue
    const stack: { id: string; refs: string[]; next: number }[] = []
    const open = (id: string): void => {
      state.set(id, 'open')
      stack.push({ id, refs: graphRefs(graphs.get(id)!, graphs), next: 0 })
    }
    open(rootId)
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      const ref = top.refs[top.next++]
      if (ref === undefined) {
        state.set(top.id, 'done')
        order.push(top.id)
        stack.pop()
      } else if (state.get(ref) === 'open') {
        const from = stack.findIndex((f) => f.id === ref)
        const cycle = [...stack.slice(from).map((f) => f.id), ref]
        errors.push({ _tag: 'CycleInFile', path: pointer(['nodes', ref]), cycle })
      } else if (!state.has(ref)) open(ref)
    }
  }
  return order
}

/**
 * Reads a graph file: first its shape (types, required and unknown keys),
 * then its references (node references, step ids in `dependsOn` and edges,
 * duplicate ids, edge channels, policies), then cycles among steps and among
 * nested graphs. Each stage reports every error it finds, with a JSON
 * pointer, and a stage runs only if the one before found none.
 *
 * @category graph files
 * @example
 * import { fn } from 'nerve-agents'
 * import { decodeGraph, executionOrder, nodeRegistry } from 'nerve-agents/core'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const nodes = nodeRegistry(fn('echo', (ctx) => ctx.input))
 * const file = {
 *   id: 'g',
 *   steps: [{ id: 'b', node: 'echo' }, { id: 'a', node: 'echo' }],
 *   edges: [{ from: 'a', to: 'b', channel: 'flow' }],
 * }
 * const g = decodeGraph(file, { nodes })
 * assert.deepStrictEqual(E.chainW(executionOrder)(g), E.right(['a', 'b']))
 *
 * const bad = decodeGraph({ ...file, edges: [{ from: 'a', to: 'b' }] }, { nodes })
 * assert.deepStrictEqual(bad, E.left([
 *   { _tag: 'MissingChannelMetadata', path: '/edges/0/channel', field: 'channel' },
 * ]))
 */
export const decodeGraph = (
  u: unknown,
  options?: DecodeGraphOptions,
): E.Either<readonly GraphFileError[], Graph> => {
  const shape = GraphFileCodec.decode(u)
  if (E.isLeft(shape)) return E.left(fromValidationErrors(shape.left))
  const file: GraphFile = shape.right
  const errors: GraphFileError[] = []
  const kinds = options?.kinds ?? nodeKinds
  const described = new Map<string, Node>()
  const graphs = new Map<string, Description>()
  const broken = new Set<string>()
  for (const [id, desc] of Object.entries(file.nodes ?? {})) {
    const at = pointer(['nodes', id])
    const idErrors = nameError(at, id)
    errors.push(...idErrors)
    if (desc.kind === 'graph') {
      const g = desc as GraphNodeDescription
      graphs.set(id, { at, id, steps: g.steps, ...optional(g) })
      continue
    }
    const kindErrors = nameError(`${at}/kind`, desc.kind)
    errors.push(...kindErrors)
    if (desc.kind === 'function') {
      errors.push({ _tag: 'FunctionNodeInFile', path: `${at}/kind`, id })
      continue
    }
    if ('id' in desc && desc.id !== id) {
      errors.push({
        _tag: 'InvalidValue',
        path: `${at}/id`,
        reason: `differs from the key "${id}"`,
      })
      continue
    }
    if (idErrors.length > 0 || kindErrors.length > 0) continue
    const node = describedNode(id, desc, at, errors, kinds)
    if (node !== undefined) described.set(id, node)
    else broken.add(id) // its errors are told; references to it are not errors too
  }
  const registry = options?.nodes
  const known = (ref: string): boolean =>
    described.has(ref) || broken.has(ref) || graphs.has(ref) || registry?.get(ref) !== undefined
  const top: Description = { at: '', id: file.id, steps: file.steps, ...optional(file) }
  errors.push(...nameError('/id', file.id))
  const checked = new Map<Description, Checked>()
  const kindOf = (s: StepFile): string | undefined =>
    s.node === undefined
      ? undefined
      : graphs.has(s.node)
        ? 'graph'
        : (described.get(s.node)?.kind ??
          (broken.has(s.node) ? undefined : registry?.get(s.node)?.kind))
  for (const d of [...graphs.values(), top]) {
    checked.set(d, checkDescription(d, known, kindOf, errors, kinds))
  }
  const order = graphOrder(graphs, errors)
  if (errors.length > 0) return E.left(errors)

  const built = new Map<string, Graph>()
  const resolve = (ref: string): Node => built.get(ref) ?? described.get(ref) ?? registry!.get(ref)!
  for (const id of order) {
    const d = graphs.get(id)!
    built.set(id, buildDescription(d, checked.get(d)!, resolve, errors))
  }
  const g = buildDescription(top, checked.get(top)!, resolve, errors)
  return errors.length > 0 ? E.left(errors) : E.right(g)
}

const optional = (d: {
  readonly maxParallel?: number
  readonly metadata?: Readonly<Record<string, unknown>>
  readonly edges?: readonly EdgeFile[]
}) => ({
  ...(d.maxParallel !== undefined && { maxParallel: d.maxParallel }),
  ...(d.metadata !== undefined && { metadata: d.metadata }),
  ...(d.edges !== undefined && { edges: d.edges }),
})

/**
 * {@link decodeGraph} and {@link encodeGraph} as one io-ts codec, to nest a
 * graph in larger formats. Decode failures carry the rendered
 * {@link GraphFileError}s as messages.
 *
 * @category graph files
 */
export const graphCodec = (options?: DecodeGraphOptions): t.Type<Graph, GraphFile> =>
  new t.Type<Graph, GraphFile>(
    'Graph',
    isGraph,
    (u, c) => {
      const decoded = decodeGraph(u, options)
      return E.isRight(decoded)
        ? t.success(decoded.right)
        : t.failures(
            decoded.left.map((e) => ({ value: u, context: c, message: showGraphFileError(e) })),
          )
    },
    encodeGraph,
  )
