import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { Meta } from '../../dag/Vertex.js'
import type {
  Conversation,
  Entry,
  Message,
  StopReason,
  SystemPrompt,
  ToolDefinitions,
  ToolExecution,
} from '../Entry.js'
import {
  isIdArray,
  isRecord,
  struct,
  VertexId,
  VertexIds,
  type Decoding,
  type JsonRecord,
} from './combinators.js'
import type { ConversationDocument } from './document.js'
import {
  isPlainNanoMessage,
  nanoMessage,
  NanoMessageCodec,
  StopReasonCodec,
  SystemPromptCodec,
  ToolDefinitionsCodec,
  ToolExecutionCodec,
  type NanoMessageJson,
} from './entry.js'
import { invalidValues, pointerSegment, type DecodeError, type InvalidValue } from './errors.js'
import {
  decodeFile,
  causalOrder,
  parentIds,
  pendingDag,
  type PendingDag,
  type PendingSubConversation,
} from './buildDag.js'
import { parseJson, stringifyJson, stringifyParts } from './json.js'

/** nano-agent's record of a sub-agent's run: its own graph, nested. @category codecs */
export interface SubGraphJson {
  readonly type: 'sub_graph'
  readonly tool_name: string
  readonly tool_use_id: string
  readonly system_prompt: string
  readonly nodes: Readonly<Record<string, NanoNodeJson>>
  readonly head_ids: readonly string[]
  readonly summary: string
  readonly depth: number
}

/** A node's data in nano-agent's format. @category codecs */
export type NanoEntryJson =
  SystemPrompt | ToolDefinitions | NanoMessageJson | ToolExecution | StopReason | SubGraphJson

/** A node of nano-agent's format; `timestamp` is in seconds. @category codecs */
export interface NanoNodeJson {
  readonly id: string
  readonly parent_ids: readonly string[]
  readonly data: NanoEntryJson
  readonly timestamp: number
  readonly metadata: Meta
}

/** A graph file written by nano-agent (`Node.save_graph`). @category codecs */
export interface NanoJson {
  readonly session_id: string
  readonly created_at: number
  readonly metadata: Meta
  readonly head_ids: readonly string[]
  readonly nodes: Readonly<Record<string, NanoNodeJson>>
}

const HeaderCodec = struct(
  'NanoConversation',
  { head_ids: VertexIds, nodes: t.UnknownRecord },
  { session_id: t.string, created_at: t.number, metadata: t.UnknownRecord },
)

const SubGraphHeaderCodec = struct('SubGraph', {
  type: t.literal('sub_graph'),
  tool_name: t.string,
  tool_use_id: t.string,
  system_prompt: t.string,
  nodes: t.UnknownRecord,
  head_ids: VertexIds,
  summary: t.string,
  depth: t.number,
})

type SubGraphHeader = t.TypeOf<typeof SubGraphHeaderCodec>
type NodeData = Exclude<Entry, { type: 'sub_conversation' }> | SubGraphHeader

const TAGGED = new Map<string, Decoding<NodeData>>([
  ['system_prompt', SystemPromptCodec],
  ['tool_definitions', ToolDefinitionsCodec],
  ['tool_execution', ToolExecutionCodec],
  ['stop_reason', StopReasonCodec],
  ['sub_graph', SubGraphHeaderCodec],
])

/** The codec of a node's data: by `type` when it is one of nano-agent's tags, else a message if it has a `role`. */
const codecOf = (u: unknown): Decoding<NodeData> | undefined => {
  if (!isRecord(u)) return undefined
  const tagged = typeof u.type === 'string' ? TAGGED.get(u.type) : undefined
  return tagged ?? (u.role === undefined ? undefined : NanoMessageCodec)
}

const DataCodec = new t.Type<NodeData, unknown, unknown>(
  'SystemPrompt | ToolDefinitions | Message | ToolExecution | StopReason | SubGraph',
  (u): u is NodeData => codecOf(u)?.is(u) ?? false,
  (u, c) => codecOf(u)?.validate(u, c) ?? t.failure(u, c),
  t.identity,
)

const NodeCodec = struct(
  'NanoNode',
  { id: VertexId, parent_ids: VertexIds, data: DataCodec },
  { timestamp: t.number, metadata: t.UnknownRecord },
)

type NodeValue = t.TypeOf<typeof NodeCodec>

/** The entry of plain data (no unknown block, no sub-graph), or `undefined` to take the slow path. */
const plainData = (d: unknown): Entry | undefined => {
  if (!isRecord(d)) return undefined
  const tagged = typeof d.type === 'string' ? TAGGED.get(d.type) : undefined
  if (tagged !== undefined) {
    return tagged !== SubGraphHeaderCodec && tagged.is(d) ? (d as unknown as Entry) : undefined
  }
  return d.role !== undefined && isPlainNanoMessage(d)
    ? nanoMessage(d.role as Message['role'], d.content as Message['content'])
    : undefined
}

