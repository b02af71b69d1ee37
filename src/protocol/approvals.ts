/**
 * The codecs of approvals on the wire: a request waiting for a decision
 * (of a graph run, a node's own execute or a network), a decision, the
 * events that tell of both outside a network, and `LIST_APPROVALS`.
 */
import * as t from 'io-ts'
import { literals, struct } from './parts.js'

/**
 * An approval a run waits for: who asks (the node; the run — a graph run
 * or a network's id — or, for a node's own execute, its session), for what
 * (`action`: the tool; `target`: what it touches; the command, file or
 * arguments when known), how risky, and why.
 *
 * @category protocol
 */
export const ApprovalRequestCodec = struct(
  'ApprovalRequest',
  {
    id: t.string,
    nodeId: t.string,
    action: t.string,
    target: t.string,
    reason: t.string,
    time: t.number,
  },
  {
    runId: t.string,
    sessionId: t.string,
    command: t.string,
    file: t.string,
    arguments: t.UnknownRecord,
    risk: literals('Risk', ['low', 'medium', 'high']),
    options: t.readonlyArray(t.string),
  },
)

/**
 * An approval a run waits for.
 *
 * @category protocol
 */
export type ApprovalRequestJson = t.TypeOf<typeof ApprovalRequestCodec>

/**
 * How a request was decided: `approved` or `denied` (by a person, a node,
 * or `policy`), `timeout` or `cancelled`; with the note and the edited
 * arguments the approver gave.
 *
 * @category protocol
 */
export const ApprovalDecisionCodec = struct(
  'ApprovalDecision',
  {
    request: ApprovalRequestCodec,
    decision: literals('Decision', ['approved', 'denied', 'timeout', 'cancelled']),
    by: t.string,
    time: t.number,
  },
  { note: t.string, arguments: t.UnknownRecord },
)

/**
 * How a request was decided.
 *
 * @category protocol
 */
export type ApprovalDecisionJson = t.TypeOf<typeof ApprovalDecisionCodec>

/**
 * A request for approval outside a network (a CLI agent's permission
 * prompt, an LLM tool call, a graph's approval gate): `APPROVAL_REQUESTED`
 * with the request and the session it was asked in. A network's requests
 * come as its own events, which also carry `networkId`.
 *
 * @category protocol
 */
export const ApprovalRequestedEventCodec = struct('APPROVAL_REQUESTED', {
  type: t.literal('APPROVAL_REQUESTED'),
  time: t.string,
  sessionId: t.string,
  nodeId: t.string,
  request: ApprovalRequestCodec,
})

/**
 * A request for approval outside a network.
 *
 * @category protocol
 */
export type ApprovalRequestedEvent = t.TypeOf<typeof ApprovalRequestedEventCodec>

/**
 * A request outside a network was decided: `APPROVAL_DECIDED`.
 *
 * @category protocol
 */
export const ApprovalDecidedEventCodec = struct('APPROVAL_DECIDED', {
  type: t.literal('APPROVAL_DECIDED'),
  time: t.string,
  sessionId: t.string,
  nodeId: t.string,
  decision: ApprovalDecisionCodec,
})

/**
 * A request outside a network was decided.
 *
 * @category protocol
 */
export type ApprovalDecidedEvent = t.TypeOf<typeof ApprovalDecidedEventCodec>

/**
 * What `LIST_APPROVALS` answers: the requests waiting, oldest first.
 *
 * @category protocol
 */
export const ListApprovalsCodec = struct('LIST_APPROVALS', {
  pending: t.readonlyArray(ApprovalRequestCodec),
})
