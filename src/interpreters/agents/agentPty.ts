/**
 * Codex CLI and Gemini CLI nodes on a plain PTY: a home the node prepares
 * (or the user's own config), the model proxy, and permission prompts
 * answered as approvals.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pty, type PtyNode } from '../../node/PtyNode.js'
import type { ScreenState } from '../parsers/ScreenState.js'
import { AgentTerminal } from '../terminal/agentTerminal.js'
import type { Approvals, PermissionDecision } from '../terminal/approvals.js'
import type { PtyTerminal } from '../terminal/pty.js'
import { codexBinary, codexEnv, codexOverrides, prepareCodexHome } from './codexCli.js'
import { geminiBinary, geminiEnv, prepareGeminiHome } from './geminiCli.js'
import type { ModelProxy } from './proxy/modelProxy.js'

/**
 * The CLI agents {@link openAgentPty} runs.
 *
 * @category agent nodes
 */
export type AgentProgram = 'codex' | 'gemini'

/**
 * Options of {@link openAgentPty}.
 *
 * @category agent nodes
 */
export interface AgentPtyOptions {
  /** The model proxy its calls go through (as agent `node.id`). Default: none (the program's own API settings). */
  readonly proxy?: Pick<ModelProxy, 'baseUrl' | 'key'>
  /** The home Nerve prepares for it (`CODEX_HOME` / `GEMINI_CLI_HOME`). Default: a temporary directory. */
  readonly home?: string
  /** Run with the user's own config instead (nothing prepared; Codex gets `-c` overrides for the proxy). Default: false. */
  readonly ownConfig?: boolean
  /** The model to ask for (Codex default: its own; Gemini: `gemini-2.5-pro`). */
  readonly model?: string
  /** How permission prompts are answered. Default: asked through `onRequest`, else left on screen. */
  readonly approvals?: Approvals
  /** Arguments before the node's own (a fork's `['fork', id]` or `['--resume', id]`). */
  readonly leadingArgs?: readonly string[]
  /** Milliseconds between SIGTERM and SIGKILL when stopping. */
  readonly killGraceMs?: number
}

/**
 * The keys that answer a permission prompt: Codex takes `y` (Yes,
 * proceed) and Esc (No); Gemini CLI Enter (its first option, Allow once)
 * and Esc (No).
 *
 * @category agent nodes
 */
export const approvalKeys: Readonly<
  Record<AgentProgram, Readonly<Record<PermissionDecision, string>>>
> = Object.freeze({
  codex: Object.freeze({ approve: 'y', deny: '\x1b' }),
  gemini: Object.freeze({ approve: '\r', deny: '\x1b' }),
})

/**
 * A Codex or Gemini CLI node's terminal, with the home it runs with and
 * what its screen shows.
 *
 * @category agent nodes
 */
export interface AgentPtyTerminal extends PtyTerminal {
  readonly program: AgentProgram
  /** The home it runs with (undefined with the user's own config). */
  readonly home: string | undefined
  /** What shows on the screen now, as its parser reads it. */
  screenState(): ScreenState | undefined
}

/** The settings of `node` a PTY node made from it keeps (not its command, args, env, parser). */
const settingsOf = (node: PtyNode) => ({
  ...(node.cwd === undefined ? {} : { cwd: node.cwd }),
  ...(node.cols === undefined ? {} : { cols: node.cols }),
  ...(node.rows === undefined ? {} : { rows: node.rows }),
  ...(node.timeoutMs === undefined ? {} : { timeoutMs: node.timeoutMs }),
  ...(node.quietMs === undefined ? {} : { quietMs: node.quietMs }),
  metadata: node.metadata,
})

const setUp = async (
  program: AgentProgram,
  node: PtyNode,
  home: string | undefined,
  options: AgentPtyOptions,
): Promise<PtyNode> => {
  const cwd = node.cwd ?? process.cwd()
  const baseUrl = options.proxy?.baseUrl(node.id)
  const own = [...(options.leadingArgs ?? []), ...(node.args ?? [])]
  const model = options.model === undefined ? {} : { model: options.model }
  if (program === 'codex') {
    if (home !== undefined)
      await prepareCodexHome({
        home,
        projects: [cwd],
        ...model,
        ...(baseUrl === undefined ? {} : { baseUrl }),
      })
    const overrides = home === undefined ? codexOverrides(baseUrl) : []
    return pty(node.id, {
      ...settingsOf(node),
      command: node.command === 'codex' ? codexBinary() : node.command,
      args: [...overrides, ...own],
      env: { ...codexEnv({ home, proxyKey: options.proxy?.key(node.id) }), ...node.env },
      parser: node.parser ?? 'codex',
    })
  }
  if (home !== undefined) await prepareGeminiHome({ home, projects: [cwd], ...model })
  return pty(node.id, {
    ...settingsOf(node),
    command: node.command === 'gemini' ? geminiBinary() : node.command,
    args: own,
    env: {
      ...geminiEnv({
        home,
        baseUrl,
        apiKey:
          options.proxy === undefined ? process.env.GEMINI_API_KEY : options.proxy.key(node.id),
      }),
      ...node.env,
    },
    parser: node.parser ?? 'gemini',
  })
}

class AgentPty extends AgentTerminal implements AgentPtyTerminal {
  constructor(
    readonly program: AgentProgram,
    node: PtyNode,
    readonly home: string | undefined,
    options: AgentPtyOptions,
  ) {
    super({
      nodeId: node.id,
      program,
      prepare: () => setUp(program, node, home, options),
      keys: approvalKeys[program],
      ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    })
  }
}

/**
 * Opens a Codex or Gemini CLI node's terminal on a plain PTY (not started: call `start`). The
 * node is a PTY node whose `command` is the program's name (`codex`,
 * `gemini`) for the installed program
 * ({@link codexBinary}, {@link geminiBinary}) or a path of your own; its
 * `cwd` is the project. Unless `ownConfig`, the home is prepared first
 * ({@link prepareCodexHome}, {@link prepareGeminiHome}: trust, provider or
 * auth, telemetry off) so the program starts with no question; with
 * `ownConfig` it reads the user's `~/.codex` or `~/.gemini` (and Codex is
 * pointed at the proxy by `-c` overrides; Gemini by its base URL). With a
 * `proxy`, its model calls go through it as agent `node.id`. A permission
 * prompt on the screen, once it stood unchanged a moment, becomes a
 * `PermissionRequest` answered by `approvals` with the program's keys
 * ({@link approvalKeys}).
 *
 * @category agent nodes
 */
export const openAgentPty = (
  program: AgentProgram,
  node: PtyNode,
  options: AgentPtyOptions = {},
): AgentPtyTerminal => {
  const home =
    options.ownConfig === true
      ? undefined
      : (options.home ?? mkdtempSync(join(tmpdir(), `nerve-${program}-`)))
  return new AgentPty(program, node, home, options)
}
