import type { Interpreter, NodeContext } from '../node/Interpreter.js'
import type { BuiltinToolName, ToolsetNode } from '../node/ToolsetNode.js'
import { bashTool } from './tools/bash.js'
import { editTool } from './tools/edit.js'
import { globTool } from './tools/glob.js'
import { grepTool } from './tools/grep.js'
import { readTool } from './tools/read.js'
import { toolbox, type Tool } from './tools/Tool.js'
import type { WorkspaceOptions } from './tools/workspace.js'
import { writeTool } from './tools/write.js'

const BUILTIN: Readonly<Record<BuiltinToolName, (o: WorkspaceOptions) => Tool>> = Object.freeze({
  bash: bashTool,
  read: readTool,
  write: writeTool,
  edit: editTool,
  glob: globTool,
  grep: grepTool,
})

/** The tools of a toolset node, made once per node (a node is a frozen value). */
const made = new WeakMap<ToolsetNode, readonly Tool[]>()

/** The names of a toolset node's tools: its step's result, made once per node. */
const named = new WeakMap<ToolsetNode, readonly string[]>()

/**
 * The tools a toolset node stands for: its built-in tools working in its
 * root, then its tools given in code, each name once.
 *
 * @category toolsets
 * @example
 * import { toolset } from 'nerve-agents'
 * import { toolsetTools } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const names = toolsetTools(toolset('fs', { builtin: ['read', 'grep'], root: '.' }))
 *   .map((t) => t.definition.name)
 * assert.deepStrictEqual(names, ['read', 'grep'])
 */
export const toolsetTools = (node: ToolsetNode): readonly Tool[] => {
  let tools = made.get(node)
  if (tools === undefined) {
    const options: WorkspaceOptions = {
      root: node.root,
      ...(node.timeoutMs !== undefined && { timeoutMs: node.timeoutMs }),
      ...(node.maxOutputBytes !== undefined && { maxOutputBytes: node.maxOutputBytes }),
    }
    const all = [
      ...node.builtin.map((name) => BUILTIN[name](options)),
      ...(node.tools as readonly Tool[]),
    ]
    toolbox(...all) // checks each tool and that no two share a name
    tools = Object.freeze(all)
    made.set(node, tools)
  }
  return tools
}

/**
 * Runs toolset nodes. A toolset step's result is the names of its tools;
 * `materialize` gives the steps linked to it the tools themselves
 * ({@link toolsetTools}), which an LLM step takes through its `tools` links.
 *
 * @category toolsets
 */
export const toolsetInterpreter: Interpreter<ToolsetNode> = Object.freeze({
  kind: 'toolset' as const,
  execute(node: ToolsetNode, _ctx: NodeContext): readonly string[] {
    let names = named.get(node)
    if (names === undefined) {
      names = Object.freeze(toolsetTools(node).map((x) => x.definition.name))
      named.set(node, names)
    }
    return names
  },
  materialize(node: ToolsetNode): readonly Tool[] {
    return toolsetTools(node)
  },
})
