import * as t from 'io-ts'
import { nodeKind } from './NodeKind.js'
import { UsageError } from '../errors.js'
import { requireName } from './name.js'
import { makeNode, type Node, type NodeOptions } from './Node.js'
import { ApprovalPolicyCodec, type ApprovalPolicyValue } from './ApprovalPolicy.js'
import { bool, nonEmpty, optionsCodec, pattern, persistentNode } from './options.js'
import { weztermFields, type WeztermOptions } from './WeztermNode.js'

/**
 * The configuration of a Claude-on-WezTerm node, as given to
 * {@link claudeWezterm}: the WezTerm options of the pane (no `paneId`: the
 * node spawns `claude` itself) and the Claude Code session.
 *
 * @category claude nodes
 */
export interface ClaudeWeztermOptions extends Omit<WeztermOptions, 'paneId' | 'command'> {
  /** The `claude` executable. Default: `'claude'` on the PATH. */
  readonly claude?: string
  /** Arguments passed to `claude` after the session ones (e.g. `['--model', 'opus']`). */
  readonly args?: readonly string[]
  /** The session id (a UUID). Default: a new one, chosen by the interpreter when it starts. */
  readonly sessionId?: string
  /** Resume the existing session `sessionId` (`--resume`) instead of starting it. */
  readonly resume?: boolean
  /** Start as a fork of this session: `--resume <forkFrom> --fork-session --session-id <sessionId>`. */
  readonly forkFrom?: string
  /**
   * Where `claude` runs: `'wezterm'` (a WezTerm pane), `'tmux'` (a tmux
   * session of its own, which a person can attach to), `'pty'` (a plain
   * pseudo-terminal). Default: the interpreter's (`'auto'`: WezTerm when it
   * is there, else a PTY).
   */
  readonly backend?: ClaudeBackendChoice
  /**
   * How its permission prompts are decided where a run-control service asks
   * them (the daemon): rules first, then a person (`APPROVE`/`DENY`), then
   * the timeout's verdict. Not on WezTerm, whose screen Nerve does not watch.
   */
  readonly approvals?: ApprovalPolicyValue
}

/**
 * Where a Claude node runs, or `'auto'` to choose.
 *
 * @category claude nodes
 */
export type ClaudeBackendChoice = 'auto' | 'pty' | 'tmux' | 'wezterm'

/**
 * Claude Code (the `claude` CLI) in a WezTerm pane. Persistent. Build one with
 * {@link claudeWezterm}; the interpreter made by `claudeWeztermInterpreter()`
 * runs it.
 *
 * @category claude nodes
 */
