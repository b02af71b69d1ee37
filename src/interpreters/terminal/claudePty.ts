import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { claudeArgs, type ClaudeWeztermNode } from '../../node/ClaudeNode.js'
import { pty, type PtyNode } from '../../node/PtyNode.js'
import { claudeBinary, claudeEnv, prepareClaudeHome } from '../agents/claudeCode.js'
import type { ModelProxy } from '../agents/proxy/modelProxy.js'
import type { ScreenState } from '../parsers/ScreenState.js'
import { AgentTerminal } from './agentTerminal.js'
import type { Approvals } from './approvals.js'
import type { PtyTerminal } from './pty.js'

/**
 * The quiet window of a Claude node: the state, the answer and the box must
 * stay as they are this long (frames that change nothing else, such as its
 * animated logo, do not count).
 */
const QUIET_MS = 15
/** Claude Code answers take minutes: the default wait of an execute. */
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000

/**
 * Options of a Claude node run in a plain PTY (see {@link openClaudePty}).
 *
 * @category claude nodes
 */
export interface ClaudePtyOptions {
  /** The model proxy its calls go through (as agent `node.id`). Default: none (Claude Code's own API settings). */
  readonly proxy?: Pick<ModelProxy, 'baseUrl' | 'key'>
  /** The key it gets. Default: the proxy's key for the node with a proxy (the real one stays with the proxy), else `ANTHROPIC_API_KEY`. */
  readonly apiKey?: string
  /**
   * The home Nerve prepares for it (`HOME`: `~/.claude.json` with the
   * first-run questions answered). Default: a temporary directory made on
   * first use. Forks share it: the conversation they resume is kept there.
   */
  readonly home?: string
  /** Run with the user's own home and config instead (nothing prepared). Default: false. */
  readonly ownConfig?: boolean
  /** How permission prompts are answered. Default: asked through `onRequest`, else left on screen. */
  readonly approvals?: Approvals
  /** Milliseconds between SIGTERM and SIGKILL when stopping. */
  readonly killGraceMs?: number
}

/**
 * The live terminal of a Claude node: the session it runs under, the
 * terminal it runs on, and its screen.
 *
 * @category claude nodes
 */
export interface ClaudePtyTerminal extends PtyTerminal {
  readonly sessionId: string
  /**
   * Where it runs: `'pty'` (a plain pseudo-terminal, no WezTerm needed) or
   * `'tmux'` (a tmux server of its own, which the PTY is a client of: a
   * person can attach to it, see {@link ClaudePtyTerminal.attach}).
   */
  readonly backend: 'pty' | 'tmux'
  /** On tmux, the command that attaches a person's terminal to it. */
  readonly attach: string | undefined
  /** The home it runs with. */
  readonly home: string
  /** What shows on the screen now, as the Claude parser reads it. */
  screenState(): ScreenState | undefined
}

/** The tmux session a Claude node runs in, on a server of its own. */
const TMUX_SESSION = 'claude'

class ClaudePty extends AgentTerminal implements ClaudePtyTerminal {
  readonly recordsHistory = false
  /** The tmux server's socket (`tmux -S`), in the home, on tmux. */
  private readonly socket: string | undefined

  constructor(
    node: ClaudeWeztermNode,
    readonly sessionId: string,
    readonly home: string,
    options: ClaudePtyOptions,
    readonly backend: 'pty' | 'tmux' = 'pty',
  ) {
    const socket =
      backend === 'tmux'
        ? join(home, `tmux-${node.id}-${randomBytes(4).toString('hex')}.sock`)
        : undefined
    super({
      nodeId: node.id,
      program: 'Claude',
      prepare: async () => {
        const made = await prepare(node, sessionId, home, options)
        return socket === undefined ? made : onTmux(made, socket)
      },
      // Enter takes the prompt's first option (Yes), Escape declines
      keys: { approve: '\r', deny: '\x1b' },
      ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
      retries: 2,
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    })
    this.socket = socket
  }

