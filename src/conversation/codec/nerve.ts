import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { ancestorsOfAll } from '../../dag/traverse.js'
import type { Meta } from '../../dag/Vertex.js'
import type {
  Conversation,
  Entry,
  StopReason,
  SystemPrompt,
  ToolDefinitions,
  ToolExecution,
} from '../Entry.js'
import {
  isIdArray,
  isRecord,
  struct,
  tagged,
  VertexId,
  VertexIds,
  type JsonRecord,
} from './combinators.js'
import type { ConversationDocument } from './document.js'
import {
  encodeContent,
  isPlainContent,
  MessageCodec,
  StopReasonCodec,
  SystemPromptCodec,
  ToolDefinitionsCodec,
  ToolExecutionCodec,
  type MessageJson,
} from './entry.js'
import { invalidValues, type DecodeError, type InvalidValue } from './errors.js'
import {
  decodeFile,
  causalOrder,
  parentIds,
  pendingDag,
  type PendingDag,
  type PendingSubConversation,
} from './buildDag.js'
import { parseJson, stringifyJson, stringifyParts } from './json.js'

/** The `format` field of a Nerve conversation file. @category codecs */
export const NERVE_FORMAT = 'nerve/conversation'

/** A sub-conversation on the wire: its own DAG, nested. @category codecs */
export interface SubConversationJson {
  readonly type: 'sub_conversation'
  readonly tool_name: string
  readonly tool_use_id: string
  readonly system_prompt: string
  readonly heads: readonly string[]
  readonly vertices: readonly NerveVertexJson[]
  readonly summary: string
  readonly depth: number
}

/** An entry on the wire of the Nerve format. @category codecs */
export type NerveEntryJson =
  SystemPrompt | ToolDefinitions | MessageJson | ToolExecution | StopReason | SubConversationJson

/** A vertex on the wire: parents by id. @category codecs */
export interface NerveVertexJson {
  readonly id: string
  readonly parents: readonly string[]
  readonly data: NerveEntryJson
  readonly meta: Meta
}

/**
 * A conversation file of the Nerve format: the heads' ids and every vertex
 * they reach, parents before children.
 *
 * @category codecs
 */
export interface NerveJson {
  readonly format: typeof NERVE_FORMAT
  readonly version: 1
  readonly heads: readonly string[]
  readonly vertices: readonly NerveVertexJson[]
  readonly metadata: Meta
  readonly session_id?: string
  readonly created_at?: number
}

const HeaderCodec = struct(
  'NerveConversation',
  {
    format: t.literal(NERVE_FORMAT),
    version: t.literal(1),
    heads: VertexIds,
    vertices: t.UnknownArray,
  },
  { metadata: t.UnknownRecord, session_id: t.string, created_at: t.number },
)

const SubConversationHeaderCodec = struct('SubConversation', {
  type: t.literal('sub_conversation'),
  tool_name: t.string,
  tool_use_id: t.string,
  system_prompt: t.string,
  heads: VertexIds,
  vertices: t.UnknownArray,
  summary: t.string,
  depth: t.number,
})

type SubConversationHeader = t.TypeOf<typeof SubConversationHeaderCodec>

const EntryCodec = tagged('Entry', {
  system_prompt: SystemPromptCodec,
  tool_definitions: ToolDefinitionsCodec,
  message: MessageCodec,
  tool_execution: ToolExecutionCodec,
  stop_reason: StopReasonCodec,
  sub_conversation: SubConversationHeaderCodec,
})

const VertexCodec = struct(
  'Vertex',
  { id: VertexId, parents: VertexIds, data: EntryCodec },
  { meta: t.UnknownRecord },
)

type VertexValue = t.TypeOf<typeof VertexCodec>

/** Entries whose wire form is their value, by tag: the fast path of decoding. */
const PLAIN = new Map<string, (u: JsonRecord) => boolean>([
  ['system_prompt', SystemPromptCodec.is],
  ['tool_definitions', ToolDefinitionsCodec.is],
  ['tool_execution', ToolExecutionCodec.is],
  ['stop_reason', StopReasonCodec.is],
  ['message', (u) => (u.role === 'user' || u.role === 'assistant') && isPlainContent(u.content)],
])

const isPlainVertex = (v: unknown): v is VertexValue => {
  if (!isRecord(v) || !VertexId.is(v.id) || !isIdArray(v.parents)) return false
  if (v.meta !== undefined && !isRecord(v.meta)) return false
  const d = v.data
  if (!isRecord(d) || typeof d.type !== 'string') return false
  const plain = PLAIN.get(d.type)
  return plain !== undefined && plain(d)
}

const EMPTY: Meta = Object.freeze({})

/** Whether an object has no keys; an empty meta is shared rather than kept. */
const isEmpty = (o: JsonRecord): boolean => {
  for (const _ in o) return false
  return true
}

interface Job {
  readonly nodes: readonly unknown[]
  readonly heads: readonly string[]
  readonly path: string
  readonly into: PendingSubConversation | undefined
}

