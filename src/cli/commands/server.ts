/**
 * `nerve server start|stop|status`. A started daemon writes a status file
 * beside its socket (`nerve.json`: pid, addresses, start time), read by
 * `status` and removed when the daemon closes.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { createInterface } from 'node:readline'
import { dirname } from 'node:path'
import {
  socketIsLive,
  startServer,
  type BindOptions,
  type SessionRestored,
} from '../../server/index.js'
import { errorCategories, type ErrorCategory } from '../../errors.js'
import { writeFileAtomic } from '../../interpreters/index.js'
import type { SessionStore } from '../../session/index.js'
import { openStore, type StoreKind } from '../../store/index.js'
import { CliError, connect, print, urlOf, withClient, type GlobalOptions } from '../context.js'
import { alive, DAEMON_HISTORY, daemonFiles, type DaemonFiles, type DaemonStatus } from '../home.js'

export type { DaemonStatus } from '../home.js'

/** `HOST:PORT` (or `PORT`) → bind options; a bad value is a usage error naming the flag. */
export const bindOf = (flag: string, value: string | undefined): BindOptions | undefined => {
  if (value === undefined) return undefined
  const m = /^(?:(.+):)?(\d+)$/.exec(value)
  if (m === null)
    throw new CliError('BadOption', `${flag} takes HOST:PORT, got ${value}`, flag, 'invalidInput')
  return { host: m[1] ?? '127.0.0.1', port: Number(m[2]) }
}

export interface StartOptions extends GlobalOptions {
  readonly detach?: boolean
  readonly tcp?: string
  readonly http?: string
  /** Serve the dashboard: HTTP on (127.0.0.1, a free port, unless `--http`), its URL printed. */
  readonly dashboard?: boolean
  /** A path, or `false` with `--no-store`. */
  readonly store?: string | false
  readonly storeKind?: StoreKind
}

/** The store sessions are saved in: `--store`, then `NERVE_STORE`, then the home's (`nerve.db`). */
const storeOf = (
  o: StartOptions,
  files: DaemonFiles,
): { store: SessionStore; kind: StoreKind } | undefined => {
  if (o.store === false) return undefined
  const kind = o.storeKind ?? 'sqlite'
  const given = o.store ?? (process.env.NERVE_STORE === '' ? undefined : process.env.NERVE_STORE)
  const path =
    given ?? (kind === 'sqlite' ? files.store : files.store.replace(/\.db$/, '.sessions.json'))
  return { store: openStore({ kind, path }), kind }
}

