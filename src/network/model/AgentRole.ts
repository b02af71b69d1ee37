import { UsageError } from '../../errors.js'
import type { NodeMode } from './Network.js'

/**
 * A template that specialises a node: its system instructions, the tools it
 * may use, and its loop behaviour (the mode it starts in, and whether it may
 * approve high-risk changes of others).
 *
 * @category roles
 */
export interface AgentRole {
  readonly name: string
  readonly system: string
  readonly tools: readonly string[]
  readonly mode: NodeMode
  /** Whether approval requests of the network are routed to nodes of this role. */
  readonly approves: boolean
}

const READ = ['read', 'glob', 'grep'] as const

/**
 * A role of your own; `tools` default to read-only ones, `mode` to
 * `interactive`.
 *
 * @category roles
 * @example
 * import { role } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const tester = role('Tester', { system: 'You write tests first.', tools: ['read', 'write'] })
 * assert.deepStrictEqual(tester.tools, ['read', 'write'])
 * assert.strictEqual(tester.mode, 'interactive')
 */
export const role = (
  name: string,
  options: {
    readonly system: string
    readonly tools?: readonly string[]
    readonly mode?: NodeMode
    readonly approves?: boolean
  },
): AgentRole => {
  const given: unknown = name
  if (typeof given !== 'string' || given === '') {
    throw new UsageError('role', `the name must be a non-empty string, got ${typeof given}`)
  }
  const opts = options as { readonly system?: unknown } | undefined
  if (typeof opts?.system !== 'string') {
    throw new UsageError('role', `role "${name}": system must be a string`)
  }
  const tools: unknown = options.tools ?? READ
  if (!Array.isArray(tools) || tools.some((t) => typeof t !== 'string')) {
    throw new UsageError('role', `role "${name}": tools must be an array of tool names`)
  }
  const mode = options.mode ?? 'interactive'
  if (!['interactive', 'auto'].includes(mode)) {
    throw new UsageError('role', `role "${name}": mode must be "interactive" or "auto"`)
  }
  return Object.freeze({
    name,
    system: options.system,
    tools: Object.freeze([...(tools as readonly string[])]),
    mode,
    approves: options.approves ?? false,
  })
}

/**
 * The built-in roles, by name: Orchestrator, Planner, Coder, Verifier,
 * DocReviewer.
 *
 * @category roles
 * @example
 * import { roles } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(Object.keys(roles), ['Orchestrator', 'Planner', 'Coder', 'Verifier', 'DocReviewer'])
 * assert.ok(roles.Planner.tools.includes('write'))
 * assert.strictEqual(roles.Orchestrator.approves, true)
 */
export const roles = Object.freeze({
  Orchestrator: role('Orchestrator', {
    system:
      'You oversee the task: split it, hand parts to the other agents, reconcile their changes, ' +
      'and decide on high-risk operations routed to you. Spawn sub-agents for parts of the ' +
      'work (spawn_agent), collect their answers (await_agent) and stop them when done (stop_agent).',
    tools: [...READ, 'spawn_agent', 'await_agent', 'stop_agent'],
    mode: 'auto',
    approves: true,
  }),
  Planner: role('Planner', {
    system:
      'You analyse the request, identify gaps and risks, ask clarifying questions, and write ' +
      'the plan under docs/.',
    tools: [...READ, 'write', 'edit'],
  }),
  Coder: role('Coder', {
    system: 'You implement the plan: small, tested changes. Say DONE when the work is complete.',
    tools: [...READ, 'write', 'edit', 'bash'],
    mode: 'auto',
  }),
  Verifier: role('Verifier', {
    system: 'You run the tests and linters and critique the outputs precisely.',
    tools: [...READ, 'bash'],
  }),
  DocReviewer: role('DocReviewer', {
    system: 'You check that the documentation says what the code does, and name each mismatch.',
    tools: [...READ],
  }),
}) satisfies Readonly<Record<string, AgentRole>>

/**
 * The name of a built-in role.
 *
 * @category roles
 */
export type AgentRoleName = keyof typeof roles

/**
 * A role given by value or by built-in name; an unknown name is a usage error.
 *
 * @internal
 */
export const roleOf = (api: string, given: AgentRole | string): AgentRole => {
  if (typeof given !== 'string') return given
  const found = (roles as Readonly<Record<string, AgentRole>>)[given]
  if (found === undefined) {
    throw new UsageError(
      api,
      `no built-in role "${given}" (there are: ${Object.keys(roles).join(', ')}); pass a role(...) value for your own`,
    )
  }
  return found
}
