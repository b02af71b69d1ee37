import { readFile, stat } from 'node:fs/promises'
import * as t from 'io-ts'
import { isBinary } from './files.js'
import { nonEmptyString, positiveInteger } from './inputs.js'
import { tool, type Tool, type ToolOutput } from './Tool.js'
import {
  failure,
  fsFailure,
  truncate,
  truncationNotice,
  workspace,
  type WorkspaceOptions,
} from './workspace.js'

/** Files larger than this are refused whole: grep or bash can look into them. */
const MAX_FILE_BYTES = 64 * 1024 * 1024

const Input = t.intersection([
  t.type({ path: nonEmptyString }),
  t.partial({ offset: positiveInteger, limit: positiveInteger }),
])

/** Line `n` as `cat -n` shows it. */
const numbered = (n: number, line: string): string => `${String(n).padStart(6)}\t${line}\n`

/**
 * Lines `from`..`to` (1-based, inclusive) numbered, as many as fit in
 * `maxBytes`, with a notice telling where to read on when not all did.
 */
const show = (lines: readonly string[], from: number, to: number, maxBytes: number): string => {
  let out = ''
  let bytes = 0
  let n = from
  for (; n <= to; n++) {
    const line = numbered(n, lines[n - 1]!)
    const size = Buffer.byteLength(line)
    if (bytes + size > maxBytes) break
    out += line
    bytes += size
  }
  if (n > to) return out
  // Even the first line does not fit: show what fits of it.
  if (n === from)
    return truncate(numbered(n, lines[n - 1]!), maxBytes, `read on with offset ${n + 1}`)
  let cut = 0
  for (let k = n; k <= to; k++) cut += Buffer.byteLength(numbered(k, lines[k - 1]!))
  return `${out}${truncationNotice(cut, bytes + cut, `read on with offset ${n}`)}`
}

/**
 * A tool that reads a text file of the workspace: `path`, and optionally
 * `offset` (the first line, from 1) and `limit` (how many lines). Lines are
 * numbered as `cat -n` numbers them. Binary files (a NUL byte early on) and
 * directories are refused, as are paths leading outside the root.
 *
 * @category tools
 */
export const readTool = (options: WorkspaceOptions): Tool => {
  const ws = workspace('readTool', options)
  return tool(
    {
      name: 'read',
      description:
        'Reads a text file of the workspace and returns its lines numbered from 1. ' +
        'Give offset (first line) and limit (number of lines) to read part of a long file.',
      input_schema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'The file, relative to the workspace.' },
          offset: { type: 'integer', minimum: 1, description: 'The first line to read (from 1).' },
          limit: { type: 'integer', minimum: 1, description: 'How many lines to read.' },
        },
        required: ['path'],
      },
    },
    Input,
    async ({ path, offset, limit }): Promise<ToolOutput> => {
      let bytes: Buffer
      try {
        const file = await ws.resolve(path)
        const info = await stat(file)
        if (info.isDirectory()) return failure(`"${path}" is a directory; list it with glob`)
        if (info.size > MAX_FILE_BYTES) {
          return failure(
            `"${path}" has ${info.size} bytes, more than read takes (${MAX_FILE_BYTES}); use grep or bash`,
          )
        }
        bytes = await readFile(file)
      } catch (e) {
        return fsFailure(path, e)
      }
      if (isBinary(bytes)) return failure(`"${path}" is a binary file; read shows only text`)
      if (bytes.length === 0) return Object.freeze({ content: `"${path}" is empty` })
      const lines = bytes.toString('utf8').split('\n')
      if (lines[lines.length - 1] === '') lines.pop()
      const from = offset ?? 1
      if (from > lines.length) {
        return failure(`offset ${from} is past the end: "${path}" has ${lines.length} lines`)
      }
      const to = limit === undefined ? lines.length : Math.min(lines.length, from - 1 + limit)
      return Object.freeze({ content: show(lines, from, to, ws.maxOutputBytes) })
    },
    { risk: 'low' },
  )
}
