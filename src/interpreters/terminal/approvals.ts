/**
 * Permission prompts of CLI agents as approvals: what is asked, and how a
 * node's policy or a person answers it.
 */
import { globMatches, riskAtLeast, type Risk } from '../../node/index.js'

/**
 * A CLI agent asks whether a tool may run: the node, the tool, the command
 * or file it names, and the options its prompt offers.
 *
 * @category approvals
 */
export interface PermissionRequest {
  readonly nodeId: string
  readonly tool: string
  readonly command?: string
  readonly file?: string
  readonly options: readonly string[]
  /** How much harm the tool can do, when {@link promptRisk} knows it. */
  readonly risk?: Risk
}

/** The risk of the tools CLI agents ask about, by lower-cased name. */
const PROMPT_RISKS: ReadonlyMap<string, Risk> = new Map<string, Risk>([
  // Claude Code
  ['bash', 'high'],
  ['write', 'medium'],
  ['edit', 'medium'],
  ['multiedit', 'medium'],
  ['notebookedit', 'medium'],
  ['read', 'low'],
  ['glob', 'low'],
  ['grep', 'low'],
  ['ls', 'low'],
  ['webfetch', 'medium'],
  ['websearch', 'medium'],
  // Gemini CLI and Codex name theirs so
  ['shell', 'high'],
  ['run_shell_command', 'high'],
  ['write_file', 'medium'],
  ['replace', 'medium'],
  ['read_file', 'low'],
  ['list_directory', 'low'],
  ['search_file_content', 'low'],
  ['web_fetch', 'medium'],
  ['google_web_search', 'medium'],
  ['web_search', 'medium'],
])

/**
 * The risk of a tool a CLI agent's permission prompt names: running
 * commands is `high`; changing files, and reaching the network (a fetch
 * or a web search can carry data out in its URL or query, and brings
 * untrusted text in) `medium`; reading and searching local files `low`.
 * An MCP server's tool (`mcp__…`) is `high`: the prompt carries none of
 * its annotations, and the MCP spec's default is that a tool may destroy.
 * A tool it does not know otherwise is unrated.
 *
 * @category approvals
 * @example
 * import { promptRisk } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * assert.strictEqual(promptRisk('Bash'), 'high')
 * assert.strictEqual(promptRisk('Edit'), 'medium')
 * assert.strictEqual(promptRisk('WebFetch'), 'medium')
 * assert.strictEqual(promptRisk('Read'), 'low')
 * assert.strictEqual(promptRisk('mcp__github__create_issue'), 'high')
 * assert.strictEqual(promptRisk('Frobnicate'), undefined)
 */
export const promptRisk = (tool: string): Risk | undefined => {
  const name = tool.toLowerCase()
  return name.startsWith('mcp__') ? 'high' : PROMPT_RISKS.get(name)
}

/**
 * An answer to a {@link PermissionRequest}.
 *
 * @category approvals
 */
export type PermissionDecision = 'approve' | 'deny'

/**
 * A node's rule for permission prompts: a decision, or `'ask'` to leave it
 * to whoever `onRequest` asks.
 *
 * @category approvals
 */
export type ApprovalPolicy = (request: PermissionRequest) => PermissionDecision | 'ask'

/**
 * How a CLI-agent node answers permission prompts: its `policy` first;
 * what the policy leaves (`'ask'`, or no policy) goes to `onRequest`, which
 * answers when it knows (a face's APPROVE / DENY). With neither, the prompt
 * stays on screen and the execute waits (its timeout shows the prompt).
 * `onRequest` may return a function that withdraws the request (any other
 * value is ignored): it is
 * called when the prompt leaves the screen unanswered (a person answered
 * it in the terminal) or the terminal stops.
 *
 * @category approvals
 */
export interface Approvals {
  readonly policy?: ApprovalPolicy
  readonly onRequest?: (
    request: PermissionRequest,
    answer: (decision: PermissionDecision) => Promise<void>,
  ) => unknown
}

/**
 * One rule of {@link approvalRules}: the decision for requests of `tool`
 * (any, when absent) whose command or file matches `pattern` (a RegExp, or
 * a string with `*` for any run of characters; any, when absent) and whose
 * risk is at least `risk` (any, when absent; an unrated request matches no
 * rule that names one).
 *
 * @category approvals
 */
export interface ApprovalRule {
  readonly tool?: string
  readonly pattern?: RegExp | string
  readonly risk?: Risk
  readonly decision: PermissionDecision | 'ask'
}

/**
 * A policy from rules, the first that matches decides; none: `fallback`
 * (default `'ask'`). `always` and `never` are rules with no pattern.
 *
 * @category approvals
 * @example
 * import { approvalRules } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const policy = approvalRules([
 *   { tool: 'Bash', pattern: 'rm *', decision: 'deny' },
 *   { tool: 'Bash', pattern: /^(ls|cat) /, decision: 'approve' },
 * ])
 * assert.strictEqual(policy({ nodeId: 'a', tool: 'Bash', command: 'rm -rf /', options: [] }), 'deny')
 * assert.strictEqual(policy({ nodeId: 'a', tool: 'Bash', command: 'ls /', options: [] }), 'approve')
 * assert.strictEqual(policy({ nodeId: 'a', tool: 'Write', file: 'a.txt', options: [] }), 'ask')
 */
export const approvalRules =
  (rules: readonly ApprovalRule[], fallback: PermissionDecision | 'ask' = 'ask'): ApprovalPolicy =>
  (request) => {
    const target = request.command ?? request.file ?? ''
    for (const rule of rules) {
      if (rule.tool !== undefined && rule.tool !== request.tool) continue
      if (rule.risk !== undefined && !riskAtLeast(rule.risk)(request.risk)) continue
      const { pattern } = rule
      if (pattern !== undefined) {
        const matches =
          typeof pattern === 'string' ? globMatches(pattern)(target) : pattern.test(target)
        if (!matches) continue
      }
      return rule.decision
    }
    return fallback
  }

/**
 * Decides a request by `approvals`: the policy's decision is given to
 * `answer` at once; what it leaves goes to `onRequest`. Answers the
 * function that withdraws the request, if `onRequest` gave one.
 *
 * @internal
 */
export const approvalOf = (
  approvals: Approvals | undefined,
  request: PermissionRequest,
  answer: (decision: PermissionDecision) => Promise<void>,
): (() => void) | undefined => {
  const decision = approvals?.policy?.(request) ?? 'ask'
  if (decision !== 'ask') {
    void answer(decision)
    return undefined
  }
  const withdraw = approvals?.onRequest?.(request, answer)
  return typeof withdraw === 'function' ? (withdraw as () => void) : undefined
}