/** A daemon already listening on the socket is a one-line refusal, before anything is opened. */
const refuseTaken = async (socket: string): Promise<void> => {
  if (await socketIsLive(socket)) {
    throw new CliError(
      'SocketInUse',
      `a daemon is already listening on ${socket}: stop it with \`nerve server stop\`, or give another --socket`,
      socket,
      'conflict',
    )
  }
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
  const files = daemonFiles(o)
  const socket = files.socket
  const tcp = bindOf('--tcp', o.tcp)
  const http = bindOf('--http', o.http) ?? (o.dashboard === true ? { port: 0 } : undefined)
  const token = o.token ?? process.env.NERVE_TOKEN
  await refuseTaken(socket)
  if (o.detach === true) return detach(files, o)
  const kept = storeOf(o, files)
  const store = kept?.store
  let handle: Awaited<ReturnType<typeof startServer>>
  try {
    handle = await startServer({
      socket,
      engineOptions: {
        // One name across restarts: a restored node goes on with its history file.
        history: { dir: files.history, server: DAEMON_HISTORY },
        ...(store !== undefined && { store, onRestored: tellRestored }),
      },
      ...(tcp !== undefined && { tcp }),
      ...(http !== undefined && { http }),
      ...(token !== undefined && { token }),
      tokenFile: files.token,
      pidFile: files.pid,
      signals: true,
    })
  } catch (e) {
    await store?.close()
    throw e
  }
  const status: DaemonStatus = {
    pid: process.pid,
    socket,
    ...(kept !== undefined && { store: { kind: kept.kind, path: kept.store.path } }),
    history: files.history,
    ...(handle.tcp !== undefined && { tcp: handle.tcp }),
    ...(handle.http !== undefined && { http: handle.http }),
    ...(handle.tokenFile !== undefined && { tokenFile: handle.tokenFile }),
    startedAt: new Date().toISOString(),
  }
  await writeFileAtomic(files.status, JSON.stringify(status), { mode: 0o600 })
  // The one-time URL is the owner's to see, never written to the status file.
  const dashboardUrl = o.dashboard === true ? handle.dashboardUrl() : undefined
  print(o, { ...status, ...(dashboardUrl !== undefined && { dashboard: dashboardUrl }) }, (s) =>
    [
      `Nerve daemon ${s.pid} listening on ${s.socket}`,
      ...(s.tcp !== undefined ? [`  tcp  ${s.tcp.host}:${s.tcp.port}`] : []),
      ...(s.http !== undefined ? [`  http ${s.http.url}`] : []),
      ...(s.dashboard !== undefined ? [`  dashboard ${s.dashboard}`] : []),
      ...(s.tokenFile !== undefined ? [`  token in ${s.tokenFile}`] : []),
      ...(s.store !== undefined ? [`  sessions saved in ${s.store.path} (${s.store.kind})`] : []),
      `  node histories in ${files.history}`,
    ].join('\n'),
  )
  await handle.closed
  await store?.close()
  await rm(files.status, { force: true })
}

/**
 * `nerve dashboard`: asks the daemon's HTTP listener for a one-time
 * handover (with the daemon's token) and prints the URL that spends it;
 * `--open` also hands it to the system's opener.
 */
