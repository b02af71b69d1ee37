import { mkdir, readdir, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { lock } from 'proper-lockfile'

/**
 * How long a lock left by a process that died holding it stands before
 * another process takes it over: proper-lockfile's smallest staleness. A
 * live holder refreshes the lock every second.
 */
const STALE_MS = 2_000

/**
 * Retries with a randomised backoff from 5 ms to 100 ms, about 9 s in all:
 * long enough to outwait a stale lock and many short saves of others.
 */
const RETRIES = { retries: 100, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true }

/**
 * Runs `task` holding the cross-process lock of the file at `path` (a
 * directory `<path>.lock` beside it, which proper-lockfile creates
 * atomically with `mkdir` and keeps fresh while it is held). The file's
 * directory is created first. A lock whose holder died is taken over after
 * {@link STALE_MS}. When the lock was compromised while `task` ran (its
 * directory removed or taken over), the task's result is replaced by that
 * error, so the caller learns its write may have raced another.
 *
 * @internal
 */
export const withFileLock = async <A>(path: string, task: () => Promise<A>): Promise<A> => {
  await mkdir(dirname(path), { recursive: true })
  let compromised: Error | undefined
  const release = await lock(path, {
    realpath: false,
    stale: STALE_MS,
    retries: RETRIES,
    onCompromised: (e) => {
      compromised = e
    },
  })
  try {
    const result = await task()
    if (compromised !== undefined) throw compromised
    return result
  } finally {
    if (compromised === undefined) await release().catch(() => undefined)
  }
}

/**
 * The temporary files {@link writeFileAtomic} leaves beside `path` when its
 * process dies between creating one and renaming it:
 * `.<name>.<pid>.<random>.tmp`.
 *
 * @internal
 */
export const leftoverTempFiles = async (path: string): Promise<readonly string[]> => {
  const prefix = `.${basename(path)}.`
  let names: string[]
  try {
    names = await readdir(dirname(path))
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith('.tmp'))
    .map((n) => join(dirname(path), n))
}

/**
 * Removes the temporary files a crashed writer left beside `path`. Call it
 * holding the file's lock: every writer holds it while its temporary file
 * exists, so any found then is a leftover.
 *
 * @internal
 */
export const removeTempFiles = async (files: readonly string[]): Promise<void> => {
  await Promise.all(files.map((f) => rm(f, { force: true })))
}
