/**
 * An approval policy as a plain value: the rules a node carries (in its
 * options, in a graph file, over the wire) that decide a request for
 * approval before anyone is asked. Pure: matching a rule is a string test.
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { jsonSchemaOf, withJsonSchema } from '../codec/index.js'
import { millis, nonEmpty, optionsCodec } from './options.js'

/**
 * What a policy says of a request: approve it, deny it, or ask a person.
 *
 * @category approvals
 */
export type ApprovalVerdict = 'approve' | 'deny' | 'ask'

/**
 * How much harm an action can do, as the tool (or the CLI agent's prompt)
 * that asks rates it: reading is `low`, changing files `medium`, running
 * commands `high`.
 *
 * @category approvals
 */
export type Risk = 'low' | 'medium' | 'high'

/** The risks, least first: a rule's `risk` matches its own and those after it. */
const RISKS: readonly Risk[] = Object.freeze(['low', 'medium', 'high'])

/**
 * The codec of a {@link Risk}.
 *
 * @category approvals
 */
export const RiskCodec: t.Type<Risk> = t.keyof({ low: null, medium: null, high: null }, 'Risk')

/**
 * Whether `risk` is at least `least`: `high` is at least `medium`; an
 * unrated request (`undefined`) is at least nothing.
 *
 * @category approvals
 * @example
 * import { riskAtLeast } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.strictEqual(riskAtLeast('medium')('high'), true)
 * assert.strictEqual(riskAtLeast('medium')('low'), false)
 * assert.strictEqual(riskAtLeast('low')(undefined), false)
 */
export const riskAtLeast =
  (least: Risk) =>
  (risk: Risk | undefined): boolean =>
    risk !== undefined && RISKS.indexOf(risk) >= RISKS.indexOf(least)

/**
 * One rule: the verdict for requests of `tool` (any, when absent) whose
 * target (command, file or arguments) matches `pattern` — `*` stands for any
 * run of characters; any target, when absent — and whose risk is at least
 * `risk` (any request, when absent; a request nobody rated matches no rule
 * that names a risk).
 *
 * @category approvals
 */
export interface ApprovalRuleValue {
  readonly tool?: string
  readonly pattern?: string
  readonly risk?: Risk
  readonly decision: ApprovalVerdict
}

/**
 * How a node's requests for approval are decided: the first rule that
 * matches; none matches: `fallback` (default `'ask'`). A request a person
 * is asked waits `timeoutMs` (default: the owner's, 10 minutes for a CLI
 * agent), then `onTimeout` decides (default `'deny'`).
 *
 * @category approvals
 */
export interface ApprovalPolicyValue {
  readonly rules?: readonly ApprovalRuleValue[]
  readonly fallback?: ApprovalVerdict
  readonly timeoutMs?: number
  readonly onTimeout?: 'approve' | 'deny'
}

const Verdict = t.keyof({ approve: null, deny: null, ask: null }, 'ApprovalVerdict')

const RuleCodec = optionsCodec<ApprovalRuleValue>(
  'ApprovalRule',
  { decision: Verdict },
  { tool: nonEmpty, pattern: t.string, risk: RiskCodec },
)

const rulesCodec: t.Type<readonly ApprovalRuleValue[]> = withJsonSchema(
  new t.Type<readonly ApprovalRuleValue[]>(
    'ApprovalRules',
    (u): u is readonly ApprovalRuleValue[] => Array.isArray(u) && u.every((r) => RuleCodec.is(r)),
    (u, c) => {
      if (!Array.isArray(u)) return t.failure(u, c, 'must be an array of rules')
      const errors: t.ValidationError[] = []
      u.forEach((r: unknown, i) => {
        const d = RuleCodec.validate(r, t.appendContext(c, String(i), RuleCodec, r))
        if (E.isLeft(d)) errors.push(...d.left)
      })
      return errors.length > 0 ? t.failures(errors) : t.success(u as ApprovalRuleValue[])
    },
    t.identity,
  ),
  () => ({ type: 'array', items: jsonSchemaOf(RuleCodec) }),
)

/**
 * The codec of an {@link ApprovalPolicyValue}: unknown keys fail, with
 * their path.
 *
 * @category approvals
 */
export const ApprovalPolicyCodec: t.Type<ApprovalPolicyValue> = optionsCodec<ApprovalPolicyValue>(
  'ApprovalPolicy',
  {},
  {
    rules: rulesCodec,
    fallback: Verdict,
    timeoutMs: millis(false),
    onTimeout: t.keyof({ approve: null, deny: null }, 'OnTimeout'),
  },
)

/**
 * Whether `text` matches a glob where `*` is any run of characters (and
 * nothing else is special).
 *
 * @category approvals
 * @example
 * import { globMatches } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.strictEqual(globMatches('rm *')('rm -rf build'), true)
 * assert.strictEqual(globMatches('rm *')('ls'), false)
 */
export const globMatches =
  (glob: string) =>
  (text: string): boolean =>
    new RegExp(
      `^${glob
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      's',
    ).test(text)

/**
 * The verdict of a policy on a request for `action` (a rule's `tool`) at
 * `target`, rated `risk`: the first matching rule's, else the fallback's
 * (`'ask'` by default).
 *
 * @category approvals
 * @example
 * import { verdictOf } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const policy = {
 *   rules: [
 *     { tool: 'Bash', pattern: 'rm *', decision: 'deny' as const },
 *     { risk: 'medium' as const, decision: 'ask' as const },
 *   ],
 *   fallback: 'approve' as const,
 * }
 * assert.strictEqual(verdictOf(policy)({ action: 'Bash', target: 'rm -rf /' }), 'deny')
 * assert.strictEqual(verdictOf(policy)({ action: 'write', target: 'a.txt', risk: 'medium' }), 'ask')
 * assert.strictEqual(verdictOf(policy)({ action: 'read', target: 'a.txt', risk: 'low' }), 'approve')
 */
export const verdictOf =
  (policy: ApprovalPolicyValue | undefined) =>
  (request: {
    readonly action: string
    readonly target: string
    readonly risk?: Risk | undefined
  }): ApprovalVerdict => {
    for (const rule of policy?.rules ?? []) {
      if (rule.tool !== undefined && rule.tool !== request.action) continue
      if (rule.risk !== undefined && !riskAtLeast(rule.risk)(request.risk)) continue
      if (rule.pattern !== undefined && !globMatches(rule.pattern)(request.target)) continue
      return rule.decision
    }
    return policy?.fallback ?? 'ask'
  }