const pendingSub = (h: SubConversationHeader): PendingSubConversation => ({
  type: 'sub_conversation',
  tool_name: h.tool_name,
  tool_use_id: h.tool_use_id,
  system_prompt: h.system_prompt,
  heads: [],
  summary: h.summary,
  depth: h.depth,
})

/** Checks the vertices of one DAG, queueing the DAGs of its sub-conversations. */
const readDag = (job: Job, jobs: Job[], errors: InvalidValue[]): PendingDag => {
  const g = pendingDag(
    {
      path: job.path,
      nodesKey: 'vertices',
      parentsKey: 'parents',
      headsKey: 'heads',
      headIds: job.heads,
      into: job.into,
    },
    job.nodes.length,
  )
  const nodes = job.nodes
  for (let i = 0; i < nodes.length; i++) {
    let v = nodes[i]
    if (!isPlainVertex(v)) {
      const r = VertexCodec.validate(v, [{ key: '', type: VertexCodec, actual: v }])
      if (E.isLeft(r)) {
        invalidValues(r.left, `${job.path}/vertices/${i}`, errors)
        continue
      }
      v = r.right
    }
    if (errors.length > 0) continue
    const value = v as VertexValue
    let data = value.data as Entry | SubConversationHeader
    if (data.type === 'sub_conversation') {
      const header = data as SubConversationHeader
      const into = pendingSub(header)
      jobs.push({
        nodes: header.vertices,
        heads: header.heads,
        path: `${job.path}/vertices/${i}/data`,
        into,
      })
      data = into
    }
    g.ids[i] = value.id
    g.parents[i] = value.parents
    g.data[i] = data
    g.meta[i] = value.meta === undefined || isEmpty(value.meta) ? EMPTY : value.meta
  }
  return g
}

/**
 * Decodes a conversation of the Nerve format from a parsed JSON value.
 * Vertices may come in any order; ids are kept as given, so nothing is hashed.
 * The decoded values share the input's objects and freeze them in place:
 * pass a copy if you keep changing yours.
 *
 * @category codecs
 * @example
 * import { empty, messages, user } from 'nerve-agents'
 * import { decodeConversation, encodeConversation } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const c = pipe(empty, user('hi'))
 * const r = decodeConversation(encodeConversation({ heads: [c], metadata: {} }))
 * assert.ok(E.isRight(r))
 * assert.strictEqual(r.right.heads[0]?.id, c.id)
 * assert.deepStrictEqual(messages(r.right.heads), messages(c))
 */
export const decodeConversation = (u: unknown): E.Either<DecodeError, ConversationDocument> =>
  decodeFile(
    u,
    HeaderCodec,
    (h): Job => ({ nodes: h.vertices, heads: h.heads, path: '', into: undefined }),
    readDag,
  )

/** Where a DAG's encoding goes: the file's top level, or a sub-conversation's entry. */
interface Out {
  heads: readonly string[]
  vertices: readonly NerveVertexJson[]
}

interface EncodeJob {
  readonly heads: readonly Conversation[]
  readonly out: Out
}

const encodeEntry = (e: Entry, jobs: EncodeJob[]): NerveEntryJson => {
  switch (e.type) {
    case 'message': {
      const content = encodeContent(e.content)
      return content === e.content ? (e as MessageJson) : { type: 'message', role: e.role, content }
    }
    case 'sub_conversation': {
      const sub: SubConversationJson & Out = {
        type: 'sub_conversation',
        tool_name: e.tool_name,
        tool_use_id: e.tool_use_id,
        system_prompt: e.system_prompt,
        heads: [],
        vertices: [],
        summary: e.summary,
        depth: e.depth,
      }
      jobs.push({ heads: e.heads, out: sub })
      return sub
    }
    default:
      return e
  }
}

/** Writes each job's graph (vertices in causal order, then heads), and those of the sub-conversations they meet. */
const encodeJobs = (jobs: EncodeJob[]): void => {
  for (let j = 0; j < jobs.length; j++) {
    const { heads, out } = jobs[j]!
    const vs = causalOrder(heads)
    // Sized once: pushing 10⁵ vertices would reallocate the array at every growth.
    const vertices = new Array<NerveVertexJson>(vs.length)
    for (let i = 0; i < vs.length; i++) vertices[i] = vertexJson(vs[i]!, jobs)
    out.vertices = vertices
    out.heads = heads.map((h) => h.id)
  }
}

/** A vertex on the wire; the graph of a sub-conversation is queued in `jobs`. */
const vertexJson = (v: Conversation, jobs: EncodeJob[]): NerveVertexJson => ({
  id: v.id,
  parents: parentIds(v),
  data: encodeEntry(v.data, jobs),
  meta: v.meta,
})

/**
 * Encodes one vertex as the Nerve format writes it among a file's
 * `vertices`: its id, its parents' ids, its entry (a sub-conversation with
 * its own graph nested) and its metadata. A store that keeps vertices one
 * by one writes these, and reads them back with {@link decodeConversation}.
 *
 * @category codecs
 * @example
 * import { empty, user } from 'nerve-agents'
 * import { encodeVertex } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const hi = pipe(empty, user('hi'))
 * const again = pipe(hi, user('again'))
 * assert.deepStrictEqual(encodeVertex(again), {
 *   id: again.id,
 *   parents: [hi.id],
 *   data: { type: 'message', role: 'user', content: 'again' },
 *   meta: {},
 * })
 */
