import * as t from 'io-ts'
import type { Meta } from '../dag/Vertex.js'
import {
  didYouMean,
  jsonSchemaOf,
  strict as strictOf,
  withJsonSchema,
  type Props,
} from '../codec/index.js'
import type { NodeKinds } from '../node/NodeKind.js'
import { nodeKinds } from '../node/nodeKinds.js'

/**
 * A node in a file's `nodes` table (its id is the key): a nested graph, or
 * any other kind but `function`, with its kind's own fields beside `kind`,
 * `persistent` and `metadata`.
 *
 * @category graph files
 */
export type NodeDescription = GraphNodeDescription | OtherNodeDescription

/** @category graph files */
export interface OtherNodeDescription {
  readonly kind: string
  readonly persistent?: boolean
  readonly metadata?: Meta
  readonly [field: string]: unknown
}

/**
 * An error policy in a file. `retry` takes `count` (required), `delayMs`,
 * `backoff`, `maxDelayMs`, `jitter` and `then`; `skip` takes `value`;
 * `fallback` takes `node` (a node reference, like a step's).
 *
 * @category graph files
 */
export interface PolicyFile {
  readonly type: 'fail' | 'retry' | 'skip' | 'fallback'
  readonly count?: number
  readonly delayMs?: number
  readonly backoff?: number
  readonly maxDelayMs?: number
  readonly jitter?: number
  readonly then?: PolicyFile
  readonly value?: unknown
  readonly node?: string
}

/**
 * Words other tools use for a graph file's keys, and the key they mean here.
 *
 * @internal
 */
export const KEY_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  after: 'dependsOn',
  needs: 'dependsOn',
  requires: 'dependsOn',
  deps: 'dependsOn',
  depends: 'dependsOn',
  dependencies: 'dependsOn',
  depends_on: 'dependsOn',
  on_error: 'onError',
  onFailure: 'onError',
  timeout: 'timeoutMs',
  ref: 'nodeRef',
  uses: 'node',
  name: 'id',
  parallel: 'maxParallel',
  max_parallel: 'maxParallel',
})

/** A file's metadata: any object. */
const MetaCodec = t.UnknownRecord as unknown as t.Type<Meta, Meta>

/** A strict object of a graph file: an unknown key's hint knows other tools' words. */
const strict = <A>(name: string, required: t.Props, optional: t.Props = {}): t.Type<A> =>
  strictOf<t.Props, t.Props, A>(name, required, optional, { aliases: KEY_ALIASES })

/** A strict object of a graph file whose type is derived from its props. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no optional keys
const derived = <R extends Props, O extends Props = {}>(name: string, required: R, optional?: O) =>
  strictOf(name, required, optional ?? ({} as O), { aliases: KEY_ALIASES })

const Policy = (name: string, types: t.Mixed, nested: t.Props): t.Type<PolicyFile> =>
  strict<PolicyFile>(
    name,
    { type: types },
    {
      count: t.number,
      delayMs: t.number,
      backoff: t.number,
      maxDelayMs: t.number,
      jitter: t.number,
      value: t.unknown,
      node: t.string,
      ...nested,
    },
  )

/** @internal */
export const ThenPolicyCodec = Policy(
  'ThenPolicy',
  t.keyof({ fail: null, skip: null, fallback: null }),
  {},
)

/** @internal */
export const PolicyCodec = Policy(
  'Policy',
  t.keyof({ fail: null, retry: null, skip: null, fallback: null }),
  { then: ThenPolicyCodec },
)

/** @internal */
export const StepFileCodec = derived(
  'Step',
  { id: t.string },
  {
    node: t.string,
    nodeRef: t.string,
    input: t.unknown,
    dependsOn: t.readonlyArray(t.string, 'Array<string>'),
    onError: PolicyCodec,
    timeoutMs: t.number,
    parser: t.string,
  },
)

/** @category graph files */
export type StepFile = t.TypeOf<typeof StepFileCodec>

