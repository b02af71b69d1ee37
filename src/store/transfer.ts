import { readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import {
  decodeConversation,
  decodeNano,
  formatDecodeError,
  NERVE_FORMAT,
  stringifyConversation,
  stringifyNano,
  type Conversation,
} from '../conversation/index.js'
import type { ChatState } from '../chat/index.js'
import type { Node } from '../node/index.js'
import { writeFileAtomic } from '../interpreters/index.js'
import {
  HistoryRecordCodec,
  sessionStore,
  StoreCorrupt,
  type HistoryRecord,
  type SessionStore,
} from '../session/index.js'
import { ArtifactRecordCodec, EnvelopeRecordCodec, type EnvelopeRecord } from './records.js'
import type { SqliteStore, StoredNode } from './SqliteStore.js'
import { decodeProblems } from './StoreError.js'
import { TraceJsonCodec, type TraceJson } from './traceJson.js'

/**
 * Copies every session record of one store into another (either kind, in
 * either direction), in the source's order; how many it copied. Records
 * with the same id in the target are replaced.
 *
 * @category store
 */
export const copySessions = async (from: SessionStore, to: SessionStore): Promise<number> => {
  const records = await from.load()
  for (const r of records) await to.save(r)
  return records.length
}

/**
 * Options of {@link exportStore}.
 *
 * @category store
 */
export interface ExportOptions {
  /** The format of the conversation files: Nerve's (default) or nano-agent's JSON. */
  readonly conversations?: 'nerve' | 'nano'
}

/**
 * What an export or import moved, by kind.
 *
 * @category store
 */
export interface TransferSummary {
  readonly sessions: number
  readonly nodes: number
  readonly conversations: number
  readonly histories: number
  readonly traces: number
  readonly envelopes: number
  readonly artifacts: number
  readonly chats: number
}

/** The `format` of an exported nodes file. @category store */
export const NODES_FORMAT = 'nerve/nodes'

interface NodesFile {
  readonly format: typeof NODES_FORMAT
  readonly version: 1
  readonly nodes: readonly StoredNode[]
}

interface EnvelopeLine {
  readonly session_id: string | null
  readonly envelope: EnvelopeRecord
}

const NodesFileCodec = t.type({
  format: t.literal(NODES_FORMAT),
  version: t.literal(1),
  nodes: t.readonlyArray(
    t.type({
      name: t.string,
      kind: t.string,
      state: t.keyof({
        created: null,
        starting: null,
        ready: null,
        busy: null,
        stopping: null,
        stopped: null,
      }),
      description: t.UnknownRecord,
      live: t.unknown,
      head: t.union([t.string, t.undefined]),
    }),
  ),
})
const TraceFileCodec = t.type({ session_id: t.union([t.string, t.null]), trace: TraceJsonCodec })
const EnvelopeLineCodec = t.type({
  session_id: t.union([t.string, t.null]),
  envelope: EnvelopeRecordCodec,
})

/** A chat's record, as an exported chat file carries it in its metadata (`chat`). */
const ChatRecordCodec = t.intersection([
  t.type({
    id: t.string,
    createdAt: t.string,
    heads: t.readonlyArray(t.string),
    metadata: t.UnknownRecord,
  }),
  t.partial({ current: t.string }),
])

const jsonl = (lines: readonly unknown[]): string =>
  lines.map((l) => `${JSON.stringify(l)}\n`).join('')

/** A safe file name for an id: the id itself when it is one, else its JSON-escaped form. */
const fileName = (id: string): string => encodeURIComponent(id)

/**
 * Writes everything a SQLite store holds as files in `dir`, so nothing is
 * locked in: `sessions.json` (a files store, see `sessionStore`),
 * `nodes/<session>.json` (node snapshots), `conversations/<head id>.json`
 * (each stored node's conversation, in the Nerve format or nano-agent's),
 * `history/<session>/<node>.jsonl` (history records, one per line),
 * `traces/<run id>.json`, `envelopes/<network>.jsonl`, `artifacts.json`
 * and `chats/<chat id>.json` (a chat's heads as one conversation file in
 * the Nerve format, whatever `conversations` says, its record under the
 * metadata's `chat`). Names are URI-encoded. Each file is written atomically.
 *
 * @category store
 */
export const exportStore = async (
  from: SqliteStore,
  dir: string,
  options: ExportOptions = {},
): Promise<TransferSummary> => {
  const root = resolve(dir)
  const files = sessionStore({ path: join(root, 'sessions.json') })
  const sessions = await from.load()
  const counts = { nodes: 0, conversations: 0, histories: 0, traces: 0, envelopes: 0, artifacts: 0 }
  const heads = new Set<string>()
  for (const s of sessions) {
    await files.save(s)
    const nodes = from.nodes(s.id)
    const doc: NodesFile = { format: NODES_FORMAT, version: 1, nodes }
    await writeFileAtomic(join(root, 'nodes', `${fileName(s.id)}.json`), JSON.stringify(doc))
    counts.nodes += nodes.length
    for (const n of nodes) {
      if (n.head === undefined || heads.has(n.head)) continue
      heads.add(n.head)
      const head = from.conversation(n.head)
      if (head === undefined) continue
      const conversation = { heads: [head], metadata: { session: s.id, node: n.name } }
      const text =
        options.conversations === 'nano'
          ? stringifyNano(conversation)
          : stringifyConversation(conversation)
      await writeFileAtomic(join(root, 'conversations', `${fileName(n.head)}.json`), text)
      counts.conversations++
    }
    for (const node of from.historyNodes(s.id)) {
      const path = join(root, 'history', fileName(s.id), `${fileName(node)}.jsonl`)
      await writeFileAtomic(path, jsonl(from.history(s.id, node)))
      counts.histories++
    }
    for (const trace of from.traces(s.id)) {
      const path = join(root, 'traces', `${fileName(trace.runId)}.json`)
      await writeFileAtomic(path, JSON.stringify({ session_id: s.id, trace }))
      counts.traces++
    }
  }
  const kept = new Set(sessions.flatMap((s) => from.traces(s.id).map((x) => x.runId)))
  for (const trace of from.traces()) {
    if (kept.has(trace.runId)) continue
    const path = join(root, 'traces', `${fileName(trace.runId)}.json`)
    await writeFileAtomic(path, JSON.stringify({ session_id: null, trace }))
    counts.traces++
  }
  const artifacts = from.artifacts()
  for (const network of from.networks()) {
    const lines: EnvelopeLine[] = from
      .envelopes(network)
      .map((e) => ({ session_id: e.sessionId ?? null, envelope: e.envelope }))
    await writeFileAtomic(join(root, 'envelopes', `${fileName(network)}.jsonl`), jsonl(lines))
    counts.envelopes += lines.length
  }
  await writeFileAtomic(join(root, 'artifacts.json'), JSON.stringify(artifacts))
  counts.artifacts = artifacts.length
  let chats = 0
  for (const record of from.chats()) {
    const chat = from.loadChat(record.id)
    if (chat === undefined) continue
    const heads =
      chat.current === undefined || chat.heads.includes(chat.current)
        ? chat.heads
        : [...chat.heads, chat.current]
    const text = stringifyConversation({ heads, metadata: { chat: record } })
    await writeFileAtomic(join(root, 'chats', `${fileName(record.id)}.json`), text)
    chats++
  }
  return { sessions: sessions.length, ...counts, chats }
}

/** The files of a directory, `[]` when it does not exist. */
const filesIn = async (dir: string): Promise<readonly string[]> => {
  try {
    return (await readdir(dir)).sort()
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
  }
}

/** A file's JSON; a file that is not JSON is corrupt. */
const jsonOf = async (path: string): Promise<unknown> => {
  const text = await readFile(path, 'utf8')
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new StoreCorrupt(path, [{ pointer: '', message: `not JSON: ${(e as Error).message}` }])
  }
}