export const encodeVertex = (v: Conversation): NerveVertexJson => {
  const jobs: EncodeJob[] = []
  const encoded = vertexJson(v, jobs)
  encodeJobs(jobs)
  return encoded
}

/**
 * Encodes a document in the Nerve format: `{ format, version, heads,
 * vertices, metadata }`, vertices in causal order, a sub-conversation with
 * its own nested `heads` and `vertices`. Entries are written as they are
 * (they are JSON already) and shared with the result. Vertices are known by
 * id: two vertex objects with the same id are written once.
 *
 * @category codecs
 */
export const encodeConversation = (doc: ConversationDocument): NerveJson => {
  const top: Out = { heads: [], vertices: [] }
  encodeJobs([{ heads: doc.heads, out: top }])
  return fileOf(doc, top.vertices)
}

/**
 * Encodes the part of a document that a reader holding `known` lacks: the
 * file {@link encodeConversation} writes, with every head, but whose
 * `vertices` are only those no vertex of `known` (by id) reaches — a known
 * vertex stands for itself and all its ancestors, as a file read before
 * holds them. An id the document lacks is passed over. The vertices kept
 * have parents among those left out: the part is merged into the file the
 * reader holds, not decoded alone.
 *
 * @category codecs
 * @example
 * import { empty, user } from 'nerve-agents'
 * import { encodeConversationPart } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const hi = pipe(empty, user('hi'))
 * const again = pipe(hi, user('again'))
 * const part = encodeConversationPart({ heads: [again], metadata: {} }, [hi.id])
 * assert.deepStrictEqual(part.heads, [again.id])
 * assert.deepStrictEqual(part.vertices.map((v) => v.id), [again.id])
 */
export const encodeConversationPart = (
  doc: ConversationDocument,
  known: readonly string[],
): NerveJson => {
  const all = causalOrder(doc.heads)
  const ids = new Set(known)
  const reached = new Set<string>()
  for (const v of ancestorsOfAll(
    all.filter((v) => ids.has(v.id)),
    (v) => v.id,
  ))
    reached.add(v.id)
  const jobs: EncodeJob[] = []
  const vertices: NerveVertexJson[] = []
  for (const v of all) if (!reached.has(v.id)) vertices.push(vertexJson(v, jobs))
  encodeJobs(jobs)
  return fileOf(doc, vertices)
}

/** The top level of a file, given its vertices: the fields before them, then those after. */
const fileOf = (doc: ConversationDocument, vertices: readonly NerveVertexJson[]): NerveJson => ({
  ...fileStart(doc),
  vertices,
  ...fileEnd(doc),
})

const fileStart = (doc: ConversationDocument) =>
  ({ format: NERVE_FORMAT, version: 1, heads: doc.heads.map((h) => h.id) }) as const

const fileEnd = (doc: ConversationDocument) => ({
  metadata: doc.metadata,
  ...(doc.sessionId === undefined ? {} : { session_id: doc.sessionId }),
  ...(doc.createdAt === undefined ? {} : { created_at: doc.createdAt }),
})

/**
 * Parses and decodes JSON text of the Nerve format.
 *
 * @category codecs
 * @example
 * import { empty, system, user } from 'nerve-agents'
 * import { parseConversation, stringifyConversation } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const c = pipe(empty, system('Be brief.'), user('hi'))
 * const text = stringifyConversation({ heads: [c], metadata: {} })
 * const back = parseConversation(text)
 * assert.ok(E.isRight(back) && back.right.heads[0]?.id === c.id)
 * const bad = parseConversation('{')
 * assert.ok(E.isLeft(bad) && bad.left._tag === 'InvalidJson')
 */
export const parseConversation = (text: string): E.Either<DecodeError, ConversationDocument> => {
  const json = parseJson(text)
  return E.isLeft(json) ? json : decodeConversation(json.right)
}

/**
 * Encodes a document in the Nerve format and writes it as compact JSON text:
 * the text of `JSON.stringify(encodeConversation(doc))`, written a few
 * hundred vertices at a time.
 *
 * @category codecs
 */
export const stringifyConversation = (doc: ConversationDocument): string => {
  const vs = causalOrder(doc.heads)
  const vertices = stringifyParts(vs.length, (start, end) => {
    const jobs: EncodeJob[] = []
    const part = new Array<NerveVertexJson>(end - start)
    for (let i = start; i < end; i++) part[i - start] = vertexJson(vs[i]!, jobs)
    encodeJobs(jobs)
    return part
  })
  const start = stringifyJson(fileStart(doc))
  const end = stringifyJson(fileEnd(doc))
  return `${start.slice(0, -1)},"vertices":[${vertices}],${end.slice(1)}`
}
