import { UsageError } from '../../errors.js'

/**
 * A lock asked for: a path prefix (a file or a directory, relative to the
 * workspace) and whether it is for reading or writing.
 *
 * @category locks
 */
export interface LockRequest {
  readonly path: string
  readonly mode: 'read' | 'write'
}

interface Held {
  readonly owner: string
  readonly path: string
  readonly mode: 'read' | 'write'
}

/** `a/b/` and `./a//b` are `a/b`; the workspace itself is `''`. */
const normalise = (path: string): string =>
  path
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/')

/** Whether one path is the other or below it. */
const overlaps = (a: string, b: string): boolean =>
  a === b || a === '' || b === '' || a.startsWith(`${b}/`) || b.startsWith(`${a}/`)

/**
 * Advisory locks on path prefixes between parallel agents: any number of
 * readers, or one writer, on overlapping paths (a directory overlaps
 * everything below it). The locks of one call are taken one at a time in a
 * fixed order (sorted paths), so two callers cannot deadlock; an owner's
 * own locks never block it. Released by the function `acquire` resolves
 * with (on finish), or all of an owner's at once by
 * {@link FileLocks.releaseAll} (on cancel or crash); a waiting `acquire`
 * rejects when its signal aborts, holding nothing.
 *
 * @category locks
 * @example
 * import { FileLocks } from 'nerve-agents/network'
 * import assert from 'assert'
 *
 * const locks = new FileLocks()
 * const release = await locks.acquire('coder', [{ path: 'src', mode: 'write' }])
 * let reviewed = false
 * const review = locks.acquire('reviewer', [{ path: 'src/a.ts', mode: 'read' }]).then((r) => { reviewed = true; r() })
 * await Promise.resolve()
 * assert.strictEqual(reviewed, false)
 * release()
 * await review
 * assert.strictEqual(reviewed, true)
 */
export class FileLocks {
  readonly #held: Held[] = []
  #waiters: (() => void)[] = []

  /** The locks held now. */
  held(): readonly Held[] {
    return this.#held.map((h) => ({ ...h }))
  }

  /** Takes every lock of `requests`, waiting as needed; resolves with their release. */
  async acquire(
    owner: string,
    requests: readonly LockRequest[],
    signal?: AbortSignal,
  ): Promise<() => void> {
    if (typeof owner !== 'string' || owner === '') {
      throw new UsageError('FileLocks.acquire', 'the owner must be a non-empty string')
    }
    const wanted = new Map<string, 'read' | 'write'>()
    for (const r of requests) {
      if (!['read', 'write'].includes(r.mode)) {
        throw new UsageError('FileLocks.acquire', `a lock's mode must be read or write`)
      }
      const p = normalise(r.path)
      if (wanted.get(p) !== 'write') wanted.set(p, r.mode)
    }
    const order = [...wanted.keys()].sort()
    const mine: Held[] = []
    const release = (): void => {
      for (const h of mine) {
        const i = this.#held.indexOf(h)
        if (i >= 0) this.#held.splice(i, 1)
      }
      mine.length = 0
      this.#wake()
    }
    try {
      for (const path of order) {
        const lock: Held = { owner, path, mode: wanted.get(path)! }
        while (this.#blocked(lock)) await this.#wait(signal)
        this.#held.push(lock)
        mine.push(lock)
      }
    } catch (e) {
      release()
      throw e
    }
    let done = false
    return () => {
      if (done) return
      done = true
      release()
    }
  }

  /** Releases every lock of `owner` (a cancelled or crashed firing). */
  releaseAll(owner: string): void {
    for (let i = this.#held.length - 1; i >= 0; i--) {
      if (this.#held[i]!.owner === owner) this.#held.splice(i, 1)
    }
    this.#wake()
  }

  #blocked(lock: Held): boolean {
    return this.#held.some(
      (h) =>
        h.owner !== lock.owner &&
        (h.mode === 'write' || lock.mode === 'write') &&
        overlaps(h.path, lock.path),
    )
  }

  #wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason as Error)
        return
      }
      const onAbort = (): void => {
        this.#waiters = this.#waiters.filter((w) => w !== wake)
        reject(signal!.reason as Error)
      }
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      this.#waiters.push(wake)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  #wake(): void {
    const waiting = this.#waiters
    this.#waiters = []
    for (const w of waiting) w()
  }
}
