import type { Dirent } from 'node:fs'
import { readdir, realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { isInside } from './workspace.js'

/**
 * A file found by {@link walkFiles}.
 *
 * @internal
 */
export interface WalkedFile {
  /** Where to read it: its real path (for a link, the file it leads to). */
  readonly real: string
  /** Its path below the walk's start, `/`-separated. */
  readonly relative: string
}

/**
 * What {@link walkFiles} needs.
 *
 * @internal
 */
export interface Walk {
  /** The real path of the directory to walk; it must be inside `root`. */
  readonly start: string
  /** The real path of the workspace root: a link that leads outside it is left out. */
  readonly root: string
  /** When it aborts, the walk ends after the entry it is at. */
  readonly signal: AbortSignal
  /** Whether to go into the directory of this name (every other directory is entered). */
  readonly enter: (name: string) => boolean
}

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** The real path of a link's target when it is a file inside `root`. */
const linkedFile = async (path: string, root: string): Promise<string | undefined> => {
  try {
    const target = await realpath(path)
    if (!isInside(root, target)) return undefined
    return (await stat(target)).isFile() ? target : undefined
  } catch {
    return undefined
  }
}

/**
 * The files below a directory, depth first, each directory's entries in
 * name order. Links to files inside the root are included; links to
 * directories are not followed (no loops, no way out); directories that
 * cannot be read are passed over.
 *
 * @internal
 */
export async function* walkFiles(walk: Walk): AsyncGenerator<WalkedFile> {
  const visit = async function* (dir: string, relative: string): AsyncGenerator<WalkedFile> {
    let entries: Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      return
    }
    entries.sort(byName)
    for (const entry of entries) {
      if (walk.signal.aborted) return
      const path = join(dir, entry.name)
      const rel = relative === '' ? entry.name : `${relative}/${entry.name}`
      if (entry.isDirectory()) {
        if (walk.enter(entry.name)) yield* visit(path, rel)
      } else if (entry.isFile()) {
        yield { real: path, relative: rel }
      } else if (entry.isSymbolicLink()) {
        const real = await linkedFile(path, walk.root)
        if (real !== undefined) yield { real, relative: rel }
      }
    }
  }
  yield* visit(walk.start, '')
}
