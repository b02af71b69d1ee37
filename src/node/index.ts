export { expandName, isNameTemplate, namePattern, showInvalidName, validateName } from './name.js'
export type { InvalidName, NamePlaceholders } from './name.js'
export { isNode, makeNode } from './Node.js'
export type { Node, NodeOptions } from './Node.js'
export {
  canTransition,
  legalTransitions,
  nodeStates,
  showIllegalTransition,
  transition,
} from './NodeState.js'
export type { IllegalTransition, NodeState } from './NodeState.js'
export { nodeInfo } from './NodeInfo.js'
export type { NodeInfo } from './NodeInfo.js'
export { nodeRegistry } from './NodeRegistry.js'
export type { NodeRegistry, StateCell } from './NodeRegistry.js'
export type { Cancellation, NodeContext, Upstream, UsageReport } from './Interpreter.js'
export { interpreters } from './Interpreter.js'
export type {
  ChunkStream,
  ForkContext,
  ForkPoint,
  Interpreter,
  InterpreterRegistry,
  LifecycleContext,
  StopContext,
} from './Interpreter.js'
export { fn, functionNode, functionNodeKind, isFunctionNode } from './FunctionNode.js'
export type { FunctionNode, NodeFunction } from './FunctionNode.js'
export { bash, bashNodeKind, BashOptionsCodec, forkBash, isBashNode } from './BashNode.js'
export type { BashNode, BashOptions } from './BashNode.js'
export { forkPty, isPtyNode, pty, ptyNodeKind, PtyOptionsCodec } from './PtyNode.js'
export type { PtyNode, PtyOptions } from './PtyNode.js'
export { forkTmux, isTmuxNode, tmux, tmuxNodeKind, TmuxOptionsCodec } from './TmuxNode.js'
export type { TmuxNode, TmuxOptions } from './TmuxNode.js'
export {
  forkWezterm,
  isWeztermNode,
  wezterm,
  weztermNodeKind,
  WeztermOptionsCodec,
} from './WeztermNode.js'
export type { WeztermNode, WeztermOptions } from './WeztermNode.js'
export {
  claudeArgs,
  claudeWezterm,
  claudeWeztermNodeKind,
  ClaudeWeztermOptionsCodec,
  forkClaudeWezterm,
  isClaudeWeztermNode,
} from './ClaudeNode.js'
export type { ClaudeBackendChoice, ClaudeWeztermNode, ClaudeWeztermOptions } from './ClaudeNode.js'
export { forkLlm, isLlmNode, llm, llmNodeKind, LlmOptionsCodec } from './LlmNode.js'
export type { LlmNode, LlmOptions, ToolChoice } from './LlmNode.js'
export {
  builtinToolNames,
  isToolsetNode,
  toolset,
  toolsetNodeKind,
  ToolsetOptionsCodec,
} from './ToolsetNode.js'
export type { BuiltinToolName, ToolsetNode, ToolsetOptions, ToolValue } from './ToolsetNode.js'
export {
  isMcpServerNode,
  mcpServer,
  mcpServerNodeKind,
  McpServerOptionsCodec,
} from './McpServerNode.js'
export type { McpServerNode, McpServerOptions } from './McpServerNode.js'
export { nodeKind, nodeKindsOf } from './NodeKind.js'
export type { BuildContext, NodeKind, NodeKindSpec, NodeKinds } from './NodeKind.js'
export { nodeKinds } from './nodeKinds.js'
export {
  ApprovalPolicyCodec,
  globMatches,
  RiskCodec,
  riskAtLeast,
  verdictOf,
} from './ApprovalPolicy.js'
export type {
  ApprovalPolicyValue,
  ApprovalRuleValue,
  ApprovalVerdict,
  Risk,
} from './ApprovalPolicy.js'

/** @internal */
export { optionProblem } from './options.js'