/** @internal */
export const EdgeFileCodec = derived(
  'Edge',
  { from: t.string, to: t.string },
  { channel: t.keyof({ flow: null, link: null }), handle: t.string, port: t.string },
)

/**
 * An edge from step `from` to step `to`. `channel` is required: `flow`
 * makes `to` depend on `from`; `link` adds `from` to `to`'s links under
 * `handle` (required for links, absent for flows). `port` is another name
 * for `handle` (`{ "from": "fs", "to": "coder", "channel": "link", "port":
 * "tools" }`); an edge has one or the other.
 *
 * A link into a step whose built-in kind resolves links is checked
 * against the kinds' link ports: that kind must accept the port (an LLM
 * node accepts `tools`), and the `from` step's kind must provide it (a
 * toolset, an mcp-server or an LLM node provides `tools`; a bash node or a
 * graph provides none). Links between other kinds — functions, your own,
 * session nodes named by `nodeRef`, kinds that resolve no links — are left
 * to their interpreters.
 *
 * @category graph files
 */
export type EdgeFile = t.TypeOf<typeof EdgeFileCodec>

/** @internal */
export const GraphNodeDescriptionCodec = derived(
  'GraphNode',
  { kind: t.literal('graph'), steps: t.readonlyArray(StepFileCodec, 'Array<Step>') },
  {
    maxParallel: t.number,
    metadata: MetaCodec,
    edges: t.readonlyArray(EdgeFileCodec, 'Array<Edge>'),
  },
)

/**
 * A nested graph in a file's `nodes` table. Its steps' node references
 * resolve in the same table and registry as the top graph's.
 *
 * @category graph files
 */
export type GraphNodeDescription = t.TypeOf<typeof GraphNodeDescriptionCodec>

const OtherNodeDescriptionCodec = new t.Type<OtherNodeDescription>(
  'Node',
  (u): u is OtherNodeDescription => t.UnknownRecord.is(u) && typeof u.kind === 'string',
  (u, c) => {
    if (!t.UnknownRecord.is(u)) return t.failure(u, c)
    const errors: t.ValidationError[] = []
    const field = (key: string, codec: t.Mixed, optional: boolean): void => {
      if (optional && u[key] === undefined) return
      const r = codec.validate(u[key], t.appendContext(c, key, codec, u[key]))
      if (r._tag === 'Left') errors.push(...r.left)
    }
    field('kind', t.string, false)
    field('persistent', t.boolean, true)
    field('metadata', t.UnknownRecord, true)
    return errors.length > 0 ? t.failures(errors) : t.success(u as OtherNodeDescription)
  },
  t.identity,
)

/** The kinds a file's node may name: the built-in ones and `graph`. */
const FILE_KINDS = ['graph', ...nodeKinds.keys()]

/** A node of one built-in kind in a file: `kind`, `persistent`, `metadata`, and its kind's options. */
const kindSchema = (kind: string) => {
  const options = jsonSchemaOf(nodeKinds.get(kind)!.options) as {
    readonly properties?: Readonly<Record<string, unknown>>
    readonly required?: readonly string[]
  }
  return {
    type: 'object',
    properties: {
      kind: { const: kind },
      persistent: { type: 'boolean' },
      metadata: { type: 'object' },
      ...options.properties,
    },
    required: ['kind', ...(options.required ?? [])],
    additionalProperties: false,
  }
}

/** @internal */
export const NodeDescriptionCodec = withJsonSchema(
  new t.Type<NodeDescription>(
    'NodeDescription',
    (u): u is NodeDescription => GraphNodeDescriptionCodec.is(u) || OtherNodeDescriptionCodec.is(u),
    (u, c) =>
      t.UnknownRecord.is(u) && u.kind === 'graph'
        ? GraphNodeDescriptionCodec.validate(u, c)
        : OtherNodeDescriptionCodec.validate(u, c),
    t.identity,
  ),
  () => ({
    anyOf: [
      jsonSchemaOf(GraphNodeDescriptionCodec),
      ...[...nodeKinds.keys()].map(kindSchema),
      {
        description: 'a node of a kind an interpreter of your own runs',
        type: 'object',
        properties: {
          kind: { type: 'string', not: { enum: [...FILE_KINDS, 'function'] } },
          persistent: { type: 'boolean' },
          metadata: { type: 'object' },
        },
        required: ['kind'],
      },
    ],
  }),
)