export const dashboard = async (o: GlobalOptions & { readonly open?: boolean }): Promise<void> => {
  const files = daemonFiles(o)
  const recorded = await readFile(files.status, 'utf8').then(
    (t) => JSON.parse(t) as DaemonStatus,
    () => undefined,
  )
  const base = urlOf(o) ?? recorded?.http?.url
  if (base === undefined || !/^http:/.test(base)) {
    throw new CliError(
      'NoDashboard',
      recorded === undefined
        ? `no daemon is running for ${files.socket}: start one with \`nerve server start --dashboard\``
        : `the daemon ${recorded.pid} serves no HTTP: restart it with \`nerve server start --dashboard\``,
      files.socket,
      recorded === undefined ? 'unavailable' : 'invalidState',
    )
  }
  const token =
    o.token ??
    process.env.NERVE_TOKEN ??
    (await readFile(recorded?.tokenFile ?? files.token, 'utf8').then((t) => t.trim()))
  const res = await fetch(`${base.replace(/\/+$/, '')}/dashboard/handover`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  }).catch(() => {
    throw new CliError('DaemonNotRunning', `no daemon answers at ${base}`, base, 'unavailable')
  })
  if (!res.ok) {
    throw new CliError(
      'Refused',
      `the daemon at ${base} refused a handover (${res.status})`,
      base,
      'unavailable',
    )
  }
  const { url } = (await res.json()) as { url: string }
  if (o.open === true) {
    const opener = process.platform === 'darwin' ? 'open' : 'xdg-open'
    spawn(opener, [url], { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref()
  }
  print(
    o,
    { url },
    (v) => `Open ${v.url}\n  (the link works once; run \`nerve dashboard\` for another)`,
  )
}

/** The one JSON error value a `--json` command prints, if `line` is one. */
const errorValue = (
  line: string,
):
  | {
      readonly tag: string
      readonly message: string
      readonly path?: string
      readonly category: ErrorCategory
    }
  | undefined => {
  try {
    const v = JSON.parse(line) as {
      error?: { tag?: unknown; message?: unknown; path?: unknown; category?: unknown }
    }
    const e = v.error
    return e !== undefined && typeof e.tag === 'string' && typeof e.message === 'string'
      ? {
          tag: e.tag,
          message: e.message,
          ...(typeof e.path === 'string' && { path: e.path }),
          category: (errorCategories as readonly unknown[]).includes(e.category)
            ? (e.category as ErrorCategory)
            : 'failed',
        }
      : undefined
  } catch {
    return undefined
  }
}

/** `args` without `--token <t>` and `--token=<t>`: the arguments of a process are readable by every local user. */
const withoutToken = (args: readonly string[]): string[] =>
  args.filter((a, i) => a !== '--token' && args[i - 1] !== '--token' && !a.startsWith('--token='))

/**
 * Starts the daemon as a detached child (its stderr to the log beside the
 * socket) and waits until it serves; a child that cannot start says why in
 * its one JSON line, which becomes this command's error.
 */
const detach = async (files: DaemonFiles, o: StartOptions): Promise<void> => {
  const args = withoutToken(process.argv.slice(1)).filter((a) => a !== '--detach' && a !== '-d')
  // The token goes by the environment, which only the owner can read (`/proc/<pid>/environ`), not by argv.
  const token = o.token ?? process.env.NERVE_TOKEN
  // The first start on a machine: the socket's directory (owner-only, as the server makes it) is not there yet.
  mkdirSync(dirname(files.socket), { recursive: true, mode: 0o700 })
  const log = openSync(files.log, 'a', 0o600)
  const child = spawn(process.execPath, [...args, '--json', '--socket', files.socket], {
    detached: true,
    env: token === undefined ? process.env : { ...process.env, NERVE_TOKEN: token },
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
  const failed = first === undefined ? undefined : errorValue(first)
  if (failed !== undefined) {
    throw new CliError(failed.tag, failed.message, failed.path, failed.category)
  }
  if (first === undefined) {
    throw new CliError('DaemonFailed', `the daemon exited at start; see ${files.log}`, files.log)
  }
  const status = JSON.parse(first) as DaemonStatus & { readonly dashboard?: string }
  print(o, status, (s) =>
    [
      `Nerve daemon ${s.pid} started on ${s.socket}`,
      ...(s.dashboard !== undefined ? [`  dashboard ${s.dashboard}`] : []),
    ].join('\n'),
  )
}

/** `server stop`: SHUTDOWN, then waits until the socket is gone and the daemon's process has exited. */
export const stop = async (o: GlobalOptions): Promise<void> => {
  const files = daemonFiles(o)
  const client = await connect(o)
  const pid =
    urlOf(o) === undefined
      ? await readFile(files.status, 'utf8').then(
          (t) => (JSON.parse(t) as DaemonStatus).pid,
          () => undefined,
        )
      : undefined
  try {
    await client.shutdown()
    await client.closed
  } finally {
    await client.close()
  }
  const until = Date.now() + 15_000
  while (pid !== undefined && alive(pid)) {
    if (Date.now() > until) {
      throw new CliError(
        'StopTimeout',
        `daemon ${pid} still runs 15 s after SHUTDOWN`,
        files.socket,
        'timeout',
      )
    }
    await sleep(25)
  }
  print(o, { stopped: true, ...(pid !== undefined && { pid }) }, () =>
    pid === undefined ? 'Nerve daemon stopped' : `Nerve daemon ${pid} stopped`,
  )
}

/** `server status`: pid, addresses, uptime, sessions and their nodes. */
export const status = async (o: GlobalOptions): Promise<void> => {
  const files = daemonFiles(o)
  const socket = files.socket
  if (!(await socketIsLive(socket))) {
    throw new CliError(
      'DaemonNotRunning',
      `no daemon is listening on ${socket}: start one with \`nerve server start\``,
      socket,
      'unavailable',
    )
  }
  const recorded = await readFile(files.status, 'utf8').then(
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
