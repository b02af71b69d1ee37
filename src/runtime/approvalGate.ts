/**
 * A graph step that waits for an approval: its run goes on only once a
 * person (or a policy) approves. As a step, its decision is recorded with
 * the run and a replay reads it back instead of asking again.
 */
import { taggedError } from '../errors.js'
import * as t from 'io-ts'
import {
  ApprovalPolicyCodec,
  fn,
  verdictOf,
  type ApprovalPolicyValue,
  type FunctionNode,
  type Interpreter,
  type Node,
  type NodeContext,
} from '../node/index.js'
import { nodeKind } from '../node/NodeKind.js'
import { makeNode } from '../node/Node.js'
import { decodeOptions, millis, nonEmpty, optionsCodec } from '../node/options.js'
import type { RunControl } from './RunControl.js'

/**
 * The request of an {@link approvalGate} was denied, timed out or was
 * cancelled: the step fails with it (its error policy decides the rest).
 *
 * @category run control
 */
export class ApprovalRefused extends taggedError('ApprovalRefused', 'failed')<{
  readonly requestId: string
  readonly decision: 'denied' | 'timeout' | 'cancelled'
  readonly by: string
  readonly note: string | undefined
}> {
  constructor(
    requestId: string,
    decision: 'denied' | 'timeout' | 'cancelled',
    by: string,
    note?: string,
  ) {
    super(
      `approval ${requestId} was ${decision === 'denied' ? `denied by ${by}` : decision === 'timeout' ? 'not given in time' : 'cancelled'}${note === undefined ? '' : `: ${note}`}`,
      { requestId, decision, by, note },
    )
  }
}

/**
 * Options of {@link approvalGate}.
 *
 * @category run control
 */
export interface ApprovalGateOptions {
  /** Where it asks. */
  readonly control: RunControl
  /** What is to be approved (the request's `action`). Default: `'continue'`. */
  readonly action?: string
  /** Why (the request's `reason`). Default: `'the graph waits for an approval'`. */
  readonly reason?: string
  /** How long a person has. Default: 10 minutes. */
  readonly timeoutMs?: number
  /** Decides before anyone is asked (matched against the action and the input as text). */
  readonly policy?: ApprovalPolicyValue
}

const textOf = (u: unknown): string =>
  typeof u === 'string' ? u : u === undefined ? '' : JSON.stringify(u)

/** What a gate asks with, besides where. */
type GateSpec = Omit<ApprovalGateOptions, 'control'>

/** Asks `control` for an approval of the step's input; the input (or the approver's edit) once approved. */
const passGate = async (
  control: RunControl,
  nodeId: string,
  spec: GateSpec,
  ctx: NodeContext,
): Promise<unknown> => {
  const action = spec.action ?? 'continue'
  const { request, decided } = control.ask(
    {
      runId: ctx.runId,
      nodeId,
      action,
      target: textOf(ctx.input),
      reason: spec.reason ?? 'the graph waits for an approval',
      arguments: { input: ctx.input },
    },
    {
      timeoutMs: spec.timeoutMs ?? 10 * 60 * 1000,
      signal: ctx.signal,
      ...(spec.policy !== undefined && { policy: verdictOf(spec.policy) }),
      ...(spec.policy?.onTimeout !== undefined && { onTimeout: spec.policy.onTimeout }),
    },
  )
  const d = await decided
  if (d.decision === 'approved') {
    return d.arguments !== undefined && 'input' in d.arguments ? d.arguments.input : ctx.input
  }
  throw new ApprovalRefused(request.id, d.decision, d.by, d.note)
}

/**
 * A step that asks `control` for an approval of its input and answers the
 * input once approved — or the approver's edit of it (`arguments.input`);
 * a denial, a timeout or a cancelled run fails the step with
 * {@link ApprovalRefused}. The request names the run and the step's node.
 *
 * @category run control
 * @example
 * import { addStep, defaultInterpreters, graph, run } from 'nerve-agents'
 * import { approvalGate, RunControl } from 'nerve-agents/runtime'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const control = new RunControl({ onRequest: (r) => control.approve(r.id, 'ana') })
 * const g = pipe(graph('release'), addStep({ id: 'gate', node: approvalGate('gate', { control }), input: 'v1.2' }))
 * const result = await run(g, { interpreters: defaultInterpreters })
 * assert.strictEqual(result.results['gate'], 'v1.2')
 */
export const approvalGate = (id: string, options: ApprovalGateOptions): FunctionNode => {
  const { control, ...spec } = options
  return fn(id, (ctx) => passGate(control, id, spec, ctx))
}

const GateCodec = optionsCodec<GateSpec & { readonly approvals?: ApprovalPolicyValue }>(
  'ApprovalGateOptions',
  {},
  { action: nonEmpty, reason: t.string, timeoutMs: millis(false), approvals: ApprovalPolicyCodec },
)

/**
 * The `approval` node kind: a gate written as data (graph files), run by
 * {@link approvalGateInterpreter}; not made by `CREATE_NODE`.
 *
 * @category run control
 */
export const approvalNodeKind = nodeKind({
  kind: 'approval',
  summary: 'a graph step that waits until a person (or a policy) approves it',
  options: GateCodec,
  build: (id, options) =>
    makeNode({ id, kind: 'approval', persistent: false, metadata: {}, ...options }),
  creatable: false,
})

/**
 * The interpreter of `approval` nodes — a gate written as data, as in a
 * graph file on the daemon: `{ "kind": "approval", "action"?, "reason"?,
 * "timeoutMs"?, "approvals"? }` (a policy). Each step asks `control` as
 * {@link approvalGate} does.
 *
 * @category run control
 * @example
 * import { addStep, defaultInterpreters, graph, makeNode, run } from 'nerve-agents'
 * import { interpreters } from 'nerve-agents/core'
 * import { approvalGateInterpreter, RunControl } from 'nerve-agents/runtime'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const control = new RunControl({ onRequest: (r) => control.deny(r.id, 'ben', 'freeze') })
 * const gate = makeNode({ id: 'gate', kind: 'approval', persistent: false, metadata: {}, action: 'ship' })
 * const g = pipe(graph('release'), addStep({ id: 'gate', node: gate, input: 'v2' }))
 * const registry = interpreters(...defaultInterpreters.values(), approvalGateInterpreter(control))
 * await assert.rejects(run(g, { interpreters: registry }), /denied by ben: freeze/)
 */
export const approvalGateInterpreter = (control: RunControl): Interpreter => ({
  kind: 'approval',
  execute: (node, ctx) => {
    const {
      id,
      kind: _k,
      persistent: _p,
      metadata: _m,
      ...options
    } = node as Node & Record<string, unknown>
    const { approvals, ...spec } = decodeOptions('approval', id, GateCodec, options)
    return passGate(
      control,
      id,
      { ...spec, ...(approvals !== undefined && { policy: approvals }) },
      ctx,
    )
  },
})
