/**
 * The engine's run control: one {@link RunControl} for every approval the
 * engine's runs ask — a CLI agent's permission prompt, an LLM tool call a
 * policy holds, a graph's approval gate, a network's high-risk action. A
 * request outside a network is told to every face as `APPROVAL_REQUESTED`
 * (and its decision as `APPROVAL_DECIDED`); a network's requests are told
 * as the network's own events, as before.
 */
import type { PermissionDecision, PermissionRequest } from '../../interpreters/index.js'
import { verdictOf, type ApprovalPolicyValue, type Node } from '../../node/index.js'
import { RunControl, type ApprovalDecision, type Clock } from '../../runtime/index.js'
import type { EngineEvent } from '../../protocol/index.js'
import { taggedError } from '../../errors.js'
import { EngineError } from './errors.js'

/** How long a permission prompt waits for a person when the node's policy names no time: 10 minutes. */
export const PROMPT_TIMEOUT_MS = 10 * 60 * 1000

/**
 * No approval request with this id is waiting (or not of the network named).
 *
 * @category engine errors
 */
export class UnknownApproval extends taggedError('UnknownApproval', 'notFound', EngineError)<{
  readonly requestId: string
}> {
  constructor(requestId: string) {
    super(`no approval request "${requestId}" is waiting`, { requestId, path: '/requestId' })
  }
}

/** What the engine's run control needs of the engine. */
export interface ControlDeps {
  readonly clock: Clock
  readonly defaultSession: string
  readonly now: () => string
  readonly publish: (event: EngineEvent) => void
  /** Whether a run id is a network's (its requests are told by the network's events). */
  readonly isNetwork: (runId: string) => boolean
}

/** The engine's run control, publishing the requests and decisions outside networks. */
export const engineControl = (deps: ControlDeps): RunControl => {
  const told = (runId: string | undefined): boolean => runId === undefined || !deps.isNetwork(runId)
  return new RunControl({
    clock: deps.clock,
    onRequest: (request) => {
      if (!told(request.runId)) return
      deps.publish({
        type: 'APPROVAL_REQUESTED',
        time: deps.now(),
        sessionId: request.sessionId ?? deps.defaultSession,
        nodeId: request.nodeId,
        request,
      })
    },
    onDecision: (decision) => {
      if (!told(decision.request.runId)) return
      deps.publish({
        type: 'APPROVAL_DECIDED',
        time: deps.now(),
        sessionId: decision.request.sessionId ?? deps.defaultSession,
        nodeId: decision.request.nodeId,
        decision,
      })
    },
  })
}

/** The approval policy a node carries in its options (a Claude node's `approvals`). */
const policyOf = (node: Node | undefined): ApprovalPolicyValue | undefined =>
  (node as { readonly approvals?: ApprovalPolicyValue } | undefined)?.approvals

/**
 * Asks `control` about a CLI agent's permission prompt in session
 * `sessionId`: the node's own policy decides first, then a person, then its
 * timeout. `answer` gets the decision (a cancelled request gets none);
 * answers the function that withdraws the request.
 */
export const askPermission = (
  control: RunControl,
  sessionId: string,
  node: Node | undefined,
  request: PermissionRequest,
  answer: (decision: PermissionDecision) => Promise<void>,
): (() => void) => {
  const policy = policyOf(node)
  const { request: asked, decided } = control.ask(
    {
      sessionId,
      nodeId: request.nodeId,
      action: request.tool,
      target: request.command ?? request.file ?? '',
      reason: `the agent asks before ${request.tool} runs`,
      ...(request.command !== undefined && { command: request.command }),
      ...(request.file !== undefined && { file: request.file }),
      ...(request.risk !== undefined && { risk: request.risk }),
      options: request.options,
    },
    {
      timeoutMs: policy?.timeoutMs ?? PROMPT_TIMEOUT_MS,
      policy: verdictOf(policy),
      ...(policy?.onTimeout !== undefined && { onTimeout: policy.onTimeout }),
    },
  )
  void decided.then((d: ApprovalDecision) => {
    if (d.decision === 'cancelled') return
    return answer(d.decision === 'approved' ? 'approve' : 'deny')
  })
  return () => {
    control.withdraw(asked.id)
  }
}