export interface ClaudeWeztermNode extends Node, Omit<ClaudeWeztermOptions, keyof NodeOptions> {
  readonly kind: 'claude-wezterm'
  readonly persistent: true
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const requireUuid = (api: string, what: string, value: unknown): void => {
  if (value !== undefined && (typeof value !== 'string' || !UUID.test(value))) {
    throw new UsageError(api, `${what} must be a UUID, got ${JSON.stringify(value)}`)
  }
}

const uuid = pattern('Uuid', UUID, 'be a UUID')

/**
 * The io-ts codec of a Claude-on-WezTerm node's options: what
 * {@link claudeWezterm} checks and a graph file's `claude-wezterm` node is
 * decoded with. Unknown keys fail.
 *
 * @category wezterm nodes
 */
export const ClaudeWeztermOptionsCodec: t.Type<ClaudeWeztermOptions> =
  optionsCodec<ClaudeWeztermOptions>(
    'ClaudeWeztermOptions',
    {},
    {
      ...weztermFields,
      claude: nonEmpty,
      sessionId: uuid,
      resume: bool,
      forkFrom: uuid,
      backend: t.keyof({ auto: null, pty: null, tmux: null, wezterm: null }, 'ClaudeBackend'),
      approvals: ApprovalPolicyCodec,
    },
    [
      (o) =>
        o.resume === true && o.sessionId === undefined
          ? 'resume needs the sessionId to resume'
          : undefined,
      (o) =>
        o.resume === true && o.forkFrom !== undefined
          ? 'give resume or forkFrom, not both'
          : undefined,
    ],
  )

/**
 * A Claude-on-WezTerm node: `claude` run in a new WezTerm pane with a session
 * id (given, or chosen by the interpreter), read with the `claude` parser by
 * default. A pure description.
 *
 * @category claude nodes
 * @example
 * import { claudeWezterm } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const id = '123e4567-e89b-12d3-a456-426614174000'
 * const agent = claudeWezterm('agent', { sessionId: id, cwd: '/src', args: ['--model', 'opus'] })
 * assert.strictEqual(agent.kind, 'claude-wezterm')
 * assert.throws(() => claudeWezterm('x', { sessionId: 'nope' }), /must be a UUID/)
 */
export const claudeWezterm = (id: string, options: ClaudeWeztermOptions = {}): ClaudeWeztermNode =>
  persistentNode<ClaudeWeztermNode, ClaudeWeztermOptions>(
    'claude-wezterm',
    ClaudeWeztermOptionsCodec,
    'claudeWezterm',
  )(id, options)

/**
 * Whether a node is a Claude-on-WezTerm node.
 *
 * @category guards
 */
export const isClaudeWeztermNode = (node: Node): node is ClaudeWeztermNode =>
  node.kind === 'claude-wezterm'

/**
 * The arguments `claude` is started with for a node, given the session id
 * it runs under (the node's own, or the one the interpreter chose):
 * `--session-id <id>`, or `--resume <id>` to resume it, or
 * `--resume <forkFrom> --fork-session --session-id <id>` for a fork; then the
 * node's `args`.
 *
 * @category claude nodes
 * @example
 * import { claudeWezterm } from 'nerve-agents'
 * import { claudeArgs } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const a = '123e4567-e89b-12d3-a456-426614174000'
 * const b = '223e4567-e89b-12d3-a456-426614174000'
 * const fork = claudeWezterm('f', { forkFrom: a, sessionId: b })
 * assert.deepStrictEqual(claudeArgs(b)(fork), ['--resume', a, '--fork-session', '--session-id', b])
 */
export const claudeArgs =
  (sessionId: string) =>
  (node: ClaudeWeztermNode): readonly string[] => {
    requireUuid('claudeArgs', 'the session id', sessionId)
    const session =
      node.forkFrom !== undefined
        ? ['--resume', node.forkFrom, '--fork-session', '--session-id', sessionId]
        : node.resume === true
          ? ['--resume', sessionId]
          : ['--session-id', sessionId]
    return Object.freeze([...session, ...(node.args ?? [])])
  }

/**
 * A fork of a Claude-on-WezTerm node: a new node `id` whose `claude` starts
 * with `--resume <old session> --fork-session --session-id <sessionId>`, so
 * it continues the conversation so far on a branch of its own, with metadata
 * `{ forked_from, fork_time }`. The node must know its session id (the
 * interpreter's `fork` fills in the one it chose). Pure: the time and the
 * new session id are given.
 *
 * @category claude nodes
 * @example
 * import { claudeWezterm } from 'nerve-agents'
 * import { forkClaudeWezterm } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const a = '123e4567-e89b-12d3-a456-426614174000'
 * const b = '223e4567-e89b-12d3-a456-426614174000'
 * const fork = forkClaudeWezterm('agent-2', '2025-01-01T00:00:00.000Z', b)(claudeWezterm('agent', { sessionId: a }))
 * assert.deepStrictEqual([fork.forkFrom, fork.sessionId], [a, b])
 * assert.strictEqual(fork.metadata['forked_from'], 'agent')
 */
export const forkClaudeWezterm =
  (id: string, forkTime: string, sessionId: string) =>
  (node: ClaudeWeztermNode): ClaudeWeztermNode => {
    const api = 'forkClaudeWezterm'
    requireName(api, 'the new node id', id)
    if (typeof forkTime !== 'string') {
      throw new UsageError(api, `the fork time must be a string, got ${typeof forkTime}`)
    }
    requireUuid(api, 'the new session id', sessionId)
    if (!isClaudeWeztermNode(node)) {
      throw new UsageError(api, `expects a claude-wezterm node, got ${(node as Node).kind}`)
    }
    if (node.sessionId === undefined) {
      throw new UsageError(api, `node "${node.id}" has no sessionId to fork from`)
    }
    const { resume: _resume, ...rest } = node
    return makeNode<ClaudeWeztermNode>(
      {
        ...rest,
        id,
        forkFrom: node.sessionId,
        sessionId,
        metadata: { ...node.metadata, forked_from: node.id, fork_time: forkTime },
      },
      api,
    )
  }

/**
 * The `claude-wezterm` node kind, its data side: its options codec and builder, for graph files,
 * `CREATE_NODE` and stores.
 *
 * @category model
 */
export const claudeWeztermNodeKind = nodeKind({
  kind: 'claude-wezterm',
  summary:
    'Claude Code, unattended: in a WezTerm pane when WezTerm is installed, else in a pseudo-terminal Nerve owns',
  options: ClaudeWeztermOptionsCodec,
  build: (id, options) => claudeWezterm(id, options),
  persistent: true,
  aliases: ['claude', 'claude-code'],
})
