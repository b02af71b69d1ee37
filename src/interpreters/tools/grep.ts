import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import * as t from 'io-ts'
import { UsageError } from '../../errors.js'
import { isBinary } from './files.js'
import { below, entersFor } from './glob.js'
import { globToRegExp } from './globPattern.js'
import { nonEmptyString } from './inputs.js'
import { tool, type Tool, type ToolOutput } from './Tool.js'
import { walkFiles, type WalkedFile } from './walk.js'
import {
  failure,
  fsFailure,
  truncationNotice,
  withTimeout,
  workspace,
  type WorkspaceOptions,
} from './workspace.js'

/** Larger files are passed over (and counted in the answer). */
const MAX_FILE_BYTES = 16 * 1024 * 1024

/** A matching line longer than this is shown cut. */
const MAX_LINE_CHARS = 1000

const Input = t.intersection([
  t.type({ pattern: nonEmptyString }),
  t.partial({ path: t.string, glob: t.string, ignore_case: t.boolean }),
])

/** The answer being built: lines kept within the budget, and what did not fit. */
class Answer {
  text = ''
  bytes = 0
  cutBytes = 0
  cutLines = 0
  constructor(private readonly max: number) {}
  add(line: string): void {
    const size = Buffer.byteLength(line) + 1
    if (this.cutLines === 0 && this.bytes + size <= this.max) {
      this.text += `${line}\n`
      this.bytes += size
    } else {
      this.cutBytes += size
      this.cutLines++
    }
  }
}

const shownLine = (line: string): string => {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text
}

/**
 * A tool that searches the text files of the workspace for a JavaScript
 * regular expression `pattern` (`ignore_case` for the `i` flag), under
 * `path` (a file or a directory; default: the root), in the files whose
 * path below it matches the glob `glob` (a glob without `/` is matched
 * against file names). Each matching line is answered as `file:line:text`,
 * file relative to the root. Binary files are passed over, and so are
 * `.git` and `node_modules` unless the glob names them. A search longer
 * than `timeoutMs` stops and says so.
 *
 * @category tools
 */
export const grepTool = (options: WorkspaceOptions): Tool => {
  const ws = workspace('grepTool', options)
  return tool(
    {
      name: 'grep',
      description:
        'Searches the text files of the workspace for a JavaScript regular expression and returns ' +
        'the matching lines as file:line:text. Narrow the search with path (a file or directory) ' +
        'and glob (e.g. *.ts, or src/**/*.ts).',
      input_schema: {
        type: 'object',
        properties: {
          pattern: { type: 'string', description: 'A JavaScript regular expression.' },
          path: {
            type: 'string',
            description:
              'The file or directory to search, relative to the workspace. Default: all.',
          },
          glob: {
            type: 'string',
            description: 'Only files matching this glob (file names when it has no /).',
          },
          ignore_case: { type: 'boolean', description: 'Match case-insensitively.' },
        },
        required: ['pattern'],
      },
    },
    Input,
    async ({ pattern, path = '.', glob, ignore_case }, ctx): Promise<ToolOutput> => {
      let regex: RegExp
      let only: RegExp | undefined
      try {
        regex = new RegExp(pattern, ignore_case === true ? 'i' : '')
      } catch (e) {
        return failure(`invalid regular expression: ${(e as Error).message}`)
      }
      try {
        only = glob === undefined || glob === '' ? undefined : globToRegExp(glob)
      } catch (e) {
        if (e instanceof UsageError) return failure(e.message)
        throw e
      }
      const byName = glob !== undefined && !glob.includes('/')
      let start: string
      let root: string
      let isFile: boolean
      try {
        root = await ws.root()
        start = await ws.resolve(path)
        isFile = !(await stat(start)).isDirectory()
      } catch (e) {
        return fsFailure(path, e)
      }
      const signal = withTimeout(ctx.signal, ws.timeoutMs)
      const shownStart = ws.show(start, root)
      const files: AsyncIterable<WalkedFile> | readonly WalkedFile[] = isFile
        ? [{ real: start, relative: '' }]
        : walkFiles({
            start,
            root,
            signal,
            enter: entersFor(...(glob === undefined ? [] : [glob])),
          })
      const answer = new Answer(ws.maxOutputBytes)
      let large = 0
      for await (const file of files) {
        if (signal.aborted) break
        const name = byName ? basename(file.relative) : file.relative
        if (!isFile && only !== undefined && !only.test(name)) continue
        let bytes: Buffer
        try {
          if ((await stat(file.real)).size > MAX_FILE_BYTES) {
            large++
            continue
          }
          bytes = await readFile(file.real)
        } catch {
          continue
        }
        if (isBinary(bytes)) continue
        const shown = isFile ? shownStart : below(shownStart, file.relative)
        const lines = bytes.toString('utf8').split('\n')
        if (lines[lines.length - 1] === '') lines.pop()
        lines.forEach((line, i) => {
          if (regex.test(line)) answer.add(`${shown}:${i + 1}:${shownLine(line)}`)
        })
      }
      if (ctx.signal.aborted) return failure('grep was interrupted')
      const notes = [
        answer.cutLines === 0
          ? ''
          : truncationNotice(
              answer.cutBytes,
              answer.bytes + answer.cutBytes,
              `${answer.cutLines} more matching lines; narrow the search`,
            ),
        large === 0 ? '' : `[${large} files over ${MAX_FILE_BYTES} bytes were not searched]`,
        signal.aborted
          ? `[the search stopped after ${ws.timeoutMs} ms: there may be more matches]`
          : '',
      ].filter((n) => n !== '')
      const head = answer.text === '' ? `no matches for /${pattern}/\n` : answer.text
      return Object.freeze({ content: (head + notes.join('\n')).trimEnd() })
    },
    { risk: 'low' },
  )
}
