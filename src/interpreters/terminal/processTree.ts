/**
 * The processes a terminal started, found and ended as one. Internal: not
 * exported from the package.
 *
 * A terminal's program runs in a session of its own (node-pty and tmux both
 * call `setsid`), and everything it starts inherits its environment. So the
 * processes of a terminal are, on Linux (read from `/proc`):
 *
 * - the members of its session: its jobs, also those job control put in a
 *   process group of their own (`nohup … &`);
 * - the descendants (by parent pid) of the program and of those members, for
 *   a child that made a session of its own (`setsid`) while its parent lives;
 * - every process whose environment carries the terminal's mark
 *   ({@link MARK_VARIABLE}), for a daemon that left both (double fork, then
 *   `setsid`), and the descendants of those.
 *
 * What is left out: a process that cleared its environment *and* left the
 * session and the tree. Where `/proc` is missing (macOS) only the program's
 * process group is signalled.
 */
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'

/** The environment variable that marks every process a terminal started. */
export const MARK_VARIABLE = 'NERVE_TERMINAL_ID'

/** A fresh value for {@link MARK_VARIABLE}: one per terminal. */
export const newMark = (): string => randomUUID()

/** One process, as `/proc/<pid>/stat` shows it. */
export interface ProcessInfo {
  readonly pid: number
  readonly ppid: number
  readonly session: number
  /** Start time in clock ticks since boot: with the pid, it names a process even after its pid is reused. */
  readonly start: string
  /** `Z` for a zombie (dead, waiting for its parent to reap it). */
  readonly state: string
}

/** What belongs to a terminal: its session, its program's tree, its mark. */
export interface ProcessScope {
  /** The session id (the pid of the session leader). */
  readonly session?: number | undefined
  /** A process whose descendants belong too. */
  readonly root?: number | undefined
  /** The value of {@link MARK_VARIABLE} in the environment of its processes. */
  readonly mark?: string | undefined
}

/** Reads `/proc/<pid>/stat`; undefined when the process is gone (or there is no `/proc`). */
export const processInfo = (pid: number): ProcessInfo | undefined => {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
  } catch {
    return undefined
  }
  // `pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
  //  utime stime cutime cstime priority nice threads itreal starttime …`; comm may hold `)`.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  if (f.length < 20) return undefined
  return { pid, state: f[0]!, ppid: Number(f[1]), session: Number(f[3]), start: f[19]! }
}

/** Every process `/proc` lists (none where there is no `/proc`). */
export const allProcesses = (): ProcessInfo[] => {
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return []
  }
  const out: ProcessInfo[] = []
  for (const name of names) {
    const pid = Number(name)
    if (!Number.isSafeInteger(pid) || pid <= 0) continue
    const info = processInfo(pid)
    if (info !== undefined) out.push(info)
  }
  return out
}

const carriesMark = (pid: number, entry: string): boolean => {
  try {
    return `\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(entry)
  } catch {
    return false // gone, or another user's
  }
}

/**
 * The processes of `scope` among `processes`, never this process nor pid 1.
 * `marked` answers whether a process's environment holds `entry` (the
 * mark, as `\0NAME=value\0`; read from `/proc` by default).
 */
export const processesOf = (
  scope: ProcessScope,
  processes: readonly ProcessInfo[] = allProcesses(),
  marked: (pid: number, entry: string) => boolean = carriesMark,
): ProcessInfo[] => {
  const entry = scope.mark === undefined ? undefined : `\0${MARK_VARIABLE}=${scope.mark}\0`
  const members = new Map<number, ProcessInfo>()
  for (const p of processes) {
    if (p.pid <= 1 || p.pid === process.pid) continue
    if (
      p.pid === scope.root ||
      (scope.session !== undefined && p.session === scope.session) ||
      (entry !== undefined && marked(p.pid, entry))
    ) {
      members.set(p.pid, p)
    }
  }
  // The descendants of the members, however deep.
  const byParent = new Map<number, ProcessInfo[]>()
  for (const p of processes) {
    const siblings = byParent.get(p.ppid)
    if (siblings === undefined) byParent.set(p.ppid, [p])
    else siblings.push(p)
  }
  const todo = [...members.keys()]
  for (let pid = todo.pop(); pid !== undefined; pid = todo.pop()) {
    for (const child of byParent.get(pid) ?? []) {
      if (members.has(child.pid) || child.pid === process.pid) continue
      members.set(child.pid, child)
      todo.push(child.pid)
    }
  }
  return [...members.values()]
}

/** Whether the process still runs: not gone, not a zombie, not a new one with its pid. */
const running = (p: ProcessInfo): boolean => {
  const now = processInfo(p.pid)
  return now !== undefined && now.start === p.start && now.state !== 'Z'
}

const signal = (p: ProcessInfo, name: NodeJS.Signals): void => {
  if (!running(p)) return
  try {
    process.kill(p.pid, name)
  } catch {
    // gone meanwhile, or not ours to signal
  }
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms)
  })

/** Options of {@link endProcesses}. */
export interface EndOptions {
  /** Milliseconds between `SIGTERM` and `SIGKILL`. */
  readonly graceMs: number
  /** The processes found before the terminal itself was closed (they may have left the session since). */
  readonly known?: readonly ProcessInfo[]
  /** Milliseconds to wait, after `SIGKILL`, for the last ones to go. Default: 2000. */
  readonly afterKillMs?: number
}

/**
 * Ends every process of `scope` (and those `known`): `SIGTERM` to each, then,
 * for those still running after `graceMs` (looked up again, so a process
 * started meanwhile is found), `SIGKILL`. Resolves when none runs (a zombie
 * counts as ended) or `afterKillMs` after the `SIGKILL`.
 */
export const endProcesses = async (scope: ProcessScope, options: EndOptions): Promise<void> => {
  const found = new Map<number, ProcessInfo>()
  const look = (): ProcessInfo[] => {
    for (const p of processesOf(scope)) if (!found.has(p.pid)) found.set(p.pid, p)
    for (const [pid, p] of found) if (!running(p)) found.delete(pid)
    return [...found.values()]
  }
  for (const p of options.known ?? []) found.set(p.pid, p)
  for (const p of look()) signal(p, 'SIGTERM')
  const deadline = Date.now() + options.graceMs
  let wait = 5
  while ([...found.values()].some(running) && Date.now() < deadline) {
    await sleep(Math.min(wait, Math.max(1, deadline - Date.now())))
    wait = Math.min(wait * 2, 50)
  }
  const end = Date.now() + (options.afterKillMs ?? 2000)
  for (let left = look(); left.length > 0 && Date.now() < end; left = look()) {
    for (const p of left) signal(p, 'SIGKILL')
    await sleep(10)
  }
}
