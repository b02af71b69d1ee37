import { stat } from 'node:fs/promises'
import { writeFileAtomic } from '../atomicWrite.js'

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
 * Writes `text` to `path` atomically ({@link writeFileAtomic}: readers see
 * the old contents or the new, an existing file keeps its mode), and says
 * whether the file is new. `path` must already be resolved (no link left to
 * follow); a directory there is refused with `EISDIR`.
 *
 * @internal
 */
export const atomicWrite = async (path: string, text: string): Promise<{ created: boolean }> => {
  const old = await stat(path).catch((e: unknown) => {
    if ((e as { code?: unknown }).code === 'ENOENT') return undefined
    throw e
  })
  if (old?.isDirectory() === true) {
    throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' })
  }
  await writeFileAtomic(path, text)
  return { created: old === undefined }
}
