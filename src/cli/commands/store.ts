/**
 * `nerve store ls|show|export|import|gc`: the SQLite store a daemon and
 * `graph run --record` keep things in — sessions, their nodes, run traces,
 * recordings, network envelopes — read and moved without a daemon. The
 * store is `--store`, then `NERVE_STORE`, then the home's `nerve.db`.
 */
import { existsSync, statSync } from 'node:fs'
import { socketIsLive } from '../../client/index.js'
import { messageCount } from '../../conversation/index.js'
import { exportStore, importStore, sqliteStore, type SqliteStore } from '../../store/index.js'
import { CliError, print, type GlobalOptions } from '../context.js'
import { daemonFiles, pruneHistories } from '../home.js'

export interface StoreOptions extends GlobalOptions {
  readonly store?: string
}

/** The store the options name; one that is not there is a `NoStore` (nothing is created by reading). */
const storePath = (o: StoreOptions): string =>
  o.store ?? (process.env.NERVE_STORE || daemonFiles(o).store)

const opened = async <A>(
  o: StoreOptions,
  f: (store: SqliteStore, path: string) => Promise<A> | A,
  create = false,
): Promise<A> => {
  const path = storePath(o)
  if (!create && !existsSync(path)) {
    throw new CliError('NoStore', `there is no store at ${path} yet`, path, 'notFound')
  }
  const store = sqliteStore(path)
  try {
    return await f(store, path)
  } finally {
    await store.close()
  }
}

