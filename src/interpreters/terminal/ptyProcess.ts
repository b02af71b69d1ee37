/**
 * The program of a PTY terminal as a process: spawning it through node-pty
 * and ending its process group. Internal: not exported from the package.
 */
import { constants } from 'node:os'
import * as nodePty from 'node-pty'
import type { PtyNode } from '../../node/PtyNode.js'
import { endProcesses, MARK_VARIABLE, processesOf } from './processTree.js'

/** How the program ended: an exit code, or (code `null`) the signal that killed it. */
export interface Exit {
  readonly exitCode: number | null
  readonly signal: string | undefined
}

const signalName = (n: number | undefined): string | undefined =>
  n === undefined || n === 0
    ? undefined
    : (Object.entries(constants.signals).find(([, v]) => v === n)?.[0] ?? `signal ${n}`)

/**
 * Whether an inherited variable tells programs they run unattended in CI
 * (`CI`, `CONTINUOUS_INTEGRATION`, `CI_*`): interactive programs such as
 * Gemini CLI then refuse the terminal they are given.
 */
const isCiMarker = (name: string): boolean =>
  name === 'CI' || name === 'CONTINUOUS_INTEGRATION' || name.startsWith('CI_')

/**
 * Spawns the node's program in a pseudo-terminal (a session and process
 * group of its own), SHLVL set so bash reads no startup file by accident,
 * its environment marked with `mark` (see processTree.ts). A terminal is
 * interactive, so CI markers are not inherited (a node's own `env` may
 * still set them). `onExit` is called once, after the last output was
 * delivered.
 */
export const spawnPty = (
  node: PtyNode,
  mark: string,
  onData: (chunk: string) => void,
  onExit: (exit: Exit) => void,
): nodePty.IPty => {
  const { command, args, cwd, env, cols, rows } = node
  const inherited = Object.entries(process.env).filter(([name]) => !isCiMarker(name))
  const fullEnv: Record<string, string | undefined> = { ...Object.fromEntries(inherited), ...env }
  fullEnv.SHLVL ??= '1'
  fullEnv[MARK_VARIABLE] = mark
  const proc = nodePty.spawn(command, [...(args ?? [])], {
    name: fullEnv.TERM ?? 'xterm-256color',
    cols: cols ?? 120,
    rows: rows ?? 40,
    cwd: cwd ?? process.cwd(),
    env: fullEnv,
  })
  const data = proc.onData(onData)
  const exit = proc.onExit(({ exitCode, signal }) => {
    data.dispose()
    exit.dispose()
    const name = signalName(signal)
    onExit({ exitCode: name === undefined ? exitCode : null, signal: name })
  })
  return proc
}

/** Sends `signal` to the program's process group (to the program alone if that fails). */
const signalGroup = (proc: nodePty.IPty, signal: NodeJS.Signals): void => {
  try {
    process.kill(-proc.pid, signal)
  } catch {
    try {
      proc.kill(signal)
    } catch {
      // already gone
    }
  }
}

const within = (ms: number, promise: Promise<unknown>): Promise<unknown> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    promise,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms)
    }),
  ]).finally(() => {
    clearTimeout(timer)
  })
}

/**
 * Ends the program and everything it started. The program's process group
 * gets `SIGHUP` and `SIGTERM` (what a closing terminal sends; an interactive
 * bash passes `SIGHUP` on to its jobs), and every other process of the
 * terminal (see processTree.ts: its session, its tree, its mark) `SIGTERM`;
 * what still runs after `killGraceMs` gets `SIGKILL`. Resolves when they are
 * all gone and `exited` resolved (or a second after the `SIGKILL`, should even
 * that bring no exit event). Without `/proc`, only the process group is
 * signalled.
 */
export const endTerminalProcesses = async (
  proc: nodePty.IPty,
  mark: string,
  exited: Promise<unknown>,
  killGraceMs: number,
): Promise<void> => {
  const scope = { session: proc.pid, root: proc.pid, mark }
  const known = processesOf(scope)
  signalGroup(proc, 'SIGHUP')
  signalGroup(proc, 'SIGTERM')
  if (known.length > 0) {
    await endProcesses(scope, { graceMs: killGraceMs, known })
    await within(1000, exited)
    return
  }
  if (
    (await within(
      killGraceMs,
      exited.then(() => 'exited'),
    )) === 'exited'
  )
    return
  signalGroup(proc, 'SIGKILL')
  await within(1000, exited)
}
