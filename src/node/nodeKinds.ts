import { bashNodeKind } from './BashNode.js'
import { claudeWeztermNodeKind } from './ClaudeNode.js'
import { llmNodeKind } from './LlmNode.js'
import { mcpServerNodeKind } from './McpServerNode.js'
import { nodeKindsOf, type NodeKinds } from './NodeKind.js'
import { ptyNodeKind } from './PtyNode.js'
import { tmuxNodeKind } from './TmuxNode.js'
import { toolsetNodeKind } from './ToolsetNode.js'
import { weztermNodeKind } from './WeztermNode.js'

/**
 * The built-in node kinds a graph file may hold, by kind: bash, pty, tmux,
 * wezterm, claude-wezterm, llm, toolset and mcp-server. (Function nodes
 * hold code, which a file cannot; graphs have their own form.) An LLM node
 * takes tools through links and gives itself as one (a sub-agent); toolset
 * and mcp-server nodes give tools. An engine's kinds are these with their
 * interpreters, and function and graph (`builtinKinds`).
 *
 * @category model
 * @example
 * import { nodeKinds } from 'nerve-agents/core'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const pty = nodeKinds.get('pty')!
 * assert.ok(E.isRight(pty.options.decode({ command: 'bash', cols: 80 })))
 * assert.ok(E.isLeft(pty.options.decode({ command: 'bash', cols: 0 })))
 * assert.strictEqual(pty.build('sh', { command: 'bash' }).kind, 'pty')
 * assert.deepStrictEqual(nodeKinds.get('toolset')!.provides, ['tools'])
 * assert.strictEqual(nodeKinds.resolve('claude')!.kind, 'claude-wezterm')
 */
export const nodeKinds: NodeKinds = nodeKindsOf(
  bashNodeKind,
  ptyNodeKind,
  tmuxNodeKind,
  weztermNodeKind,
  claudeWeztermNodeKind,
  llmNodeKind,
  toolsetNodeKind,
  mcpServerNodeKind,
)