const readJson = async <A>(path: string, codec: t.Decoder<unknown, A>): Promise<A> =>
  decodeWith(path, '', codec, await jsonOf(path))

const decodeWith = <A>(path: string, at: string, codec: t.Decoder<unknown, A>, u: unknown): A => {
  const r = codec.decode(u)
  if (E.isRight(r)) return r.right
  const [first, ...rest] = decodeProblems(at, r.left)
  throw new StoreCorrupt(path, [first ?? { pointer: at, message: 'unreadable' }, ...rest])
}

/** The lines of a JSONL file, decoded; a torn last line (no newline) is skipped. */
const readLines = async <A>(path: string, codec: t.Decoder<unknown, A>): Promise<A[]> => {
  const text = await readFile(path, 'utf8')
  // After the last newline: nothing, or a torn line a crash left; either way not a record.
  const complete = text.split('\n').slice(0, -1)
  return complete.map((line, i) => {
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch (e) {
      throw new StoreCorrupt(path, [
        { pointer: `/${i}`, message: `not JSON: ${(e as Error).message}` },
      ])
    }
    return decodeWith(path, `/${i}`, codec, json)
  })
}

/** Reads a conversation file of either format (told apart by its `format`), with its one head. */
const readConversation = async (path: string): Promise<Conversation> => {
  const json = await jsonOf(path)
  const doc =
    (json as { format?: unknown } | null)?.format === NERVE_FORMAT
      ? decodeConversation(json)
      : decodeNano(json)
  if (E.isLeft(doc))
    throw new StoreCorrupt(path, [{ pointer: '', message: formatDecodeError(doc.left) }])
  const [head, ...rest] = doc.right.heads
  if (head === undefined || rest.length > 0) {
    throw new StoreCorrupt(path, [
      { pointer: '/heads', message: `one head expected, found ${doc.right.heads.length}` },
    ])
  }
  return head
}

