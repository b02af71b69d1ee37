import { randomBytes } from 'node:crypto'
import { chmod, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/**
 * How many leading bytes are looked at to tell a binary file.
 *
 * @internal
 */
export const SNIFF_BYTES = 8000

/**
 * Whether file contents look binary: a NUL byte among the first
 * {@link SNIFF_BYTES} (the test git uses).
 *
 * @internal
 */
export const isBinary = (bytes: Uint8Array): boolean => bytes.subarray(0, SNIFF_BYTES).includes(0)

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * The text of strict UTF-8 bytes (a byte order mark is kept, so writing the
 * text back restores the bytes), or `undefined` when they are not UTF-8.
 *
 * @internal
 */
export const strictUtf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * Writes `text` to `path` so that readers see the old contents or the new,
 * never a part: into a new temporary file beside it, then renamed over it.
 * Missing parent directories are created; an existing file keeps its mode.
 * `path` must already be resolved (no link left to follow).
 *
 * @internal
 */
export const atomicWrite = async (path: string, text: string): Promise<{ created: boolean }> => {
  const dir = dirname(path)
  await mkdir(dir, { recursive: true })
  const old = await stat(path).catch((e: unknown) => {
    if ((e as { code?: unknown }).code === 'ENOENT') return undefined
    throw e
  })
  if (old?.isDirectory() === true) {
    throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' })
  }
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    // `wx`: never through something already at the temporary name.
    await writeFile(temp, text, { flag: 'wx' })
    if (old !== undefined) await chmod(temp, old.mode & 0o7777)
    await rename(temp, path)
  } catch (e) {
    await rm(temp, { force: true })
    throw e
  }
  return { created: old === undefined }
}
