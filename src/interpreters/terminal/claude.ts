import { taggedError } from '../../errors.js'
import { randomUUID } from 'node:crypto'
import { accessSync, constants } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import {
  claudeArgs,
  forkClaudeWezterm,
  type ClaudeBackendChoice,
  type ClaudeWeztermNode,
} from '../../node/ClaudeNode.js'
import type { NodeState } from '../../node/NodeState.js'
import type { ForkContext } from '../../node/Interpreter.js'
import { makeNode } from '../../node/Node.js'
import { wezterm, type WeztermNode } from '../../node/WeztermNode.js'
import type { Clock } from '../../runtime/Clock.js'
import type { ParsedResponse } from '../parsers/ParsedResponse.js'
import {
  terminalInterpreter,
  type ExecuteOptions,
  type TerminalDecorator,
  type TerminalInterpreter,
} from './Terminal.js'
import { openWezterm, type WeztermPaneInfo, type WeztermTerminal } from './wezterm.js'
import { claudeHome, openClaudePty, type ClaudePtyOptions } from './claudePty.js'

/** Claude Code answers take minutes: the default wait of an execute. */
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000
/** Claude Code redraws the line carrying the prompt at the top of its input box, above the cursor. */
const CONTEXT_LINES = 4

/**
 * The live terminal of a Claude-on-WezTerm node: a WezTerm terminal running
 * `claude`, with the session it runs under.
 *
 * @category terminals
 */
export interface ClaudeWeztermTerminal extends WeztermTerminal {
  /** Where it runs: a WezTerm pane. */
  readonly backend: 'wezterm'
  /** The Claude Code session id `claude` was started with. */
  readonly sessionId: string
  /** The WezTerm terminal inside, whose `recordsHistory` is `false`: this wrapper owns the history. */
  readonly inner: WeztermTerminal
}

class ClaudeTerminal implements ClaudeWeztermTerminal {
  readonly recordsHistory = true
  readonly backend = 'wezterm' as const
  constructor(
    readonly inner: WeztermTerminal,
    readonly sessionId: string,
  ) {}
  get nodeId(): string {
    return this.inner.nodeId
  }
  get state(): NodeState {
    return this.inner.state
  }
  get paneId(): number | undefined {
    return this.inner.paneId
  }
  get spawned(): boolean {
    return this.inner.spawned
  }
  start(): Promise<void> {
    return this.inner.start()
  }
  stop(): Promise<void> {
    return this.inner.stop()
  }
  execute(input: string, options?: ExecuteOptions): Promise<ParsedResponse> {
    return this.inner.execute(input, options)
  }
  executeStream(
    input: string,
    options?: ExecuteOptions,
  ): AsyncIterable<string, ParsedResponse, undefined> {
    return this.inner.executeStream(input, options)
  }
  write(data: string): Promise<void> {
    return this.inner.write(data)
  }
  read(): string {
    return this.inner.read()
  }
  readTail(lines: number): string {
    return this.inner.readTail(lines)
  }
  clearBuffer(): void {
    this.inner.clearBuffer()
  }
  interrupt(): Promise<void> {
    return this.inner.interrupt()
  }
  focus(): Promise<void> {
    return this.inner.focus()
  }
  paneInfo(): Promise<WeztermPaneInfo> {
    return this.inner.paneInfo()
  }
}

/** The WezTerm node that runs `claude` for a Claude node under `sessionId`. */
const innerNode = (node: ClaudeWeztermNode, sessionId: string): WeztermNode => {
  const pick = <K extends keyof ClaudeWeztermNode>(k: K) =>
    node[k] === undefined ? {} : { [k]: node[k] }
  return wezterm(node.id, {
    command: node.claude ?? 'claude',
    args: claudeArgs(sessionId)(node),
    parser: node.parser ?? 'claude',
    timeoutMs: node.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...pick('cwd'),
    ...pick('env'),
    ...pick('wezterm'),
    ...pick('scrollbackLines'),
    ...pick('quietMs'),
  })
}

/**
 * Opens the terminal of a Claude-on-WezTerm node (not started yet): a WezTerm
 * terminal (see `openWezterm`) running `claude` with the node's session id,
 * or a new one (`crypto.randomUUID()`) when the node has none; read with the
 * `claude` parser unless the node names another, each execute waiting up to
 * 10 minutes by default. Each execute also reads the few lines above the
 * cursor, where Claude Code redraws the prompt it was sent. The inner
 * WezTerm terminal does not record history (`recordsHistory: false`): the
 * wrapper does, so nothing is logged twice.
 *
 * @category terminals
 */
