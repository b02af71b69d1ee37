/**
 * The program of a PTY terminal as a process: spawning it through node-pty
 * and ending its process group. Internal: not exported from the package.
 */
import { constants } from 'node:os'
import * as nodePty from 'node-pty'
import type { PtyNode } from '../../node/PtyNode.js'

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
 * Spawns the node's program in a pseudo-terminal (a session and process
 * group of its own), SHLVL set so bash reads no startup file by accident.
 * `onExit` is called once, after the last output was delivered.
 */
export const spawnPty = (
  node: PtyNode,
  onData: (chunk: string) => void,
  onExit: (exit: Exit) => void,
): nodePty.IPty => {
  const { command, args, cwd, env, cols, rows } = node
  const fullEnv: Record<string, string | undefined> = { ...process.env, ...env }
  fullEnv.SHLVL ??= '1'
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

/**
 * Sends the program's process group `SIGHUP` and `SIGTERM` (what a closing
 * terminal sends; an interactive bash passes `SIGHUP` on to its jobs), then
 * `SIGKILL` after `killGraceMs`, and resolves when `exited` does (or a second
 * after the `SIGKILL`, should even that bring no exit event).
 */
export const endProcessGroup = async (
  proc: nodePty.IPty,
  exited: Promise<unknown>,
  killGraceMs: number,
): Promise<void> => {
  const send = (signal: NodeJS.Signals): void => {
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
  send('SIGHUP')
  send('SIGTERM')
  let timer: ReturnType<typeof setTimeout> | undefined
  const kill = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      send('SIGKILL')
      timer = setTimeout(resolve, 1000)
    }, killGraceMs)
  })
  await Promise.race([exited, kill])
  clearTimeout(timer)
}
