import { lstat, readlink, realpath } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { taggedError, UsageError } from '../../errors.js'
import type { ToolOutput } from './Tool.js'

/**
 * Where the workspace tools work and how far they go: every path a tool is
 * given is resolved inside `root`; a command or a walk that takes longer than
 * `timeoutMs` is stopped; an answer longer than `maxOutputBytes` is cut, with
 * a notice saying how much was cut.
 *
 * @category tools
 */
export interface WorkspaceOptions {
  /** The directory the tools are confined to (a relative one is taken from the current directory). */
  readonly root: string
  /** Default: 30 000. */
  readonly timeoutMs?: number
  /** Default: 30 000. */
  readonly maxOutputBytes?: number
}

/**
 * A path no file can have (it contains a NUL character).
 *
 * @category tools
 */
export class InvalidPath extends taggedError('InvalidPath', 'invalidInput')<{
  readonly path: string
}> {
  constructor(path: string, message: string) {
    super(message, { path })
  }
}

/**
 * A path given to a workspace tool leads outside its root: through `..`,
 * as an absolute path, or through a symbolic link. `resolved` is where it leads.
 *
 * @category errors
 */
export class PathOutsideRoot extends taggedError('PathOutsideRoot', 'invalidInput')<{
  readonly path: string
  readonly root: string
  readonly resolved: string
}> {
  constructor(path: string, root: string, resolved: string) {
    super(
      `path "${path}" is outside the workspace ${root}${
        resolved === resolve(root, path) ? '' : ` (it leads to ${resolved})`
      }`,
      { path, root, resolved },
    )
  }
}

/** The most symbolic links followed for one path, as Linux allows. */
const MAX_LINKS = 40

const codeOf = (e: unknown): unknown => (e as { code?: unknown } | null)?.code

/** Whether `path` is `root` or below it; both absolute and normalised. */
export const isInside = (root: string, path: string): boolean =>
  path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)

const missing = (e: unknown): boolean => codeOf(e) === 'ENOENT' || codeOf(e) === 'ENOTDIR'

/**
 * Where an absolute, normalised path leads with every symbolic link of it
 * resolved, also when its end does not exist yet: the deepest existing
 * ancestor is realpath'ed, and a dangling link below it is followed.
 */
const real = async (path: string, links: number): Promise<string> => {
  try {
    return await realpath(path)
  } catch (e) {
    if (!missing(e)) throw e
  }
  const tail: string[] = []
  let dir = path
  let realDir: string | undefined
  while (realDir === undefined) {
    tail.unshift(basename(dir))
    dir = dirname(dir)
    try {
      realDir = await realpath(dir)
    } catch (e) {
      if (!missing(e)) throw e
    }
  }
  const first = join(realDir, tail[0]!)
  const stat = await lstat(first).catch((e: unknown) => {
    if (missing(e)) return undefined
    throw e
  })
  if (stat?.isSymbolicLink() !== true) return join(realDir, ...tail)
  if (links >= MAX_LINKS) {
    throw Object.assign(new Error(`too many levels of symbolic links at ${first}`), {
      code: 'ELOOP',
    })
  }
  return real(resolve(realDir, await readlink(first), ...tail.slice(1)), links + 1)
}

/**
 * Resolves `path` against a root that is already absolute and real.
 *
 * @internal
 */
export const resolveInReal = async (realRoot: string, path: string): Promise<string> => {
  if (path.includes('\0')) throw new InvalidPath(path, 'the path contains a NUL character')
  const target = await real(resolve(realRoot, path), 0)
  if (!isInside(realRoot, target)) throw new PathOutsideRoot(path, realRoot, target)
  return target
}

/**
 * Resolves `path` (relative to `root`, or absolute) to the real path it
 * names, and rejects with {@link PathOutsideRoot} when that is outside the
 * real path of `root`. Symbolic links are followed wherever they are; for a
 * path that does not exist yet, its deepest existing ancestor is resolved
 * (and a dangling link followed), so neither reading nor creating a file can
 * leave the root. Other file system errors (`root` missing) reject as they
 * are. Links changed while a tool works are not guarded against.
 *
 * @category tools
 */
export const resolveInside = async (root: string, path: string): Promise<string> =>
  resolveInReal(await realpath(root), path)

/**
 * A workspace's settings with its root realpath'ed once, as the tools use it.
 *
 * @internal
 */
export interface Workspace {
  readonly timeoutMs: number
  readonly maxOutputBytes: number
  /** The real path of the root, found on first use. */
  root(): Promise<string>
  /** {@link resolveInside} against the root. */
  resolve(path: string): Promise<string>
  /** An absolute path below the root as the tools show it: relative, `.` for the root. */
  show(real: string, realRoot: string): string
}

