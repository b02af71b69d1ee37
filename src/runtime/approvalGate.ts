/**
 * A graph step that waits for an approval: its run goes on only once a
 * person (or a policy) approves. As a step, its decision is recorded with
 * the run and a replay reads it back instead of asking again.
 */
import { fn, verdictOf, type ApprovalPolicyValue, type FunctionNode } from '../node/index.js'
import type { RunControl } from './RunControl.js'

/**
 * The request of an {@link approvalGate} was denied, timed out or was
 * cancelled: the step fails with it (its error policy decides the rest).
 *
 * @category run control
 */
export class ApprovalRefused extends Error {
  readonly _tag = 'ApprovalRefused'
  constructor(
    readonly requestId: string,
    readonly decision: 'denied' | 'timeout' | 'cancelled',
    readonly by: string,
    readonly note?: string,
  ) {
    super(
      `approval ${requestId} was ${decision === 'denied' ? `denied by ${by}` : decision === 'timeout' ? 'not given in time' : 'cancelled'}${note === undefined ? '' : `: ${note}`}`,
    )
    this.name = 'ApprovalRefused'
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

/**
 * A step that asks `control` for an approval of its input and answers the
 * input once approved — or the approver's edit of it (`arguments.input`);
 * a denial, a timeout or a cancelled run fails the step with
 * {@link ApprovalRefused}. The request names the run and the step's node.
 *
 * @category run control
 * @example
 * import { addStep, approvalGate, defaultInterpreters, graph, run, RunControl } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const control = new RunControl({ onRequest: (r) => control.approve(r.id, 'ana') })
 * const g = pipe(graph('release'), addStep({ id: 'gate', node: approvalGate('gate', { control }), input: 'v1.2' }))
 * const result = await run(g, { interpreters: defaultInterpreters })
 * assert.strictEqual(result.results['gate'], 'v1.2')
 */
export const approvalGate = (id: string, options: ApprovalGateOptions): FunctionNode => {
  const action = options.action ?? 'continue'
  return fn(id, async (ctx) => {
    const target = textOf(ctx.input)
    const { request, decided } = options.control.ask(
      {
        runId: ctx.runId,
        nodeId: id,
        action,
        target,
        reason: options.reason ?? 'the graph waits for an approval',
        arguments: { input: ctx.input },
      },
      {
        timeoutMs: options.timeoutMs ?? 10 * 60 * 1000,
        signal: ctx.signal,
        ...(options.policy !== undefined && {
          policy: verdictOf(options.policy),
        }),
        ...(options.policy?.onTimeout !== undefined && { onTimeout: options.policy.onTimeout }),
      },
    )
    const d = await decided
    if (d.decision === 'approved') {
      return d.arguments !== undefined && 'input' in d.arguments ? d.arguments.input : ctx.input
    }
    throw new ApprovalRefused(request.id, d.decision, d.by, d.note)
  })
}
