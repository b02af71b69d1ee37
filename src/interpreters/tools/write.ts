import * as t from 'io-ts'
import { atomicWrite } from './files.js'
import { nonEmptyString } from './inputs.js'
import { tool, type Tool, type ToolOutput } from './Tool.js'
import { failure, fsFailure, workspace, type WorkspaceOptions } from './workspace.js'

const Input = t.type({ path: nonEmptyString, content: t.string })

/**
 * A tool that writes a file of the workspace: `path` and its whole
 * `content`. Missing parent directories are created; the file is replaced
 * at once (written beside it, then renamed over it), keeping its mode. A
 * path that leads outside the root, also through a link, is refused.
 *
 * @category tools
 */
export const writeTool = (options: WorkspaceOptions): Tool => {
  const ws = workspace('writeTool', options)
  return tool(
    {
      name: 'write',
      description:
        'Writes a file of the workspace with the given content, replacing the file if it exists ' +
        'and creating missing parent directories.',
      input_schema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'The file, relative to the workspace.' },
          content: { type: 'string', description: 'The whole new content of the file.' },
        },
        required: ['path', 'content'],
      },
    },
    Input,
    async ({ path, content }): Promise<ToolOutput> => {
      try {
        const file = await ws.resolve(path)
        if (file === (await ws.root())) return failure(`"${path}" is the workspace directory`)
        const { created } = await atomicWrite(file, content)
        const bytes = Buffer.byteLength(content)
        return Object.freeze({
          content: `${created ? 'created' : 'overwrote'} "${path}" (${bytes} bytes)`,
        })
      } catch (e) {
        return fsFailure(path, e)
      }
    },
    { risk: 'medium' },
  )
}
