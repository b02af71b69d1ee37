/**
 * Where the command line keeps its files: one home for everything. The
 * home is `NERVE_HOME`, else `~/.nerve`; it holds the daemon's socket,
 * status, token, pid and log files, the store and the node histories.
 *
 * A daemon named only by its socket (`--socket` or `NERVE_SOCKET`, with no
 * `NERVE_HOME`) keeps all of its files beside that socket under the
 * socket's name (`/tmp/a.sock` → `/tmp/a.db`, `/tmp/a.history/`, …), so two
 * such daemons never share a store or a history.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { defaultSocketPath } from '../client/index.js'

/**
 * The files of one daemon (and of the commands that run beside it).
 *
 * @category cli
 */
export interface DaemonFiles {
  /** Nerve's home. */
  readonly home: string
  readonly socket: string
  /** What a running daemon says about itself (pid, addresses, store, start time). */
  readonly status: string
  readonly token: string
  readonly pid: string
  readonly log: string
  /** The SQLite store (`--store` and `NERVE_STORE` override it). */
  readonly store: string
  /** The directory node histories go in. */
  readonly history: string
}

const set = (v: string | undefined): string | undefined => (v === '' ? undefined : v)

/**
 * Nerve's home by the session layer's rule (`nerveHome`: `NERVE_HOME`, else
 * `~/.nerve`), said here so that a command that only talks to the daemon
 * does not load the session layer (and with it the interpreters and the
 * node-pty addon) to find a socket. test/cli/home.test.ts holds the two equal.
 */
const nerveHome = (env: Readonly<Record<string, string | undefined>>): string => {
  const home = set(env.NERVE_HOME)
  return home !== undefined ? resolve(home) : join(homedir(), '.nerve')
}

/**
 * The files of the daemon the options name: `--socket`, then `NERVE_SOCKET`,
 * then `nerve.sock` in `NERVE_HOME` (else the default socket).
 *
 * @category cli
 */
export const daemonFiles = (
  o: { readonly socket?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): DaemonFiles => {
  const home = nerveHome(env)
  const givenHome = set(env.NERVE_HOME) !== undefined
  const given = o.socket ?? set(env.NERVE_SOCKET)
  const socket = resolve(given ?? (givenHome ? join(home, 'nerve.sock') : defaultSocketPath(env)))
  const prefix = socket.replace(/\.sock$/, '')
  const own = given !== undefined && !givenHome
  return {
    home,
    socket,
    status: `${prefix}.json`,
    token: `${prefix}.token`,
    pid: `${prefix}.pid`,
    log: `${prefix}.log`,
    store: own ? `${prefix}.db` : join(home, 'nerve.db'),
    history: own ? `${prefix}.history` : join(home, 'history'),
  }
}

/**
 * What a running daemon records about itself beside its socket.
 *
 * @category cli
 */
export interface DaemonStatus {
  readonly pid: number
  readonly socket: string
  readonly tcp?: { readonly host: string; readonly port: number }
  readonly http?: { readonly host: string; readonly port: number; readonly url: string }
  readonly tokenFile?: string
  /** Where `SAVE_SESSION` and shutdown save sessions. */
  readonly store?: { readonly kind: 'sqlite' | 'files'; readonly path: string }
  /** Where node histories go. */
  readonly history?: string
  readonly startedAt: string
}

const readStatus = (file: string): DaemonStatus | undefined => {
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as Partial<DaemonStatus>
    return typeof s.pid === 'number' && typeof s.socket === 'string'
      ? (s as DaemonStatus)
      : undefined
  } catch {
    return undefined
  }
}

/**
 * The status files of the daemons started from this home: the one beside
 * the named socket first, then every other `*.json` status in the
 * directories daemons put them in.
 *
 * @category cli
 */
export const knownDaemons = (files: DaemonFiles): DaemonStatus[] => {
  const dirs = [...new Set([dirname(files.status), files.home, dirname(defaultSocketPath())])]
  const candidates = [
    files.status,
    ...dirs.flatMap((d) =>
      existsSync(d)
        ? readdirSync(d)
            .filter((f) => f.endsWith('.json'))
            .map((f) => join(d, f))
        : [],
    ),
  ]
  const seen = new Set<string>()
  const out: DaemonStatus[] = []
  for (const c of candidates) {
    if (seen.has(c)) continue
    seen.add(c)
    const s = readStatus(c)
    if (s !== undefined) out.push(s)
  }
  return out
}

/**
 * The token file of the daemon serving `host:port`, from the status files of
 * {@link knownDaemons}; else the token file beside the named socket.
 *
 * @category cli
 */
export const tokenFileFor = (files: DaemonFiles, host: string, port: number): string => {
  const same = (h: string): boolean =>
    h === host || (isLocal(h) && isLocal(host)) || h === '0.0.0.0' || h === '::'
  const match = knownDaemons(files).find(
    (s) =>
      (s.http !== undefined && s.http.port === port && same(s.http.host)) ||
      (s.tcp !== undefined && s.tcp.port === port && same(s.tcp.host)),
  )
  return match?.tokenFile ?? files.token
}

const isLocal = (h: string): boolean =>
  h === 'localhost' || h === '::1' || h === '[::1]' || /^127\./.test(h)

/**
 * The name a daemon's node histories go under in its history directory
 * (`history/daemon/<session>/<node>.jsonl`): the same at every start, so a
 * node the daemon brings back from its store goes on with its history.
 * Other engines (`nerve repl`, `graph run`, `chat`) write under a name of
 * their own, `engine-<start time>-<pid>-<random>`.
 *
 * @category cli
 */
export const DAEMON_HISTORY = 'daemon'

/** Whether process `pid` is still there. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const ENGINE_DIR = /^engine-\d{8}T\d{6}Z-(\d+)-[0-9a-f]+$/

/**
 * Removes the `engine-*` directories of a history directory whose engine's
 * process (the pid in the name) has ended; answers their names. Other
 * directories (the daemon's, names given by a program) are left alone.
 *
 * @category cli
 */
export const pruneHistories = async (dir: string): Promise<readonly string[]> => {
  if (!existsSync(dir)) return []
  const stale = readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const pid = e.isDirectory() ? ENGINE_DIR.exec(e.name)?.[1] : undefined
    return pid !== undefined && !alive(Number(pid)) ? [e.name] : []
  })
  for (const name of stale) await rm(join(dir, name), { recursive: true, force: true })
  return stale
}
