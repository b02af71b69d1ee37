/**
 * The kinds Nerve ships, each its data side with its interpreter side: the
 * one list an engine's commands, the CLI, the REPL and the MCP server
 * derive theirs from. Adding a kind: its node module (the data side), its
 * interpreter module, and one entry here.
 */
import { graphNodeKind } from '../graph/graphKind.js'
import { approvalGateInterpreter, approvalNodeKind } from '../runtime/approvalGate.js'
import { RunControl } from '../runtime/RunControl.js'
import { bashNodeKind } from '../node/BashNode.js'
import { claudeWeztermNodeKind } from '../node/ClaudeNode.js'
import { functionNodeKind } from '../node/FunctionNode.js'
import type { Interpreter } from '../node/Interpreter.js'
import { llmNodeKind } from '../node/LlmNode.js'
import { mcpServerNodeKind } from '../node/McpServerNode.js'
import { ptyNodeKind } from '../node/PtyNode.js'
import { tmuxNodeKind } from '../node/TmuxNode.js'
import { toolsetNodeKind } from '../node/ToolsetNode.js'
import { weztermNodeKind } from '../node/WeztermNode.js'
import { bashInterpreter, bashInterpreterWith } from './bash.js'
import { functionInterpreter } from './function.js'
import { graphInterpreter } from './graph.js'
import { kindsOf, withInterpreter, type KindEnv, type Kinds } from './Kind.js'
import { llmInterpreter } from './llm/llmInterpreter.js'
import { mcpServerInterpreter } from './mcpServer.js'
import { claudeWeztermInterpreter } from './terminal/claude.js'
import { ptyInterpreter } from './terminal/pty.js'
import { tmuxInterpreter } from './terminal/tmux.js'
import { weztermInterpreter } from './terminal/wezterm.js'
import { toolsetInterpreter } from './toolset.js'

/** A terminal interpreter's options from the engine's: its clock and history decorator. */
const terminalOptions = (env: KindEnv) => ({
  ...(env.clock !== undefined && { clock: env.clock }),
  ...(env.decorate !== undefined && { decorate: env.decorate }),
})

const TERMINAL = { terminal: true, fork: true } as const

/**
 * Every kind Nerve ships: function, graph, bash, pty, tmux, wezterm,
 * claude-wezterm (`claude`), llm, toolset and mcp-server. An engine runs
 * these and the kinds it is given (`createEngine({ kinds })`).
 *
 * @category kinds
 * @example
 * import { builtinKinds } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * assert.strictEqual(builtinKinds.resolve('claude')!.kind, 'claude-wezterm')
 * assert.ok(builtinKinds.get('pty')!.capabilities.terminal)
 * assert.ok(builtinKinds.get('llm')!.capabilities.conversation)
 * assert.ok(!builtinKinds.get('toolset')!.creatable)
 */
export const builtinKinds: Kinds = kindsOf(
  withInterpreter(functionNodeKind, (): Interpreter => functionInterpreter as Interpreter),
  withInterpreter(graphNodeKind, (): Interpreter => graphInterpreter as Interpreter),
  withInterpreter(
    bashNodeKind,
    (env): Interpreter =>
      (env.onBashRun === undefined
        ? bashInterpreter
        : bashInterpreterWith({
            ...(env.clock !== undefined && { clock: env.clock }),
            onRun: env.onBashRun,
          })) as Interpreter,
    { fork: true },
  ),
  withInterpreter(ptyNodeKind, (env) => ptyInterpreter(terminalOptions(env)) as never, TERMINAL),
  withInterpreter(tmuxNodeKind, (env) => tmuxInterpreter(terminalOptions(env)) as never, TERMINAL),
  withInterpreter(
    weztermNodeKind,
    (env) => weztermInterpreter(terminalOptions(env)) as never,
    TERMINAL,
  ),
  withInterpreter(
    claudeWeztermNodeKind,
    (env) =>
      claudeWeztermInterpreter({
        ...terminalOptions(env),
        ...(env.onPermission !== undefined && { approvals: { onRequest: env.onPermission } }),
      }) as never,
    TERMINAL,
  ),
  withInterpreter(
    llmNodeKind,
    (env) =>
      llmInterpreter({
        providers: env.providers,
        tools: env.tools,
        ...(env.clock !== undefined && { clock: env.clock }),
        ...(env.control !== undefined && {
          approvals: {
            control: env.control,
            ...(env.sessionId !== undefined && { sessionId: env.sessionId }),
          },
        }),
      }) as never,
    { conversation: true, fork: true },
  ),
  withInterpreter(approvalNodeKind, (env) =>
    approvalGateInterpreter(env.control ?? new RunControl()),
  ),
  withInterpreter(toolsetNodeKind, () => toolsetInterpreter as Interpreter),
  withInterpreter(mcpServerNodeKind, () => mcpServerInterpreter() as never),
)
