import { stat } from 'node:fs/promises'
import * as t from 'io-ts'
import { UsageError } from '../../errors.js'
import { globToRegExp, patternNames } from './globPattern.js'
import { nonEmptyString } from './inputs.js'
import { tool, type Tool, type ToolOutput } from './Tool.js'
import { walkFiles } from './walk.js'
import {
  failure,
  fsFailure,
  truncateLines,
  withTimeout,
  workspace,
  type WorkspaceOptions,
} from './workspace.js'

/**
 * Directories a walk passes over unless its pattern names them.
 *
 * @internal
 */
export const skippedDirectories: readonly string[] = Object.freeze(['.git', 'node_modules'])

/**
 * Whether a walk guided by `patterns` goes into a directory called `name`.
 *
 * @internal
 */
export const entersFor =
  (...patterns: readonly string[]) =>
  (name: string): boolean =>
    !skippedDirectories.includes(name) || patterns.some((p) => patternNames(p, name))

/**
 * The path, relative to the root, of a file found `relative` to a walk that
 * started at `start` (itself shown relative to the root).
 *
 * @internal
 */
export const below = (start: string, relative: string): string =>
  start === '.' ? relative : `${start}/${relative}`

const Input = t.intersection([t.type({ pattern: nonEmptyString }), t.partial({ path: t.string })])

/**
 * A tool that finds files of the workspace by a glob `pattern` (see
 * {@link globToRegExp}), matched against paths relative to `path` (a
 * directory; default: the root). The answer lists the matching files
 * relative to the root, sorted. `.git` and `node_modules` are passed over
 * unless the pattern names them; links to directories are not followed. A
 * walk longer than `timeoutMs` stops and says so.
 *
 * @category tools
 */
export const globTool = (options: WorkspaceOptions): Tool => {
  const ws = workspace('globTool', options)
  return tool(
    {
      name: 'glob',
      description:
        'Lists the files of the workspace whose path matches a glob pattern, sorted. ' +
        '* matches within a name, ** any number of directories, ? one character, ' +
        '[abc] one of the characters, {a,b} either alternative. Example: src/**/*.{ts,tsx}.',
      input_schema: {
        type: 'object',
        properties: {
          pattern: { type: 'string', description: 'The glob, relative to path.' },
          path: {
            type: 'string',
            description: 'The directory to search, relative to the workspace. Default: all of it.',
          },
        },
        required: ['pattern'],
      },
    },
    Input,
    async ({ pattern, path = '.' }, ctx): Promise<ToolOutput> => {
      if (pattern.startsWith('/') || pattern.split('/').includes('..')) {
        return failure(
          `the pattern "${pattern}" must be relative and stay below path; give the directory as path`,
        )
      }
      let matcher: RegExp
      try {
        matcher = globToRegExp(pattern)
      } catch (e) {
        if (e instanceof UsageError) return failure(e.message)
        throw e
      }
      let start: string
      let root: string
      try {
        root = await ws.root()
        start = await ws.resolve(path)
        if (!(await stat(start)).isDirectory()) return failure(`"${path}" is not a directory`)
      } catch (e) {
        return fsFailure(path, e)
      }
      const signal = withTimeout(ctx.signal, ws.timeoutMs)
      const shownStart = ws.show(start, root)
      const found: string[] = []
      for await (const file of walkFiles({ start, root, signal, enter: entersFor(pattern) })) {
        if (matcher.test(file.relative)) found.push(below(shownStart, file.relative))
      }
      if (ctx.signal.aborted) return failure('glob was interrupted')
      found.sort()
      const stopped = signal.aborted
        ? `\n[the search stopped after ${ws.timeoutMs} ms: there may be more files]`
        : ''
      if (found.length === 0) {
        return Object.freeze({ content: `no files match "${pattern}"${stopped}` })
      }
      const list = truncateLines(
        found.join('\n'),
        ws.maxOutputBytes,
        'narrow the pattern or the path',
      )
      return Object.freeze({ content: list + stopped })
    },
    { risk: 'low' },
  )
}
