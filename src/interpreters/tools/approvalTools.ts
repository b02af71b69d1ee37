/**
 * Tool calls that wait for an approval: each call a policy does not let
 * through is asked of run control, and runs only once approved (with the
 * arguments the approver edited, if any).
 */
import { verdictOf, type ApprovalPolicyValue } from '../../node/index.js'
import type { RunControl } from '../../runtime/index.js'
import type { Tool, ToolOutput } from './Tool.js'

/**
 * Where and how the calls of one node's tools are asked (see
 * {@link withApprovals}).
 *
 * @category tools
 */
export interface ToolApprovals {
  readonly control: RunControl
  /** The node whose model calls the tools. */
  readonly nodeId: string
  readonly sessionId?: string
  /** Which calls need an approval; a call no rule names runs when `fallback` is absent. */
  readonly policy: ApprovalPolicyValue
  /** How long a person has to decide when the policy names no time. Default 10 minutes. */
  readonly timeoutMs?: number
}

/** What a call touches, as the policy matches it: its command, else its path, else its arguments. */
const targetOf = (input: Readonly<Record<string, unknown>>): string =>
  typeof input.command === 'string'
    ? input.command
    : typeof input.path === 'string'
      ? input.path
      : JSON.stringify(input)

const refused = (why: string): ToolOutput => ({ content: why, is_error: true })

/**
 * The tools, each call first decided by `approvals.policy` (its tool's
 * name, its target, and the tool's `risk`, which the request carries too):
 * a rule's `'approve'` runs it, `'deny'` refuses it, `'ask'` asks run control (an
 * `APPROVAL_REQUESTED` on the daemon) and waits; a call no rule names runs
 * unless the policy's `fallback` says otherwise. A refused call answers
 * the model an error result saying who refused and why.
 *
 * @category tools
 * @example
 * import { tool } from 'nerve-agents'
 * import { withApprovals } from 'nerve-agents/interpreters'
 * import { RunControl } from 'nerve-agents/runtime'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * const echo = tool(
 *   { name: 'echo', description: 'says the command', input_schema: { type: 'object' } },
 *   t.type({ command: t.string }),
 *   ({ command }) => Promise.resolve(command),
 * )
 * const control = new RunControl()
 * const [guarded] = withApprovals([echo], {
 *   control,
 *   nodeId: 'dev',
 *   policy: { rules: [{ tool: 'echo', pattern: 'rm *', decision: 'deny' }] },
 * })
 * const ctx = { signal: new AbortController().signal, toolUseId: 't1', depth: 0 }
 * assert.strictEqual(await guarded!.run({ command: 'hi' }, ctx), 'hi')
 * assert.deepStrictEqual(await guarded!.run({ command: 'rm -rf /' }, ctx), {
 *   content: 'the call was not approved (denied by policy)',
 *   is_error: true,
 * })
 */
export const withApprovals = (tools: readonly Tool[], approvals: ToolApprovals): Tool[] => {
  const { policy } = approvals
  const verdict = verdictOf({ ...policy, fallback: policy.fallback ?? 'approve' })
  return tools.map((t) => ({
    definition: t.definition,
    ...(t.risk !== undefined && { risk: t.risk }),
    run: async (input, ctx) => {
      const { name } = t.definition
      const { risk } = t
      const target = targetOf(input)
      if (verdict({ action: name, target, risk }) === 'approve') return t.run(input, ctx)
      const { decided } = approvals.control.ask(
        {
          nodeId: approvals.nodeId,
          ...(approvals.sessionId !== undefined && { sessionId: approvals.sessionId }),
          action: name,
          target,
          reason: `${approvals.nodeId}'s policy holds ${name} calls for approval`,
          ...(typeof input.command === 'string' && { command: input.command }),
          ...(typeof input.path === 'string' && { file: input.path }),
          ...(risk !== undefined && { risk }),
          arguments: input,
        },
        {
          timeoutMs: policy.timeoutMs ?? approvals.timeoutMs ?? 10 * 60 * 1000,
          signal: ctx.signal,
          policy: verdict,
          ...(policy.onTimeout !== undefined && { onTimeout: policy.onTimeout }),
        },
      )
      const d = await decided
      if (d.decision === 'approved') return t.run(d.arguments ?? input, ctx)
      const why = d.note === undefined ? '' : `: ${d.note}`
      return refused(`the call was not approved (${d.decision} by ${d.by}${why})`)
    },
  }))
}
