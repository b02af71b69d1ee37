import { readFileSync } from 'node:fs'

/**
 * Whether a process has ended, as `kill -0` sees it. An ended child whose
 * parent died first stays a zombie where PID 1 does not reap orphans (as in
 * some containers): it no longer runs, so it counts as gone.
 */
export const gone = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (e) {
    return (e as { code?: unknown }).code === 'ESRCH'
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true
  } catch {
    return true
  }
}

/**
 * Whether a process that was sent SIGKILL is gone within `ms`. The kernel
 * closes a dying process's pipes before it becomes a zombie, so whoever
 * waited for those pipes to close may look a moment too early.
 */
export const goneSoon = async (pid: number, ms = 2000): Promise<boolean> => {
  for (const until = Date.now() + ms; !gone(pid);) {
    if (Date.now() > until) return false
    await new Promise((r) => setTimeout(r, 5))
  }
  return true
}