/** Reads a chat file: its heads, and its record from the metadata's `chat`, whose heads the file must hold. */
const readChat = async (path: string): Promise<ChatState> => {
  const doc = decodeConversation(await jsonOf(path))
  if (E.isLeft(doc))
    throw new StoreCorrupt(path, [{ pointer: '', message: formatDecodeError(doc.left) }])
  const record = decodeWith(path, '/metadata/chat', ChatRecordCodec, doc.right.metadata.chat)
  const byId = new Map(doc.right.heads.map((h) => [h.id, h]))
  const heads = record.heads.map((id, i) => {
    const head = byId.get(id)
    if (head === undefined) {
      throw new StoreCorrupt(path, [
        { pointer: `/metadata/chat/heads/${i}`, message: `the file has no head ${id}` },
      ])
    }
    return head
  })
  const current = record.current === undefined ? undefined : byId.get(record.current)
  return {
    id: record.id,
    createdAt: record.createdAt,
    heads,
    metadata: record.metadata,
    ...(current !== undefined && { current }),
  }
}

/**
 * Reads a directory written by {@link exportStore} (or any part of it: a
 * lone `sessions.json` of a files store imports its sessions) into a SQLite
 * store. Every file is read and decoded first; a bad one is a
 * `StoreCorrupt` naming it and the place in it, and nothing is imported.
 * Then everything is written in one transaction. Conversation files may be
 * in either format.
 *
 * @category store
 */
export const importStore = async (dir: string, to: SqliteStore): Promise<TransferSummary> => {
  const root = resolve(dir)
  const sessions = await sessionStore({ path: join(root, 'sessions.json') }).load()
  const nodes = new Map<string, NodesFile['nodes']>()
  for (const f of await filesIn(join(root, 'nodes'))) {
    const doc = await readJson(join(root, 'nodes', f), NodesFileCodec)
    nodes.set(decodeURIComponent(f.replace(/\.json$/, '')), doc.nodes)
  }
  const conversations = new Map<string, Conversation>()
  for (const f of await filesIn(join(root, 'conversations'))) {
    const head = await readConversation(join(root, 'conversations', f))
    conversations.set(head.id, head)
  }
  const histories: [string, string, HistoryRecord[]][] = []
  for (const s of await filesIn(join(root, 'history'))) {
    for (const f of await filesIn(join(root, 'history', s))) {
      const records = await readLines(join(root, 'history', s, f), HistoryRecordCodec)
      histories.push([
        decodeURIComponent(s),
        decodeURIComponent(f.replace(/\.jsonl$/, '')),
        records,
      ])
    }
  }
  const traces: { session_id: string | null; trace: TraceJson }[] = []
  for (const f of await filesIn(join(root, 'traces'))) {
    traces.push(await readJson(join(root, 'traces', f), TraceFileCodec))
  }
  const envelopes: [string, EnvelopeLine[]][] = []
  for (const f of await filesIn(join(root, 'envelopes'))) {
    const lines = await readLines(join(root, 'envelopes', f), EnvelopeLineCodec)
    envelopes.push([decodeURIComponent(f.replace(/\.jsonl$/, '')), lines])
  }
  const chats: ChatState[] = []
  for (const f of await filesIn(join(root, 'chats')))
    chats.push(await readChat(join(root, 'chats', f)))
  const artifacts = (await filesIn(root)).includes('artifacts.json')
    ? await readJson(join(root, 'artifacts.json'), t.readonlyArray(ArtifactRecordCodec))
    : []

  return to.batch((w) => {
    for (const s of sessions) w.save(s)
    for (const c of conversations.values()) w.putConversation(c)
    let nodeCount = 0
    for (const [sessionId, ns] of nodes) {
      w.saveNodes(
        sessionId,
        ns.map((n, i) => {
          const head = n.head === undefined ? undefined : conversations.get(n.head)
          if (n.head !== undefined && head === undefined) {
            throw new StoreCorrupt(join(root, 'nodes', `${fileName(sessionId)}.json`), [
              { pointer: `/nodes/${i}/head`, message: `no conversation file has head ${n.head}` },
            ])
          }
          nodeCount++
          // The description is what the store wrote; it goes back as it is.
          const node = n.description as unknown as Node
          return {
            name: n.name,
            state: n.state,
            node,
            live: head === undefined ? n.live : { head },
          }
        }),
      )
    }
    for (const [sessionId, node, records] of histories) w.appendHistory(sessionId, node, records)
    for (const { session_id, trace } of traces) w.saveTrace(trace, session_id ?? undefined)
    let envelopeCount = 0
    for (const [network, lines] of envelopes) {
      for (const l of lines) w.appendEnvelopes(network, [l.envelope], l.session_id ?? undefined)
      envelopeCount += lines.length
    }
    for (const a of artifacts) w.putArtifact(a)
    // Files come in name order; chats go in as they were made.
    const made = [...chats].sort((x, y) =>
      x.createdAt < y.createdAt ? -1 : x.createdAt > y.createdAt ? 1 : 0,
    )
    for (const c of made) to.saveChat(c)
    return {
      sessions: sessions.length,
      nodes: nodeCount,
      conversations: conversations.size,
      histories: histories.length,
      traces: traces.length,
      envelopes: envelopeCount,
      artifacts: artifacts.length,
      chats: chats.length,
    }
  })
}