const DEFAULT_TIMEOUT_MS = 30_000
const DEFAULT_MAX_OUTPUT_BYTES = 30_000

const positive = (api: string, name: string, value: unknown, fallback: number): number => {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new UsageError(
      api,
      `${name} must be a positive integer, got ${typeof value === 'number' ? value : typeof value}`,
    )
  }
  return value
}

/**
 * Checks the options of a workspace tool factory (`api`) at once.
 *
 * @internal
 */
export const workspace = (api: string, options: WorkspaceOptions): Workspace => {
  if (typeof options !== 'object' || typeof options.root !== 'string' || options.root === '') {
    throw new UsageError(api, 'the options need a root directory')
  }
  const rootPath = resolve(options.root)
  const timeoutMs = positive(api, 'timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS)
  const maxOutputBytes = positive(
    api,
    'maxOutputBytes',
    options.maxOutputBytes,
    DEFAULT_MAX_OUTPUT_BYTES,
  )
  let found: Promise<string> | undefined
  const root = (): Promise<string> => {
    // A root that is missing now may exist on the next call: only success is kept.
    found ??= realpath(rootPath).catch((e: unknown) => {
      found = undefined
      throw e
    })
    return found
  }
  return Object.freeze({
    timeoutMs,
    maxOutputBytes,
    root,
    resolve: async (path: string) => resolveInReal(await root(), path),
    show: (real: string, realRoot: string) => relative(realRoot, real) || '.',
  })
}

/**
 * `text` cut to `maxBytes` bytes of UTF-8 (a character is never split), and
 * how many bytes were cut.
 *
 * @internal
 */
export const cutBytes = (
  text: string,
  maxBytes: number,
): { readonly kept: string; readonly cut: number } => {
  // A string of n UTF-16 units has at most 3n UTF-8 bytes.
  if (text.length * 3 <= maxBytes) return { kept: text, cut: 0 }
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= maxBytes) return { kept: text, cut: 0 }
  const kept = new StringDecoder('utf8').write(bytes.subarray(0, Math.max(0, maxBytes)))
  return { kept, cut: bytes.length - Buffer.byteLength(kept) }
}

/**
 * The notice put where output was cut.
 *
 * @internal
 */
export const truncationNotice = (cut: number, total: number, hint = ''): string =>
  `[output truncated: ${cut} of ${total} bytes cut${hint === '' ? '' : `; ${hint}`}]`

/**
 * `text` within `maxBytes` bytes, with a notice saying how much was cut when it was cut.
 *
 * @internal
 */
export const truncate = (text: string, maxBytes: number, hint = ''): string => {
  const { kept, cut } = cutBytes(text, maxBytes)
  if (cut === 0) return text
  const newline = kept === '' || kept.endsWith('\n') ? '' : '\n'
  return `${kept}${newline}${truncationNotice(cut, Buffer.byteLength(kept) + cut, hint)}`
}

/**
 * `text` within `maxBytes` bytes, cut after its last whole line that fits
 * (a part of a line only when not even the first fits), with a notice
 * saying how much was cut when it was cut.
 *
 * @internal
 */
export const truncateLines = (text: string, maxBytes: number, hint = ''): string => {
  const { kept, cut } = cutBytes(text, maxBytes)
  if (cut === 0) return text
  const end = kept.lastIndexOf('\n')
  if (end < 0) return truncate(text, maxBytes, hint)
  const lines = kept.slice(0, end + 1)
  const total = Buffer.byteLength(kept) + cut
  return `${lines}${truncationNotice(total - Buffer.byteLength(lines), total, hint)}`
}

/**
 * An error output for a file system error met while working on `shown`
 * (the path as the model gave it).
 *
 * @internal
 */
export const fsFailure = (shown: string, e: unknown): ToolOutput => {
  const about = `"${shown}"`
  const why = (() => {
    if (e instanceof PathOutsideRoot) return e.message
    switch (codeOf(e)) {
      case 'ENOENT':
        return `${about} does not exist`
      case 'EISDIR':
        return `${about} is a directory`
      case 'ENOTDIR':
        return `${about}: a part of the path is not a directory`
      case 'EACCES':
      case 'EPERM':
        return `${about}: permission denied`
      case 'ELOOP':
        return `${about}: too many levels of symbolic links`
      default:
        return `${about}: ${e instanceof Error ? e.message : String(e)}`
    }
  })()
  return Object.freeze({ content: why, is_error: true })
}

/**
 * An error output with `content`.
 *
 * @internal
 */
export const failure = (content: string): ToolOutput => Object.freeze({ content, is_error: true })

/**
 * `ctx.signal` that also aborts after `timeoutMs`.
 *
 * @internal
 */
export const withTimeout = (signal: AbortSignal, timeoutMs: number): AbortSignal =>
  AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
