/**
 * The tests that drive real tmux panes (the tmux node, and the WezTerm and
 * Claude nodes over the fake `wezterm`, which runs on tmux) need tmux
 * installed. Without it they fail, each with one line that says so, rather
 * than with a stack of spawn errors or a silent skip.
 */
import { execFileSync } from 'node:child_process'
import { beforeEach } from 'vitest'

/** Why tmux cannot run here (one line), or undefined when it can. `PATH` is where it is looked for. */
export const tmuxMissing = (path: string | undefined = process.env.PATH): string | undefined => {
  try {
    execFileSync('tmux', ['-V'], { env: { ...process.env, PATH: path }, stdio: 'pipe' })
    return undefined
  } catch (e) {
    const code = (e as { code?: unknown }).code
    return code === 'ENOENT'
      ? 'tmux is not installed (not on PATH): this test drives real tmux panes; install tmux (apt install tmux, brew install tmux)'
      : `tmux -V failed: ${e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e)}`
  }
}

let reason: string | undefined | null = null

/** Makes each test of the enclosing `describe` (or file) fail with {@link tmuxMissing}'s line when tmux cannot run. */
export const needsTmux = (): void => {
  beforeEach(() => {
    if (reason === null) reason = tmuxMissing()
    if (reason === undefined) return
    const error = new Error(reason)
    error.stack = `Error: ${reason}` // the reason alone: no trace into this helper
    throw error
  })
}
