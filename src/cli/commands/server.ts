/**
 * `nerve server start|stop|status`. A started daemon writes a status file
 * beside its socket (`nerve.json`: pid, addresses, start time), read by
 * `status` and removed when the daemon closes.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { dirname } from 'node:path'
import {
  isLoopback,
  socketIsLive,
  startServer,
  type BindOptions,
  type SessionRestored,
} from '../../server/index.js'
import { writeFileAtomic } from '../../interpreters/index.js'
import type { SessionStore } from '../../session/index.js'
import { openStore, type StoreKind } from '../../store/index.js'
import { CliError, print, socketOf, withClient, type GlobalOptions } from '../context.js'

/** What a running daemon records about itself beside its socket. */
export interface DaemonStatus {
  readonly pid: number
  readonly socket: string
  readonly tcp?: { readonly host: string; readonly port: number }
  readonly http?: { readonly host: string; readonly port: number; readonly url: string }
  readonly tokenFile?: string
  /** Where `SAVE_SESSION` and shutdown save sessions. */
  readonly store?: { readonly kind: StoreKind; readonly path: string }
  readonly startedAt: string
}

const statusFile = (socket: string): string => `${socket.replace(/\.sock$/, '')}.json`

/** `HOST:PORT` (or `PORT`) → bind options; a bad value is a usage error naming the flag. */
export const bindOf = (flag: string, value: string | undefined): BindOptions | undefined => {
  if (value === undefined) return undefined
  const m = /^(?:(.+):)?(\d+)$/.exec(value)
  if (m === null) throw new CliError('BadOption', `${flag} takes HOST:PORT, got ${value}`, flag, 2)
  return { host: m[1] ?? '127.0.0.1', port: Number(m[2]) }
}

export interface StartOptions extends GlobalOptions {
  readonly detach?: boolean
  readonly tcp?: string
  readonly http?: string
  /** A path, or `false` with `--no-store`. */
  readonly store?: string | false
  readonly storeKind?: StoreKind
}

/** The store sessions are saved in: `--store`, then `NERVE_STORE`, then `~/.nerve/nerve.db` (SQLite). */
const storeOf = (o: StartOptions): { store: SessionStore; kind: StoreKind } | undefined => {
  if (o.store === false) return undefined
  const path = o.store ?? (process.env.NERVE_STORE === '' ? undefined : process.env.NERVE_STORE)
  const kind = o.storeKind ?? 'sqlite'
  return { store: openStore({ kind, ...(path !== undefined && { path }) }), kind }
}

/** Says on stderr (stdout carries the status) which saved nodes came back, and which did not. */
const tellRestored = (sessions: readonly SessionRestored[]): void => {
  for (const s of sessions) {
    if (s.restored.length > 0) {
      process.stderr.write(`restored session ${s.sessionId}: ${s.restored.join(', ')}\n`)
    }
    for (const k of s.skipped) {
      process.stderr.write(`not restored: ${s.sessionId}/${k.name}: ${k.reason}\n`)
    }
  }
}

/** `server start`: serves in the foreground until SHUTDOWN or a signal; `--detach` leaves it running. */
export const start = async (o: StartOptions): Promise<void> => {
  const socket = socketOf(o)
  const tcp = bindOf('--tcp', o.tcp)
  const http = bindOf('--http', o.http)
  const token = o.token ?? process.env.NERVE_TOKEN
  if (o.detach === true) return detach(socket, o)
  const kept = storeOf(o)
  const store = kept?.store
  const handle = await startServer({
    socket,
    ...(store !== undefined && { engineOptions: { store, onRestored: tellRestored } }),
    ...(tcp !== undefined && { tcp }),
    ...(http !== undefined && { http }),
    ...(token !== undefined && { token }),
    ...([tcp, http].some((b) => b !== undefined && !isLoopback(b.host!)) &&
      token === undefined && {
        tokenFile: `${socket.replace(/\.sock$/, '')}.token`,
      }),
    signals: true,
  })
  const status: DaemonStatus = {
    pid: process.pid,
    socket,
    ...(kept !== undefined && { store: { kind: kept.kind, path: kept.store.path } }),
    ...(handle.tcp !== undefined && { tcp: handle.tcp }),
    ...(handle.http !== undefined && { http: handle.http }),
    ...(handle.tokenFile !== undefined && { tokenFile: handle.tokenFile }),
    startedAt: new Date().toISOString(),
  }
  await writeFileAtomic(statusFile(socket), JSON.stringify(status), { mode: 0o600 })
  print(o, status, (s) =>
    [
      `Nerve daemon ${s.pid} listening on ${s.socket}`,
      ...(s.tcp !== undefined ? [`  tcp  ${s.tcp.host}:${s.tcp.port}`] : []),
      ...(s.http !== undefined ? [`  http ${s.http.url}`] : []),
      ...(s.tokenFile !== undefined ? [`  token in ${s.tokenFile}`] : []),
      ...(s.store !== undefined ? [`  sessions saved in ${s.store.path} (${s.store.kind})`] : []),
    ].join('\n'),
  )
  await handle.closed
  await store?.close()
  await rm(statusFile(socket), { force: true })
}

