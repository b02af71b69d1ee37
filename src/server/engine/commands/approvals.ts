import type { ApprovalRequest } from '../../../runtime/index.js'
import { UnknownApproval } from '../approvals.js'
import type { Core } from '../Core.js'
import type { Commands } from './context.js'

type ApprovalMethods = 'APPROVE' | 'DENY' | 'LIST_APPROVALS'

/** The waiting request `requestId`; with `networkId`, it must be that network's. */
const waiting = (core: Core, requestId: string, networkId: string | undefined): ApprovalRequest => {
  const runId = networkId === undefined ? undefined : core.networks.run(networkId).runId
  const request = core.control.pending().find((r) => r.id === requestId)
  if (request === undefined || (runId !== undefined && request.runId !== runId)) {
    throw new UnknownApproval(requestId)
  }
  return request
}

/** Approvals of every run, node and network: list the waiting ones, approve, deny. */
export const approvalCommands: Commands<ApprovalMethods> = {
  APPROVE: (p, { core }) => {
    const r = waiting(core, p.requestId, p.networkId)
    core.control.approve(r.id, p.by ?? 'user', p.note, p.arguments)
    return Promise.resolve({ decided: true })
  },

  DENY: (p, { core }) => {
    const r = waiting(core, p.requestId, p.networkId)
    core.control.deny(r.id, p.by ?? 'user', p.note)
    return Promise.resolve({ decided: true })
  },

  LIST_APPROVALS: (p, { core }) => {
    const runId = p.networkId === undefined ? undefined : core.networks.run(p.networkId).runId
    const pending = core.control
      .pending()
      .filter(
        (r) =>
          (runId === undefined || r.runId === runId) &&
          (p.nodeId === undefined || r.nodeId === p.nodeId) &&
          (p.sessionId === undefined || r.sessionId === p.sessionId),
      )
    return Promise.resolve({ pending })
  },
}
