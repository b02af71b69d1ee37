import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { claudeArgs, type ClaudeWeztermNode } from '../../node/ClaudeNode.js'
import type { NodeState } from '../../node/NodeState.js'
import { pty } from '../../node/PtyNode.js'
import { claudeBinary, claudeEnv, prepareClaudeHome } from '../agents/claudeCode.js'
import type { ModelProxy } from '../agents/proxy/modelProxy.js'
import type { ParsedResponse } from '../parsers/ParsedResponse.js'
import type { ScreenState } from '../parsers/ScreenState.js'
import {
  approvalOf,
  type Approvals,
  type PermissionDecision,
  type PermissionRequest,
} from './approvals.js'
import { openPty, type PtyTerminal } from './pty.js'
import type { ExecuteOptions } from './Terminal.js'

/** How long a permission prompt must stand unchanged before it is answered. */
const SETTLE_MS = 200
/** How long an answered prompt may stay before the answer is sent again. */
const RETRY_MS = 1000
/**
 * The quiet window of a Claude node: the state, the answer and the box must
 * stay as they are this long (frames that change nothing else, such as its
 * animated logo, do not count).
 */
const QUIET_MS = 15
/** Claude Code answers take minutes: the default wait of an execute. */
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000
/** The key Claude Code is given when a node runs it on a model proxy: any key, the proxy holds the real one. */
export const THROWAWAY_KEY = `sk-ant-api03-nerve-proxy-${'0'.repeat(60)}AA`

/**
 * Options of a Claude node run in a plain PTY (see {@link openClaudePty}).
 *
 * @category claude nodes
 */
export interface ClaudePtyOptions {
  /** The model proxy its calls go through (as agent `node.id`). Default: none (Claude Code's own API settings). */
  readonly proxy?: ModelProxy
  /** The key it gets. Default: a throwaway one with a proxy, else `ANTHROPIC_API_KEY`. */
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
  /** Where it runs: `'pty'` (a plain pseudo-terminal, no WezTerm needed). */
  readonly backend: 'pty'
  /** The home it runs with. */
  readonly home: string
  /** What shows on the screen now, as the Claude parser reads it. */
  screenState(): ScreenState | undefined
}

class ClaudePty implements ClaudePtyTerminal {
  readonly backend = 'pty' as const
  readonly recordsHistory = false
  private inner: PtyTerminal | undefined
  private last: ScreenState | undefined
  private settle: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly node: ClaudeWeztermNode,
    readonly sessionId: string,
    readonly home: string,
    private readonly options: ClaudePtyOptions,
  ) {}

  get nodeId(): string {
    return this.node.id
  }
  get state(): NodeState {
    return this.inner?.state ?? 'created'
  }
  get pid(): number | undefined {
    return this.inner?.pid
  }

  screenState(): ScreenState | undefined {
    return this.last
  }

  private readonly onScreenState = (state: ScreenState): void => {
    this.last = state
    clearTimeout(this.settle)
    if (state._tag !== 'permission') return
    // Claude Code reads keys only once its menu is drawn and settled: a key sent on the first frame is lost.
    this.settle = setTimeout(() => {
      if (this.last === state) this.ask(state)
    }, SETTLE_MS)
  }

  private ask(state: Extract<ScreenState, { _tag: 'permission' }>): void {
    const request: PermissionRequest = Object.freeze({
      nodeId: this.node.id,
      tool: state.tool,
      ...(state.command === undefined ? {} : { command: state.command }),
      ...(state.file === undefined ? {} : { file: state.file }),
      options: state.options,
    })
    approvalOf(this.options.approvals, request, (decision) => this.answer(state, decision, 0))
  }

  /**
   * Answers the permission prompt on screen: Enter takes its first option
   * (Yes), Escape declines. Sent again (at most twice) if the very prompt
   * still shows a second later.
   */
  private async answer(
    state: ScreenState,
    decision: PermissionDecision,
    tries: number,
  ): Promise<void> {
    if (this.last !== state || this.inner === undefined || this.state === 'stopped') return
    await this.inner.write(decision === 'approve' ? '\r' : '\x1b')
    if (tries >= 2) return
    setTimeout(() => {
      void this.answer(state, decision, tries + 1).catch(() => undefined)
    }, RETRY_MS)
  }

  async start(): Promise<void> {
    const { node, options } = this
    const cwd = node.cwd ?? process.cwd()
    const apiKey =
      options.apiKey ??
      (options.proxy !== undefined ? THROWAWAY_KEY : process.env.ANTHROPIC_API_KEY)
    if (options.ownConfig !== true) {
      await prepareClaudeHome({ home: this.home, projects: [cwd], apiKey: apiKey ?? '' })
    }
    const args = claudeArgs(this.sessionId)(node)
    const env = {
      ...claudeEnv({
        home: options.ownConfig === true ? undefined : this.home,
        baseUrl: options.proxy?.baseUrl(node.id),
        apiKey,
      }),
      ...node.env,
    }
    this.inner = openPty(
      pty(node.id, {
        command: node.claude ?? claudeBinary(),
        args: args.includes('--permission-mode') ? args : [...args, '--permission-mode', 'default'],
        cwd,
        env,
        cols: 120,
        rows: 40,
        parser: node.parser ?? 'claude',
        timeoutMs: node.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        quietMs: node.quietMs ?? QUIET_MS,
      }),
      {
        onScreenState: this.onScreenState,
        ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      },
    )
    await this.inner.start()
  }

  private started(): PtyTerminal {
    if (this.inner === undefined) throw new Error(`Claude node "${this.nodeId}": start it first`)
    return this.inner
  }

  stop(): Promise<void> {
    clearTimeout(this.settle)
    return this.inner?.stop() ?? Promise.resolve()
  }
  reset(): Promise<void> {
    return this.started().reset()
  }
  execute(input: string, options?: ExecuteOptions): Promise<ParsedResponse> {
    return this.started().execute(input, options)
  }
  executeStream(
    input: string,
    options?: ExecuteOptions,
  ): AsyncIterable<string, ParsedResponse, undefined> {
    return this.started().executeStream(input, options)
  }
  write(data: string): Promise<void> {
    return this.started().write(data)
  }
  read(): string {
    return this.inner?.read() ?? ''
  }
  readTail(lines: number): string {
    return this.inner?.readTail(lines) ?? ''
  }
  screen(): string {
    return this.inner?.screen() ?? ''
  }
  clearBuffer(): void {
    this.inner?.clearBuffer()
  }
  interrupt(): Promise<void> {
    return this.inner?.interrupt() ?? Promise.resolve()
  }
}

/** A home for Claude nodes: a temporary directory, made once per caller. */
export const claudeHome = (): string => mkdtempSync(join(tmpdir(), 'nerve-claude-'))

/**
 * Opens a Claude node's terminal on a plain PTY (not started: call
 * `start`). `start` prepares the home (unless `ownConfig`): onboarding
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
): ClaudePtyTerminal => new ClaudePty(node, sessionId, home, options)
