import { readFile } from 'node:fs/promises'
import * as t from 'io-ts'
import { atomicWrite, isBinary, strictUtf8 } from './files.js'
import { nonEmptyString } from './inputs.js'
import { tool, type Tool, type ToolOutput } from './Tool.js'
import { failure, fsFailure, workspace, type WorkspaceOptions } from './workspace.js'

const Input = t.intersection([
  t.type({ path: nonEmptyString, old_string: t.string, new_string: t.string }),
  t.partial({ replace_all: t.boolean }),
])

/**
 * A tool that replaces text in a file of the workspace: `old_string` by
 * `new_string` in `path`. `old_string` must occur exactly once, unless
 * `replace_all` is set (then every occurrence is replaced); otherwise the
 * answer is an error saying how many times it occurs. The file must be
 * UTF-8 text; it is replaced at once (written beside it, then renamed over
 * it), keeping its mode.
 *
 * @category tools
 */
export const editTool = (options: WorkspaceOptions): Tool => {
  const ws = workspace('editTool', options)
  return tool(
    {
      name: 'edit',
      description:
        'Replaces old_string by new_string in a file of the workspace. old_string must occur ' +
        'exactly once (include surrounding lines to make it unique), unless replace_all is true.',
      input_schema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'The file, relative to the workspace.' },
          old_string: { type: 'string', description: 'The exact text to replace.' },
          new_string: { type: 'string', description: 'The text to put in its place.' },
          replace_all: {
            type: 'boolean',
            description: 'Replace every occurrence instead of exactly one. Default: false.',
          },
        },
        required: ['path', 'old_string', 'new_string'],
      },
    },
    Input,
    async ({ path, old_string, new_string, replace_all }): Promise<ToolOutput> => {
      if (old_string === '') return failure('old_string is empty; to create a file use write')
      if (old_string === new_string) return failure('old_string and new_string are the same')
      try {
        const file = await ws.resolve(path)
        const bytes = await readFile(file)
        const text = isBinary(bytes) ? undefined : strictUtf8(bytes)
        if (text === undefined)
          return failure(`"${path}" is not UTF-8 text; edit changes only text`)
        const parts = text.split(old_string)
        const count = parts.length - 1
        if (count === 0) return failure(`old_string does not occur in "${path}"`)
        if (count > 1 && replace_all !== true) {
          return failure(
            `old_string occurs ${count} times in "${path}"; include more surrounding text to make ` +
              'it unique, or set replace_all to replace every occurrence',
          )
        }
        await atomicWrite(file, parts.join(new_string))
        return Object.freeze({
          content: `replaced ${count} ${count === 1 ? 'occurrence' : 'occurrences'} in "${path}"`,
        })
      } catch (e) {
        return fsFailure(path, e)
      }
    },
    { risk: 'medium' },
  )
}