/**
 * The io-ts codec of the shape of a graph file: types and keys only, every
 * error with its path. `decodeGraph` runs it first, then checks references.
 *
 * @category graph files
 */
export const GraphFileCodec = derived(
  'GraphFile',
  { id: t.string, steps: t.readonlyArray(StepFileCodec, 'Array<Step>') },
  {
    /** Where the file's JSON Schema is (`nerve schema graph`), for editors; the decoder ignores it. */
    $schema: t.string,
    kind: t.literal('graph'),
    maxParallel: t.number,
    metadata: MetaCodec,
    nodes: t.readonly(
      t.record(t.string, NodeDescriptionCodec),
      '{ [K in string]: NodeDescription }',
    ),
    edges: t.readonlyArray(EdgeFileCodec, 'Array<Edge>'),
  },
)

/**
 * The JSON form of a graph, for files and the wire. Nodes are referenced by
 * id: a step's `node` names an entry of the file's `nodes` table or, failing
 * that, a node of the registry the loader is given (function nodes live
 * there, since a file cannot hold code). `nodeRef` instead names a session
 * node resolved when the step runs. Dependencies are the steps'
 * `dependsOn` or `edges` with `channel: 'flow'`; links are `edges` with
 * `channel: 'link'` and a `handle`.
 *
 * ```json
 * {
 *   "id": "review",
 *   "nodes": { "lint": { "kind": "bash", "command": "npm run lint" } },
 *   "steps": [
 *     { "id": "fetch", "node": "fetchRepo" },
 *     { "id": "lint", "node": "lint", "dependsOn": ["fetch"],
 *       "onError": { "type": "retry", "count": 2, "then": { "type": "skip", "value": null } } },
 *     { "id": "report", "nodeRef": "writer" }
 *   ],
 *   "edges": [
 *     { "from": "lint", "to": "report", "channel": "flow" },
 *     { "from": "fetch", "to": "report", "channel": "link", "handle": "sources" }
 *   ]
 * }
 * ```
 *
 * @category graph files
 */
export type GraphFile = t.TypeOf<typeof GraphFileCodec>

/**
 * The JSON Schema of a graph file, made from {@link GraphFileCodec} (what
 * `nerve schema graph` prints): an editor given it through the file's
 * `$schema` completes and checks every key.
 *
 * @category graph files
 * @example
 * import { graphFileSchema } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const schema = graphFileSchema()
 * assert.deepStrictEqual(schema.required, ['id', 'steps'])
 * assert.ok('dependsOn' in schema.properties.steps.items.properties)
 */
export const graphFileSchema = (): {
  readonly $schema: string
  readonly title: string
  readonly required: readonly string[]
  readonly properties: { readonly steps: { readonly items: { readonly properties: object } } }
} =>
  ({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Nerve graph file',
    ...jsonSchemaOf(GraphFileCodec),
  }) as never

/**
 * The node kind a file most likely meant by an unknown `kind`
 * (`shell` → `bash`, `claude` → `claude-wezterm`: a kind's aliases), if any.
 *
 * @internal
 */
export const kindHint = (kind: string, kinds: NodeKinds = nodeKinds): string | undefined => {
  const described = [...kinds.values()].filter((k) => k.describable)
  const aliases: Record<string, string> = { subgraph: 'graph' }
  for (const k of described) for (const a of k.aliases) aliases[a] = k.kind
  return didYouMean(kind, ['graph', ...described.map((k) => k.kind)], aliases)
}