const isPlainShell = (v: unknown): v is JsonRecord =>
  isRecord(v) &&
  VertexId.is(v.id) &&
  isIdArray(v.parent_ids) &&
  (v.timestamp === undefined || typeof v.timestamp === 'number') &&
  (v.metadata === undefined || isRecord(v.metadata))

const EMPTY: Meta = Object.freeze({})

/** Sets a key of a fresh object, `__proto__` included. */
const setKey = (o: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === '__proto__') {
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
  } else {
    o[key] = value
  }
}

/** The vertex meta of a node: its metadata and its timestamp. */
const metaOf = (metadata: JsonRecord | undefined, timestamp: number | undefined): Meta => {
  let m: Record<string, unknown> | undefined
  if (metadata !== undefined) {
    for (const k in metadata) {
      m ??= {}
      setKey(m, k, metadata[k])
    }
  }
  if (m === undefined) return timestamp === undefined ? EMPTY : { timestamp }
  if (timestamp !== undefined) m.timestamp = timestamp
  return m
}

interface Job {
  readonly nodes: JsonRecord
  readonly heads: readonly string[]
  readonly path: string
  readonly into: PendingSubConversation | undefined
}

const pendingSub = (h: SubGraphHeader): PendingSubConversation => ({
  type: 'sub_conversation',
  tool_name: h.tool_name,
  tool_use_id: h.tool_use_id,
  system_prompt: h.system_prompt,
  heads: [],
  summary: h.summary,
  depth: h.depth,
})

/** Checks the nodes of one DAG, queueing the DAGs of its sub-graphs. */
const readDag = (job: Job, jobs: Job[], errors: InvalidValue[]): PendingDag => {
  const nodes = job.nodes
  const keys = Object.keys(nodes)
  const g = pendingDag(
    {
      path: job.path,
      nodesKey: 'nodes',
      parentsKey: 'parent_ids',
      headsKey: 'head_ids',
      headIds: job.heads,
      into: job.into,
    },
    keys.length,
    keys,
  )
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const v = nodes[key]
    let node: NodeValue
    let data = isPlainShell(v) ? plainData(v.data) : undefined
    if (data !== undefined) {
      node = v as NodeValue
    } else {
      const r = NodeCodec.validate(v, [{ key: '', type: NodeCodec, actual: v }])
      if (E.isLeft(r)) {
        invalidValues(r.left, `${job.path}/nodes/${pointerSegment(key)}`, errors)
        continue
      }
      node = r.right
      const d = node.data
      if (d.type === 'sub_graph') {
        const into = pendingSub(d)
        jobs.push({
          nodes: d.nodes,
          heads: d.head_ids,
          path: `${job.path}/nodes/${pointerSegment(key)}/data`,
          into,
        })
        data = into
      } else {
        data = d
      }
    }
    if (errors.length > 0) continue
    g.ids[i] = node.id
    g.parents[i] = node.parent_ids
    g.data[i] = data
    g.meta[i] = metaOf(node.metadata, node.timestamp)
  }
  return g
}

/**
 * Decodes a graph file of nano-agent from a parsed JSON value. Node ids are
 * kept; a message gets its `type: 'message'`, a `sub_graph` becomes a
 * `sub_conversation`, and a vertex's meta is the node's `metadata` with its
 * `timestamp`. With no `head_ids`, the nodes without children are the heads,
 * as nano-agent reads it. The decoded values share the input's objects and
 * freeze them in place.
 *
 * @category codecs
 */
export const decodeNano = (u: unknown): E.Either<DecodeError, ConversationDocument> =>
  decodeFile(
    u,
    HeaderCodec,
    (h): Job => ({ nodes: h.nodes, heads: h.head_ids, path: '', into: undefined }),
    readDag,
  )

/**
 * Options of {@link encodeNano}: what to write where the document has nothing.
 *
 * @category codecs
 */
export interface NanoEncodeOptions {
  /** Seconds; written as a node's `timestamp` when its meta has no number `timestamp`, and as `created_at`. Default 0. */
  readonly timestamp?: number
  /** Written as `session_id` when the document has none. Default `''`. */
  readonly sessionId?: string
}

interface Out {
  readonly nodes: Record<string, NanoNodeJson>
  readonly head_ids: string[]
}

interface EncodeJob {
  readonly heads: readonly Conversation[]
  readonly out: Out
}

const encodeEntry = (e: Entry, jobs: EncodeJob[]): NanoEntryJson => {
  switch (e.type) {
    case 'message':
      return NanoMessageCodec.encode(e)
    case 'sub_conversation': {
      const out: Out = { nodes: {}, head_ids: [] }
      jobs.push({ heads: e.heads, out })
      return {
        type: 'sub_graph',
        tool_name: e.tool_name,
        tool_use_id: e.tool_use_id,
        system_prompt: e.system_prompt,
        nodes: out.nodes,
        head_ids: out.head_ids,
        summary: e.summary,
        depth: e.depth,
      }
    }
    default:
      return e
  }
}

