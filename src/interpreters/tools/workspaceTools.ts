import { bashTool } from './bash.js'
import { editTool } from './edit.js'
import { globTool } from './glob.js'
import { grepTool } from './grep.js'
import { readTool } from './read.js'
import type { Tool } from './Tool.js'
import type { WorkspaceOptions } from './workspace.js'
import { writeTool } from './write.js'

/**
 * The six workspace tools with the same options: `bash`, `read`, `write`,
 * `edit`, `glob` and `grep`, in that order.
 *
 * @category tools
 * @example
 * import { toolbox } from 'nerve-agents'
 * import { toolDefinitionsOf, workspaceTools } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const box = toolbox(...workspaceTools({ root: '.' }))
 * const names = toolDefinitionsOf(box).map((d) => d.name)
 * assert.deepStrictEqual(names, ['bash', 'read', 'write', 'edit', 'glob', 'grep'])
 */
export const workspaceTools = (options: WorkspaceOptions): readonly Tool[] =>
  Object.freeze([
    bashTool(options),
    readTool(options),
    writeTool(options),
    editTool(options),
    globTool(options),
    grepTool(options),
  ])