  get attach(): string | undefined {
    return this.socket === undefined
      ? undefined
      : `tmux -S ${this.socket} attach -t ${TMUX_SESSION}`
  }

  override async stop(): Promise<void> {
    if (this.socket !== undefined && this.state !== 'created') {
      await new Promise<void>((resolve) => {
        execFile('tmux', ['-S', this.socket!, 'kill-server'], () => {
          resolve()
        })
      })
    }
    await super.stop()
    if (this.socket !== undefined) await rm(this.socket, { force: true })
  }
}

/**
 * The PTY node that runs `node`'s program in a new tmux server (`-S
 * socket`) instead, the PTY being its client: the server inherits the
 * client's environment, has no status line and reads Escape at once (the
 * key that declines a permission prompt).
 */
const onTmux = async (node: PtyNode, socket: string): Promise<PtyNode> => {
  const conf = socket.replace(/\.sock$/, '.conf')
  await writeFile(conf, 'set -g status off\nset -g escape-time 0\nset -g history-limit 0\n', {
    mode: 0o600,
  })
  const { id, kind: _kind, persistent: _p, metadata: _m, command, args, ...rest } = node
  return pty(id, {
    ...rest,
    command: 'tmux',
    args: [
      '-S',
      socket,
      '-f',
      conf,
      'new-session',
      '-s',
      TMUX_SESSION,
      '--',
      command,
      ...(args ?? []),
    ],
  })
}

/** Prepares the home (unless `ownConfig`) and makes the PTY node Claude Code runs in. */
const prepare = async (
  node: ClaudeWeztermNode,
  sessionId: string,
  home: string,
  options: ClaudePtyOptions,
): Promise<PtyNode> => {
  const cwd = node.cwd ?? process.cwd()
  // The key it will see is the one approved in its home: the node's own env names it first.
  const apiKey =
    options.apiKey ??
    node.env?.ANTHROPIC_API_KEY ??
    (options.proxy !== undefined ? options.proxy.key(node.id) : process.env.ANTHROPIC_API_KEY)
  if (options.ownConfig !== true) {
    await prepareClaudeHome({ home, projects: [cwd], apiKey: apiKey ?? '' })
  }
  const args = claudeArgs(sessionId)(node)
  const env = {
    ...claudeEnv({
      home: options.ownConfig === true ? undefined : home,
      baseUrl: options.proxy?.baseUrl(node.id),
      apiKey,
    }),
    ...node.env,
  }
  return pty(node.id, {
    command: node.claude ?? claudeBinary(),
    args: args.includes('--permission-mode') ? args : [...args, '--permission-mode', 'default'],
    cwd,
    env,
    cols: 120,
    rows: 40,
    parser: node.parser ?? 'claude',
    timeoutMs: node.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    quietMs: node.quietMs ?? QUIET_MS,
  })
}

/** A home for Claude nodes: a temporary directory, made once per caller. */
export const claudeHome = (): string => mkdtempSync(join(tmpdir(), 'nerve-claude-'))

/**
 * Opens a Claude node's terminal on a plain PTY, or on a tmux server of
 * its own with `backend: 'tmux'` (not started: call `start`). `start` prepares the home (unless `ownConfig`): onboarding
 * done, the key approved, the working directory trusted; then runs the
 * Claude Code binary (see `claudeBinary`) with the node's session
 * arguments and `--permission-mode default` (unless the node's args name
 * a mode), pointed at the proxy when there is one, with telemetry, error
 * reports and update checks off, read with the `claude` parser (a screen
 * parser: a dialog nothing answers fails the start with its screen).
 * A permission prompt becomes a {@link PermissionRequest}, answered by
 * `approvals`.
 *
 * @category claude nodes
 */
export const openClaudePty = (
  node: ClaudeWeztermNode,
  sessionId: string,
  home: string,
  options: ClaudePtyOptions = {},
  backend: 'pty' | 'tmux' = 'pty',
): ClaudePtyTerminal => new ClaudePty(node, sessionId, home, options, backend)