export const openClaudeWezterm = (node: ClaudeWeztermNode): ClaudeWeztermTerminal => {
  const sessionId = node.sessionId ?? randomUUID()
  const inner = openWezterm(innerNode(node, sessionId), {
    recordsHistory: false,
    contextLines: CONTEXT_LINES,
  })
  return new ClaudeTerminal(inner, sessionId)
}

/**
 * Options of {@link claudeWeztermInterpreter}.
 *
 * @category interpreters
 */
export interface ClaudeWeztermInterpreterOptions extends ClaudePtyOptions {
  /** Where `fork` reads the time it stamps. Default: the system clock. */
  readonly clock?: Pick<Clock, 'now'>
  /** Wraps each terminal it opens (e.g. `withHistory`, to record the node's history). */
  readonly decorate?: TerminalDecorator
  /**
   * Where `claude` runs: a WezTerm pane, a tmux server of its own, or a
   * plain PTY (no WezTerm, no tmux needed; see `openClaudePty`). A node's
   * own `backend` wins. Default `'auto'`: WezTerm when the node names a
   * `wezterm` executable or one is on the PATH, else a PTY.
   */
  readonly backend?: ClaudeBackendChoice
}

/**
 * Where a Claude node runs.
 *
 * @category claude nodes
 */
export type ClaudeBackend = Exclude<ClaudeBackendChoice, 'auto'>

/**
 * A Claude node asked for tmux (`backend: 'tmux'`) where no `tmux` is on
 * the PATH.
 *
 * @category errors
 */
export class TmuxMissing extends taggedError('TmuxMissing', 'unsupported')<{
  readonly nodeId: string
}> {
  constructor(nodeId: string) {
    super(`Claude node "${nodeId}" runs on tmux (backend "tmux"), and no tmux is on the PATH`, {
      nodeId,
    })
  }
}

/** Whether `name` is an executable in a directory of the PATH. */
const onPath = (name: string): boolean =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => d !== '' && isAbsolute(d))
    .some((d) => {
      try {
        accessSync(join(d, name), constants.X_OK)
        return true
      } catch {
        return false
      }
    })

/**
 * The interpreter of Claude-on-WezTerm nodes (see {@link openClaudeWezterm}).
 * `fork(node, id)` returns a node that starts `claude --resume <session>
 * --fork-session --session-id <new UUID>` (the session being the node's, or
 * the one its live terminal, `ctx.live`, chose); the session starts it.
 *
 * @category interpreters
 * @example
 * import { defaultInterpreters } from 'nerve-agents'
 * import { interpreters } from 'nerve-agents/core'
 * import { claudeWeztermInterpreter } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const registry = interpreters(...defaultInterpreters.values(), claudeWeztermInterpreter())
 * assert.ok(registry.has('claude-wezterm'))
 */
export const claudeWeztermInterpreter = (
  options: ClaudeWeztermInterpreterOptions = {},
): TerminalInterpreter<ClaudeWeztermNode> => {
  const backendOf = (node: ClaudeWeztermNode): ClaudeBackend => {
    const chosen = node.backend ?? options.backend ?? 'auto'
    if (chosen !== 'auto') return chosen
    return node.wezterm !== undefined || onPath('wezterm') ? 'wezterm' : 'pty'
  }
  let home = options.home
  const open = (node: ClaudeWeztermNode) => {
    const backend = backendOf(node)
    if (backend === 'wezterm') return openClaudeWezterm(node)
    if (backend === 'tmux' && !onPath('tmux')) throw new TmuxMissing(node.id)
    home ??= claudeHome()
    return openClaudePty(node, node.sessionId ?? randomUUID(), home, options, backend)
  }
  const base = terminalInterpreter<ClaudeWeztermNode>(
    'claude-wezterm',
    open,
    (id, time) => forkClaudeWezterm(id, time, randomUUID()),
    options,
  )
  return Object.freeze({
    ...base,
    fork(node: ClaudeWeztermNode, id: string, ctx?: ForkContext): Promise<ClaudeWeztermNode> {
      const live = ctx?.live as { readonly sessionId?: string } | undefined
      const known =
        node.sessionId === undefined && live?.sessionId !== undefined
          ? makeNode<ClaudeWeztermNode>({ ...node, sessionId: live.sessionId }, 'fork')
          : node
      return base.fork(known, id, ctx)
    },
  })
}
