/**
 * What a node's model may do, and who says yes: each node's llm
 * interpreter with its tools behind the workflow policy (planning-mode
 * refusals, high-risk actions, file locks, written files stored as
 * artifacts), and approval requests routed to the network's approving
 * node (the Orchestrator role) before a human.
 *
 * @internal
 */
import { addStep, graph } from '../../graph/index.js'
import {
  llmInterpreter,
  workspaceTools,
  type PermissionDecision,
  type PermissionRequest,
} from '../../interpreters/index.js'
import type { Interpreter } from '../../node/index.js'
import { run } from '../../runtime/index.js'
import { roles, type AgentRole } from '../model/AgentRole.js'
import { answerOf } from './firing.js'
import type { NetworkNode } from '../model/Network.js'
import { policyTools } from './policy.js'
import { sessionNodeOf } from './providers.js'
import type { ApprovalRequest } from '../../runtime/index.js'
import { spawnTools } from './spawn.js'
import { type RunState } from './runState.js'

/** The llm interpreter of the run: each node's own, made on first use. */
export const llmDispatch = (s: RunState): Interpreter => ({
  kind: 'llm',
  execute: (node, ctx) => llmOf(s, node.id).execute!(node, ctx),
})

const llmOf = (s: RunState, nodeId: string): Interpreter => {
  const known = s.llm.get(nodeId)
  if (known !== undefined) return known
  const root = s.options.root
  const tools = policyTools(s.options.tools ?? workspaceTools({ root }), {
    nodeId,
    root,
    workflow: () => s.net.workflow,
    assignment: () => s.net.nodes[nodeId]?.assignment,
    ...(s.options.risk !== undefined && { risk: s.options.risk }),
    approve: (action, target, reason) => approve(s, nodeId, action, target, reason),
    onRefused: (e) => {
      s.emit({
        type: 'refused',
        nodeId,
        tool: e.tool,
        target: e.target,
        reason: e.reason,
      })
    },
    onWrite: async (path, content) => {
      const store = s.options.artifacts
      if (store === undefined) return
      const type = path.startsWith('docs/') ? 'plan' : 'file'
      const info = await store.put(type, content, { name: path, nodeId })
      s.nodes.get(nodeId)?.written.push({ type: info.type, ref: info.ref })
    },
    locks: { locks: s.locks, owner: nodeId },
  })
  const made = llmInterpreter({
    providers: s.providers,
    tools: [...tools, ...spawnTools(s, nodeId)],
    clock: s.clock,
  })
  s.llm.set(nodeId, made)
  return made
}

/**
 * Asks for an approval through run control. When the network has an
 * approving node (the Orchestrator role) other than the asker, the request
 * is routed to it first: it is sent the request as a message and its
 * answer (APPROVE or DENY) decides; an answer that says neither leaves the
 * request to a human until it times out.
 */
const approve = async (
  s: RunState,
  nodeId: string,
  action: string,
  target: string,
  reason: string,
  details: Partial<ApprovalRequest> = {},
): Promise<boolean> => {
  const { request, decided } = s.control.ask(
    { ...details, runId: s.runId, nodeId, action, target, reason },
    { timeoutMs: s.options.approvalTimeoutMs ?? 300_000, signal: s.abort.signal },
  )
  s.emit({ type: 'approval', request })
  const approver = Object.values(s.net.nodes).find(
    (n) =>
      n.id !== nodeId && (roles as Readonly<Record<string, AgentRole>>)[n.role]?.approves === true,
  )
  if (approver !== undefined) void askApprover(s, approver, request)
  const d = await decided
  s.emit({ type: 'decision', decision: d })
  return d.decision === 'approved'
}

const askApprover = async (
  s: RunState,
  approver: NetworkNode,
  request: ApprovalRequest,
): Promise<void> => {
  const text = `Approval request ${request.id} from "${request.nodeId}": ${request.action} ${JSON.stringify(request.target)} (${request.reason}). Answer APPROVE or DENY.`
  const asked = s.record(
    'message',
    request.nodeId,
    approver.id,
    { message: text, structured: { approval: request.id } },
    [],
  )
  try {
    const step = s.session.get(approver.id) ?? sessionNodeOf(approver, s.options.root)
    await s.agents.prepare(approver)
    const result = await run(
      addStep({ id: approver.id, node: step })(graph(`${approver.id}-approval`)),
      {
        input: text,
        interpreters: s.registry,
        session: s.session,
        clock: s.clock,
        signal: s.abort.signal,
        runId: `${s.runId}.${approver.id}.${request.id}`,
      },
    )
    const answer = answerOf(result.results[approver.id]).text
    s.record('status', approver.id, request.nodeId, { message: answer }, [asked.id])
    const verdict = /\bDENY\b/i.test(answer)
      ? 'deny'
      : /\bAPPROVE\b/i.test(answer)
        ? 'approve'
        : undefined
    if (verdict === undefined || !s.control.pending().some((p) => p.id === request.id)) return
    if (verdict === 'approve') s.control.approve(request.id, approver.id, answer)
    else s.control.deny(request.id, approver.id, answer)
  } catch {
    // the approver failed: the request waits for a human until it times out
  }
}

/**
 * A CLI agent's permission prompt, asked as the run's tool calls are (run
 * control, the approving node, a person); the decision is answered in the
 * agent's terminal.
 */
export const askPermission = (
  s: RunState,
  request: PermissionRequest,
  answer: (decision: PermissionDecision) => Promise<void>,
): void => {
  void approve(
    s,
    request.nodeId,
    request.tool,
    request.command ?? request.file ?? '',
    `the agent asks before ${request.tool} runs`,
    {
      ...(request.command !== undefined && { command: request.command }),
      ...(request.file !== undefined && { file: request.file }),
      options: request.options,
    },
  ).then((ok) => answer(ok ? 'approve' : 'deny'))
}