/** Starts the daemon as a detached child (output to `nerve.log` beside the socket) and waits until it serves. */
const detach = async (socket: string, o: StartOptions): Promise<void> => {
  const args = process.argv.slice(1).filter((a) => a !== '--detach' && a !== '-d')
  // The first start on a machine: the socket's directory (owner-only, as the server makes it) is not there yet.
  mkdirSync(dirname(socket), { recursive: true, mode: 0o700 })
  const log = openSync(`${socket.replace(/\.sock$/, '')}.log`, 'a', 0o600)
  const child = spawn(process.execPath, [...args, '--json', '--socket', socket], {
    detached: true,
    stdio: ['ignore', 'pipe', log],
  })
  closeSync(log)
  const lines = createInterface({ input: child.stdout! })
  const first = await Promise.race([
    once(lines, 'line').then(([l]) => l as string),
    once(child, 'exit').then(() => undefined),
  ])
  lines.close()
  child.stdout!.destroy()
  child.unref()
  if (first === undefined) {
    throw new CliError(
      'DaemonFailed',
      `the daemon exited at start; see ${socket.replace(/\.sock$/, '')}.log`,
    )
  }
  const status = JSON.parse(first) as DaemonStatus
  print(o, status, (s) => `Nerve daemon ${s.pid} started on ${s.socket}`)
}

/** `server stop`: SHUTDOWN, then waits until the socket is gone. */
export const stop = async (o: GlobalOptions): Promise<void> => {
  await withClient(o, async (c) => {
    await c.shutdown()
    await c.closed
  })
  print(o, { stopped: true }, () => 'Nerve daemon stopped')
}

/** `server status`: pid, addresses, uptime, sessions and their nodes. */
export const status = async (o: GlobalOptions): Promise<void> => {
  const socket = socketOf(o)
  if (!(await socketIsLive(socket))) {
    throw new CliError(
      'DaemonNotRunning',
      `no daemon is listening on ${socket}: start one with \`nerve server start\``,
    )
  }
  const recorded = await readFile(statusFile(socket), 'utf8').then(
    (t) => JSON.parse(t) as DaemonStatus,
    () => undefined,
  )
  const value = await withClient(o, async (c) => {
    const { sessions } = await c.call('LIST_SESSIONS', {})
    const uptimeMs =
      recorded === undefined ? undefined : Date.now() - Date.parse(recorded.startedAt)
    return { socket, ...recorded, ...(uptimeMs !== undefined && { uptimeMs }), sessions }
  })
  print(o, value, (v) =>
    [
      `daemon   ${v.pid ?? '?'} on ${v.socket}`,
      ...(v.tcp !== undefined ? [`tcp      ${v.tcp.host}:${v.tcp.port}`] : []),
      ...(v.http !== undefined ? [`http     ${v.http.url}`] : []),
      ...(v.uptimeMs !== undefined ? [`uptime   ${Math.round(v.uptimeMs / 1000)} s`] : []),
      `sessions ${v.sessions.map((s) => `${s.sessionId} (${s.nodes} nodes)`).join(', ')}`,
    ].join('\n'),
  )
}
