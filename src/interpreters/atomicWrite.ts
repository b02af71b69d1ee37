import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, rm, stat } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { UsageError } from '../errors.js'

/**
 * Options of {@link writeFileAtomic}.
 *
 * @category files
 */
export interface WriteFileAtomicOptions {
  /**
   * The permission bits of the written file, e.g. `0o600`, set exactly (the
   * umask does not apply). Omitted: the mode of the file being replaced, or
   * the usual `0o666` less the umask for a new file.
   */
  readonly mode?: number
}

const errorCode = (e: unknown): string | undefined =>
  typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string'
    ? e.code
    : undefined

/** The mode bits of an existing file; undefined when there is none. */
const existingMode = async (path: string): Promise<number | undefined> => {
  try {
    return (await stat(path)).mode & 0o7777
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined
    throw e
  }
}

// Directories cannot be opened or fsync'ed on some platforms (Windows) or
// file systems; there the rename is as durable as the platform makes it.
const UNSUPPORTED_DIR_SYNC = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EACCES', 'ENOTSUP'])

/** Makes the rename durable: fsyncs the directory that holds the new entry. */
const syncDirectory = async (dir: string): Promise<void> => {
  let handle: FileHandle | undefined
  try {
    handle = await open(dir, 'r')
    await handle.sync()
  } catch (e) {
    if (!UNSUPPORTED_DIR_SYNC.has(errorCode(e) ?? '')) throw e
  } finally {
    await handle?.close()
  }
}

/**
 * Replaces the file at `path` with `data` (a string is written as UTF-8) so
 * that a reader, or the file after a crash, shows either the old content or
 * the new one, never a mix. The data goes to a temporary file in the same
 * directory (`.<name>.<pid>.<random>.tmp`), which is fsync'ed and renamed
 * over `path`; then the directory is fsync'ed so the rename survives a
 * power cut. Missing parent directories are created. On failure the
 * temporary file is removed and the error rethrown; `path` is unchanged.
 *
 * A process killed mid-write can leave a temporary file behind; it never
 * has the target's name, so readers of `path` do not see it.
 *
 * @category files
 * @example
 * import { writeFileAtomic } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 * import { mkdtemp, readFile, stat } from 'node:fs/promises'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 *
 * const file = join(await mkdtemp(join(tmpdir(), 'nerve-')), 'new', 'dir', 'secret.txt')
 * await writeFileAtomic(file, 'one', { mode: 0o600 })
 * await writeFileAtomic(file, 'two')
 * assert.strictEqual(await readFile(file, 'utf8'), 'two')
 * assert.strictEqual((await stat(file)).mode & 0o777, 0o600)
 */
export const writeFileAtomic = async (
  path: string,
  data: string | Uint8Array,
  options?: WriteFileAtomicOptions,
): Promise<void> => {
  if (typeof path !== 'string' || path === '') {
    throw new UsageError(
      'writeFileAtomic',
      `path must be a non-empty string, got ${JSON.stringify(path)}`,
    )
  }
  if (typeof data !== 'string' && !(data instanceof Uint8Array)) {
    throw new UsageError('writeFileAtomic', 'data must be a string or a Uint8Array')
  }
  const mode = options?.mode
  if (mode !== undefined && !(Number.isInteger(mode) && mode >= 0 && mode <= 0o7777)) {
    throw new UsageError('writeFileAtomic', `mode must be an integer in 0..0o7777, got ${mode}`)
  }
  const dir = dirname(path)
  await mkdir(dir, { recursive: true })
  const wanted = mode ?? (await existingMode(path))
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  let handle: FileHandle | undefined
  try {
    // 'wx': never reuse or follow a file that is already there. The umask
    // applies to the mode given to open; chmod sets the wanted one exactly.
    handle = await open(temp, 'wx', wanted ?? 0o666)
    if (wanted !== undefined) await handle.chmod(wanted)
    await handle.writeFile(data)
    await handle.sync()
    await handle.close()
    handle = undefined
    await rename(temp, path)
  } catch (e) {
    await handle?.close().catch(() => undefined)
    await rm(temp, { force: true }).catch(() => undefined)
    throw e
  }
  await syncDirectory(dir)
}