/** A node's metadata: the vertex meta without its timestamp. */
const metadataOf = (meta: Meta): Meta => {
  let m: Record<string, unknown> | undefined
  for (const k in meta) {
    if (k === 'timestamp') continue
    m ??= {}
    setKey(m, k, meta[k])
  }
  return m ?? EMPTY
}

/** A vertex as a node of nano-agent's format (a sub-conversation's DAG queued in `jobs`). */
const nodeOf = (v: Conversation, jobs: EncodeJob[], fallback: number): NanoNodeJson => {
  const ts = v.meta.timestamp
  return {
    id: v.id,
    parent_ids: parentIds(v),
    data: encodeEntry(v.data, jobs),
    timestamp: typeof ts === 'number' ? ts : fallback,
    metadata: metadataOf(v.meta),
  }
}

/** Writes each job's DAG (nodes in causal order, then heads), and those of the sub-conversations they meet. */
const encodeJobs = (jobs: EncodeJob[], fallback: number): void => {
  for (let j = 0; j < jobs.length; j++) {
    const { heads, out } = jobs[j]!
    const vs = causalOrder(heads)
    for (let i = 0; i < vs.length; i++) setKey(out.nodes, vs[i]!.id, nodeOf(vs[i]!, jobs, fallback))
    for (const h of heads) out.head_ids.push(h.id)
  }
}

/** The top level of a nano-agent file, given its nodes. */
const fileOf = (
  doc: ConversationDocument,
  options: NanoEncodeOptions | undefined,
  nodes: Record<string, NanoNodeJson>,
): NanoJson => ({
  session_id: doc.sessionId ?? options?.sessionId ?? '',
  created_at: doc.createdAt ?? options?.timestamp ?? 0,
  metadata: doc.metadata,
  head_ids: doc.heads.map((h) => h.id),
  nodes,
})

/**
 * Encodes a document in nano-agent's format: nodes by id in causal order,
 * messages without their `type`, sub-conversations as `sub_graph`s. A node's
 * `timestamp` is its meta's number `timestamp` (else `options.timestamp`,
 * else 0) and its `metadata` the rest of the meta. Vertices are known by id:
 * two vertex objects with the same id are written once.
 *
 * @category codecs
 */
export const encodeNano = (doc: ConversationDocument, options?: NanoEncodeOptions): NanoJson => {
  const file = fileOf(doc, options, {})
  encodeJobs(
    [{ heads: doc.heads, out: { nodes: file.nodes, head_ids: [] } }],
    options?.timestamp ?? 0,
  )
  return file
}

/** Whether a key is an array index, which an object lists before its other keys. */
const isIndex = (key: string): boolean =>
  key.length <= 10 && /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1

/**
 * Encodes a document in nano-agent's format and writes it as compact JSON
 * text (`JSON.stringify(encodeNano(doc), null, 2)` for nano-agent's indented
 * style): the text of `JSON.stringify(encodeNano(doc, options))`, written a
 * few hundred nodes at a time.
 *
 * @category codecs
 */
export const stringifyNano = (doc: ConversationDocument, options?: NanoEncodeOptions): string => {
  const fallback = options?.timestamp ?? 0
  const vs = causalOrder(doc.heads)
  // An object lists index keys first, wherever they were set: only one object keeps that order.
  if (vs.some((v) => isIndex(v.id))) return stringifyJson(encodeNano(doc, options))
  const nodes = stringifyParts(vs.length, (start, end) => {
    const part: Record<string, NanoNodeJson> = {}
    const jobs: EncodeJob[] = []
    for (let i = start; i < end; i++) setKey(part, vs[i]!.id, nodeOf(vs[i]!, jobs, fallback))
    encodeJobs(jobs, fallback)
    return part
  })
  // `nodes` comes last: the text ends with `{}}`.
  return `${stringifyJson(fileOf(doc, options, {})).slice(0, -2)}${nodes}}}`
}

/**
 * Parses and decodes a graph file of nano-agent.
 *
 * @category codecs
 * @example
 * import { messages } from 'nerve-agents'
 * import { parseNano } from 'nerve-agents/core'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const text = JSON.stringify({
 *   session_id: 's', created_at: 0, metadata: {}, head_ids: ['b'],
 *   nodes: {
 *     a: { id: 'a', parent_ids: [], data: { type: 'system_prompt', content: 'Be brief.' }, timestamp: 1, metadata: {} },
 *     b: { id: 'b', parent_ids: ['a'], data: { role: 'user', content: 'hi' }, timestamp: 2, metadata: {} },
 *   },
 * })
 * const r = parseNano(text)
 * assert.ok(E.isRight(r))
 * assert.deepStrictEqual(messages(r.right.heads), [{ type: 'message', role: 'user', content: 'hi' }])
 * assert.deepStrictEqual(r.right.heads[0]?.meta, { timestamp: 2 })
 */
export const parseNano = (text: string): E.Either<DecodeError, ConversationDocument> => {
  const json = parseJson(text)
  return E.isLeft(json) ? json : decodeNano(json.right)
}
