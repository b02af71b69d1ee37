/**
 * `nerve-agents/interpreters`: the effects. An interpreter per node kind
 * (function, bash, pty, tmux, wezterm, CLI agents, llm, graph, toolset, MCP
 * servers) and the kinds that bind them; the screen parsers of CLI agents;
 * model providers and their wire formats; tools; the model proxy CLI agents
 * talk through. `defaultInterpreters`, `llmInterpreter`, the providers and
 * `tool`/`toolbox` are also at the root.
 *
 * @packageDocumentation
 */
import { interpreters, type InterpreterRegistry } from '../node/Interpreter.js'
import { bashInterpreter } from './bash.js'
import { functionInterpreter } from './function.js'
import { graphInterpreter } from './graph.js'
import { mcpServerInterpreter } from './mcpServer.js'
import { toolsetInterpreter } from './toolset.js'

export { kindsOf, withInterpreter } from './Kind.js'
export type { Capabilities, Kind, KindEnv, Kinds } from './Kind.js'
export { builtinKinds } from './kinds.js'
export { functionInterpreter } from './function.js'
export { graphInterpreter } from './graph.js'
export { BashFailed, BashSpawnFailed, bashInterpreter, bashInterpreterWith } from './bash.js'
export type { BashChunk, BashInterpreterOptions, BashResult, BashRun, BashRunHook } from './bash.js'
export * from './parsers/index.js'
export * from './llm/index.js'
export * from './tools/index.js'
export * from './agents/index.js'
export { toolsetInterpreter, toolsetTools } from './toolset.js'
export {
  McpServerFailed,
  mcpServerInterpreter,
  McpToolCancelled,
  McpToolFailed,
} from './mcpServer.js'
export type { McpServerInterpreter } from './mcpServer.js'
export { writeFileAtomic } from './atomicWrite.js'
export { processGroup } from './processGroup.js'
export type { ProcessGroup } from './processGroup.js'
export type { WriteFileAtomicOptions } from './atomicWrite.js'
export {
  terminalInterpreter,
  TerminalAnswerError,
  TerminalDialog,
  TerminalExited,
  TerminalInterrupted,
  TerminalNotStarted,
  TerminalTimeout,
} from './terminal/Terminal.js'
export type {
  ExecuteOptions,
  Terminal,
  TerminalInterpreter,
  TerminalDecorator,
  TerminalInterpreterOptions,
} from './terminal/Terminal.js'
export { openPty, ptyInterpreter } from './terminal/pty.js'
export type { PtyInterpreterOptions, PtyTerminal, PtyTerminalOptions } from './terminal/pty.js'
export { openTmux, TmuxCommandFailed, tmuxInterpreter } from './terminal/tmux.js'
export type { TmuxInterpreterOptions, TmuxTerminal, TmuxTerminalOptions } from './terminal/tmux.js'
export {
  listWeztermPanes,
  openWezterm,
  WeztermCommandFailed,
  weztermCli,
  weztermInterpreter,
} from './terminal/wezterm.js'
export type {
  WeztermInterpreterOptions,
  WeztermPaneInfo,
  WeztermTerminal,
  WeztermTerminalOptions,
} from './terminal/wezterm.js'
export { claudeWeztermInterpreter, openClaudeWezterm, TmuxMissing } from './terminal/claude.js'
export { openClaudePty, THROWAWAY_KEY } from './terminal/claudePty.js'
export type { ClaudePtyOptions, ClaudePtyTerminal } from './terminal/claudePty.js'
export { approvalRules, promptRisk } from './terminal/approvals.js'
export type {
  PermissionDecision,
  ApprovalPolicy,
  ApprovalRule,
  Approvals,
  PermissionRequest,
} from './terminal/approvals.js'
export type {
  ClaudeBackend,
  ClaudeWeztermInterpreterOptions,
  ClaudeWeztermTerminal,
} from './terminal/claude.js'

/**
 * The interpreters shipped with Nerve that need no settings: `function`,
 * `graph`, `bash`, `toolset` and `mcp-server` (whose MCP SDK is loaded only
 * when a server is used). Add your own kinds, and the LLM interpreter with
 * its providers, by building a registry from these and yours.
 *
 * @category interpreters
 * @example
 * import { defaultInterpreters } from 'nerve-agents'
 * import { interpreters } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const echo = { kind: 'echo', execute: (_node: unknown, ctx: { input: unknown }) => ctx.input }
 * const mine = interpreters(...defaultInterpreters.values(), echo)
 * assert.deepStrictEqual([...mine.keys()], ['function', 'graph', 'bash', 'toolset', 'mcp-server', 'echo'])
 */
export const defaultInterpreters: InterpreterRegistry = interpreters(
  functionInterpreter,
  graphInterpreter,
  bashInterpreter,
  toolsetInterpreter,
  mcpServerInterpreter(),
)