const bytes = (n: number): string =>
  n < 1024
    ? `${n} B`
    : n < 1024 * 1024
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${(n / 1024 / 1024).toFixed(1)} MiB`

const fileSize = (path: string): number => {
  let total = 0
  for (const f of [path, `${path}-wal`]) if (existsSync(f)) total += statSync(f).size
  return total
}

/**
 * The chats a store keeps, oldest first: id, when created, the messages on
 * the current branch (the first head when none is current), and the heads.
 */
export const chatList = (store: SqliteStore) =>
  store.chats().map((c) => {
    const chat = store.loadChat(c.id)
    const head = chat?.current ?? chat?.heads[0]
    return {
      id: c.id,
      createdAt: c.createdAt,
      messages: head === undefined ? 0 : messageCount(head),
      heads: c.heads,
    }
  })

/** What {@link chatList} answers, one line a chat. */
export const chatLines = (chats: ReturnType<typeof chatList>): string[] =>
  chats.map(
    (c) =>
      `  ${c.id.padEnd(24)} ${String(c.messages).padStart(4)} messages  ${c.heads.length} ${c.heads.length === 1 ? 'branch' : 'branches'}  ${c.createdAt}`,
  )

/** `nerve store ls`: sessions (with their nodes), runs, recordings, networks, chats, and the file's size. */
export const ls = (o: StoreOptions): Promise<void> =>
  opened(o, async (store, path) => {
    const sessions = (await store.load()).map((s) => ({
      id: s.id,
      name: s.name,
      nodes: store.nodes(s.id).map((n) => n.name),
      updatedAt: s.updated_at,
    }))
    const runs = store.traces().map((t) => ({
      runId: t.runId,
      graphId: t.graphId,
      status: t.status,
      durationMs: Math.round(t.durationMs),
    }))
    const recordings = store.recordings().map((r) => ({
      id: r.id,
      runId: r.runId,
      graphId: r.graphId,
      savedAt: new Date(r.savedAt).toISOString(),
      bytes: JSON.stringify(r.recording).length,
    }))
    const networks = store
      .networks()
      .map((n) => ({ network: n, envelopes: store.envelopes(n).length }))
    const value = {
      path,
      bytes: fileSize(path),
      vertices: store.vertexCount(),
      sessions,
      runs,
      recordings,
      networks,
      chats: chatList(store),
    }
    print(o, value, (v) =>
      [
        `${v.path}  ${bytes(v.bytes)}, ${v.vertices} conversation vertices`,
        `sessions (${v.sessions.length})`,
        ...v.sessions.map(
          (s) => `  ${s.id.padEnd(20)} ${s.nodes.length} nodes  ${s.nodes.join(', ')}`,
        ),
        `runs (${v.runs.length})`,
        ...v.runs.map(
          (r) => `  ${r.runId}  ${r.graphId.padEnd(16)} ${r.status.padEnd(9)} ${r.durationMs} ms`,
        ),
        `recordings (${v.recordings.length})`,
        ...v.recordings.map(
          (r) => `  ${r.id}  ${r.graphId.padEnd(16)} ${r.savedAt}  ${bytes(r.bytes)}`,
        ),
        `networks (${v.networks.length})`,
        ...v.networks.map((n) => `  ${n.network.padEnd(20)} ${n.envelopes} envelopes`),
        `chats (${v.chats.length})`,
        ...chatLines(v.chats),
      ].join('\n'),
    )
  })

/** `nerve store show ID`: a session (its record and nodes), a run's trace, or a recording, by id. */
export const show = (id: string, o: StoreOptions): Promise<void> =>
  opened(o, async (store) => {
    const session = (await store.load()).find((s) => s.id === id || s.name === id)
    if (session !== undefined) {
      const nodes = store
        .nodes(session.id)
        .map((n) => ({ name: n.name, kind: n.kind, state: n.state }))
      print(o, { session, nodes }, (v) =>
        [
          `session ${v.session.id} (${v.session.name}), updated ${v.session.updated_at}`,
          ...v.nodes.map((n) => `  ${n.name.padEnd(20)} ${n.kind.padEnd(15)} ${n.state}`),
        ].join('\n'),
      )
      return
    }
    const trace = store.trace(id)
    if (trace !== undefined) {
      print(o, { trace }, (v) =>
        [
          `run ${v.trace.runId} of ${v.trace.graphId}: ${v.trace.status} in ${Math.round(v.trace.durationMs)} ms`,
          ...v.trace.records.map(({ data: s }) => {
            const error = (s.error as { message?: unknown } | null)?.message
            return `  ${s.status.padEnd(9)} ${s.path.join('/')}${typeof error === 'string' ? `: ${error.split('\n')[0]}` : ''}`
          }),
        ].join('\n'),
      )
      return
    }
    const recording = store.recording(id)
    if (recording !== undefined) {
      print(o, recording, (r) =>
        [
          `recording ${r.id} of run ${r.runId} (${r.graphId}), saved ${new Date(r.savedAt).toISOString()}`,
          `  ${r.recording.calls.length} recorded calls${r.graph !== undefined ? ', with its graph file' : ''}`,
          `  replay it: nerve replay ${r.id}`,
        ].join('\n'),
      )
      return
    }
    throw new CliError(
      'NotInStore',
      `no session, run or recording ${id} in the store`,
      id,
      'notFound',
    )
  })

/** `nerve store export DIR`: every session, node, conversation, history, trace, envelope, artifact and chat as files. */
export const exportTo = (
  dir: string,
  o: StoreOptions & { readonly nano?: boolean },
): Promise<void> =>
  opened(o, async (store, path) => {
    const summary = await exportStore(store, dir, o.nano === true ? { conversations: 'nano' } : {})
    print(
      o,
      { from: path, to: dir, ...summary },
      (s) => `Exported ${counts(s)} from ${s.from} to ${s.to}`,
    )
  })

/** `nerve store import DIR`: what `store export` wrote, into the store (created when missing). */
export const importFrom = (dir: string, o: StoreOptions): Promise<void> =>
  opened(
    o,
    async (store, path) => {
      if (!existsSync(dir))
        throw new CliError('FileUnreadable', `there is no directory ${dir}`, dir, 'notFound')
      const summary = await importStore(dir, store)
      print(
        o,
        { from: dir, to: path, ...summary },
        (s) => `Imported ${counts(s)} from ${s.from} into ${s.to}`,
      )
    },
    true,
  )

const counts = (s: {
  readonly sessions: number
  readonly nodes: number
  readonly conversations: number
  readonly traces: number
  readonly chats: number
}): string =>
  `${s.sessions} sessions, ${s.nodes} nodes, ${s.conversations} conversations, ${s.traces} traces, ${s.chats} chats`

/**
 * `nerve store gc [--keep-recordings N]`: drops conversation vertices no
 * stored node reaches (and old recordings when asked), then compacts the
 * file; and removes the history directories of engines no longer running
 * (`history/engine-*`, see {@link pruneHistories}). Refused while a daemon
 * of this home runs.
 */
export const gc = async (o: StoreOptions & { readonly keepRecordings?: string }): Promise<void> => {
  const keep = o.keepRecordings === undefined ? undefined : Number(o.keepRecordings)
  if (keep !== undefined && (!Number.isSafeInteger(keep) || keep < 0)) {
    throw new CliError(
      'BadOption',
      `--keep-recordings takes a whole number, got ${o.keepRecordings}`,
      '--keep-recordings',
      'invalidInput',
    )
  }
  const socket = daemonFiles(o).socket
  if (o.store === undefined && (await socketIsLive(socket))) {
    throw new CliError(
      'DaemonRunning',
      `a daemon on ${socket} uses this store: stop it first (nerve server stop)`,
      socket,
      'conflict',
    )
  }
  await opened(o, async (store, path) => {
    const r = store.gc(keep === undefined ? {} : { keepRecordings: keep })
    const histories = o.store === undefined ? await pruneHistories(daemonFiles(o).history) : []
    print(
      o,
      { path, ...r, histories },
      (v) =>
        `Removed ${v.vertices} unreachable vertices and ${v.recordings} recordings from ${v.path}: ${bytes(v.bytesBefore)} → ${bytes(v.bytesAfter)}` +
        (v.histories.length === 0
          ? ''
          : `\nRemoved ${v.histories.length} history directories of engines no longer running`),
    )
  })
}
