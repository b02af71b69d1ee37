/**
 * How a detached child's process group is ended: `stop(sig)` sends `sig` to
 * the whole group, then `SIGKILL` after `graceMs`; once the leader has
 * exited after a stop, what is left of the group is killed at once, so no
 * background child keeps the pipes open. Nothing is sent once the output
 * has closed.
 *
 * @internal
 */
export interface ProcessGroup {
  /** Ends the group; `false` when it is stopping or closed already. */
  readonly stop: (sig: NodeJS.Signals) => boolean
  /** Call when the leader has exited. */
  readonly exited: () => void
  /** Call when the leader's output has closed. */
  readonly closed: () => void
}

/**
 * The {@link ProcessGroup} led by `pid` (a child spawned `detached`).
 *
 * @internal
 */
export const processGroup = (pid: number | undefined, graceMs: number): ProcessGroup => {
  let stopping = false
  let exited = false
  let closed = false
  let grace: NodeJS.Timeout | undefined
  const kill = (sig: NodeJS.Signals): void => {
    if (pid === undefined || closed) return
    try {
      process.kill(-pid, sig)
    } catch (e) {
      // the group is gone already
      if ((e as { code?: unknown }).code !== 'ESRCH') throw e
    }
  }
  return {
    stop: (sig) => {
      if (stopping || closed) return false
      stopping = true
      if (exited) kill('SIGKILL')
      else {
        kill(sig)
        grace = setTimeout(() => {
          kill('SIGKILL')
        }, graceMs)
      }
      return true
    },
    exited: () => {
      exited = true
      // After a stop, nothing of the group may outlive its leader.
      if (stopping) {
        clearTimeout(grace)
        kill('SIGKILL')
      }
    },
    closed: () => {
      closed = true
      clearTimeout(grace)
    },
  }
}
