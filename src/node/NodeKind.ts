import type * as t from 'io-ts'
import { bash, BashOptionsCodec } from './BashNode.js'
import { claudeWezterm, ClaudeWeztermOptionsCodec } from './ClaudeNode.js'
import { llm, LlmOptionsCodec } from './LlmNode.js'
import { mcpServer, McpServerOptionsCodec } from './McpServerNode.js'
import type { Node } from './Node.js'
import { pty, PtyOptionsCodec } from './PtyNode.js'
import { tmux, TmuxOptionsCodec } from './TmuxNode.js'
import { toolset, ToolsetOptionsCodec } from './ToolsetNode.js'
import { wezterm, WeztermOptionsCodec } from './WeztermNode.js'

/**
 * A node kind that data can describe: its options codec (the one its
 * builder checks with) and its builder. A graph file's node of this kind is
 * decoded with `options` (every error with its path) and built with `build`.
 *
 * Its link ports say what its step gives and takes through link edges:
 * `provides` the ports its artifacts serve (a toolset's are `tools`),
 * `accepts` the ports it resolves (an LLM node's `tools`). A file's link
 * edge into a step of a kind that accepts no such port, or from a step of
 * a kind that provides none for it, fails with its path.
 *
 * @category model
 */
export interface NodeKind<O = unknown> {
  readonly kind: string
  readonly persistent: boolean
  readonly options: t.Decoder<unknown, O>
  build(id: string, options: O): Node
  readonly provides: readonly string[]
  readonly accepts: readonly string[]
}

const NONE: readonly string[] = Object.freeze([])
const TOOLS: readonly string[] = Object.freeze(['tools'])

const kind = <O>(
  name: string,
  persistent: boolean,
  options: t.Decoder<unknown, O>,
  build: (id: string, options: O) => Node,
  provides: readonly string[] = NONE,
  accepts: readonly string[] = NONE,
): NodeKind => Object.freeze({ kind: name, persistent, options, build, provides, accepts })

/**
 * The built-in node kinds a graph file may hold, by kind: bash, pty, tmux,
 * wezterm, claude-wezterm, llm, toolset and mcp-server. (Function nodes
 * hold code, which a file cannot; graphs have their own form.) An LLM node
 * takes tools through links and gives itself as one (a sub-agent); toolset
 * and mcp-server nodes give tools.
 *
 * @category model
 * @example
 * import { nodeKinds } from 'nerve-agents'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const pty = nodeKinds.get('pty')!
 * assert.ok(E.isRight(pty.options.decode({ command: 'bash', cols: 80 })))
 * assert.ok(E.isLeft(pty.options.decode({ command: 'bash', cols: 0 })))
 * assert.strictEqual(pty.build('sh', { command: 'bash' }).kind, 'pty')
 * assert.deepStrictEqual(nodeKinds.get('toolset')!.provides, ['tools'])
 */
export const nodeKinds: ReadonlyMap<string, NodeKind> = new Map(
  [
    kind('bash', false, BashOptionsCodec, bash),
    kind('pty', true, PtyOptionsCodec, pty),
    kind('tmux', true, TmuxOptionsCodec, tmux),
    kind('wezterm', true, WeztermOptionsCodec, wezterm),
    kind('claude-wezterm', true, ClaudeWeztermOptionsCodec, claudeWezterm),
    kind('llm', true, LlmOptionsCodec, llm, TOOLS, TOOLS),
    kind('toolset', false, ToolsetOptionsCodec, toolset, TOOLS),
    kind('mcp-server', false, McpServerOptionsCodec, mcpServer, TOOLS),
  ].map((k) => [k.kind, k]),
)
