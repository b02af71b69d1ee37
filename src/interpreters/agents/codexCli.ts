/**
 * What Codex CLI needs to start unattended: its executable, a home of its
 * own (`CODEX_HOME`) whose `config.toml` trusts the project and points
 * the model provider at the model proxy, and the environment to run it in.
 */
import { join } from 'node:path'
import { writeFileAtomic } from '../atomicWrite.js'
import { agentBinary } from './agentBinary.js'

/**
 * The Codex CLI executable: `NERVE_CODEX_BIN` when set, else the launcher
 * of the installed `@openai/codex` (it runs the native binary of its
 * platform package, which needs no postinstall), else `codex` on the PATH.
 *
 * @category codex nodes
 */
export const codexBinary = (): string =>
  agentBinary('NERVE_CODEX_BIN', '@openai/codex', 'bin/codex.js', 'codex')

/**
 * Options of {@link prepareCodexHome}.
 *
 * @category codex nodes
 */
export interface CodexHomeOptions {
  /** The directory the node owns; it becomes `CODEX_HOME`. */
  readonly home: string
  /** The working directories to trust (`trust_level = "trusted"`): no folder trust question. */
  readonly projects: readonly string[]
  /**
   * The model API (the model proxy's URL for the agent); calls go to
   * `{baseUrl}/v1/responses`, with the key in {@link CODEX_KEY_VARIABLE}.
   */
  readonly baseUrl?: string
  /** The model to ask for. Default: Codex's. */
  readonly model?: string
  /**
   * Whether Codex may start its background app-server daemon (it copies its
   * binary into the home and runs `codex app-server` in a session of its
   * own, which outlives the terminal; the node's stop ends it). Default: false.
   */
  readonly daemon?: boolean
  /** Codex's `approval_policy` (`untrusted`, `on-request`, `never`). Default: Codex's (`on-request`): escalations ask. */
  readonly approvalPolicy?: string
}

/**
 * The variable Codex reads the model proxy's key from (`env_key` of the
 * provider `nerve`), sent as `Authorization: Bearer`.
 *
 * @category codex nodes
 */
export const CODEX_KEY_VARIABLE = 'NERVE_PROXY_KEY'

/** A TOML basic string (JSON's escapes are TOML's). */
const str = (s: string): string => JSON.stringify(s)

/**
 * The `config.toml` of a home a node owns: the model provider `nerve`
 * (`wire_api = "responses"`) at `baseUrl`, its key in
 * {@link CODEX_KEY_VARIABLE}, each project trusted, no
 * update check, no analytics, the screen reader question answered, and
 * no background app-server daemon (`features.daemon_auto_start = false`:
 * the TUI runs its app-server in its own process, so nothing outlives the
 * terminal, and no copy of the binary is installed into the home).
 *
 * @category codex nodes
 * @example
 * import { codexConfig } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const toml = codexConfig({ home: '/h', projects: ['/w'], baseUrl: 'http://127.0.0.1:4000/agents/a' })
 * assert.ok(toml.includes('base_url = "http://127.0.0.1:4000/agents/a/v1"'))
 * assert.ok(toml.includes('[projects."/w"]\ntrust_level = "trusted"'))
 */
export const codexConfig = (options: CodexHomeOptions): string => {
  const lines: string[] = []
  if (options.model !== undefined) lines.push(`model = ${str(options.model)}`)
  if (options.baseUrl !== undefined) lines.push('model_provider = "nerve"')
  if (options.approvalPolicy !== undefined)
    lines.push(`approval_policy = ${str(options.approvalPolicy)}`)
  lines.push('check_for_update_on_startup = false', '')
  if (options.baseUrl !== undefined) {
    lines.push(
      '[model_providers.nerve]',
      'name = "Nerve"',
      `base_url = ${str(`${options.baseUrl.replace(/\/+$/, '')}/v1`)}`,
      'wire_api = "responses"',
      `env_key = ${str(CODEX_KEY_VARIABLE)}`,
      '',
    )
  }
  for (const p of options.projects)
    lines.push(`[projects.${str(p)}]`, 'trust_level = "trusted"', '')
  lines.push('[features]', `daemon_auto_start = ${String(options.daemon === true)}`, '')
  lines.push('[analytics]', 'enabled = false', '')
  lines.push('[tui]', 'screen_reader_detection_done = true', '')
  return lines.join('\n')
}

/**
 * Writes (atomically) the `config.toml` of a home a node owns, made by
 * {@link codexConfig}, so that Codex starts with no question. The rest of
 * the home (sessions a fork reads, logs) is Codex's and is kept.
 *
 * @category codex nodes
 */
export const prepareCodexHome = async (options: CodexHomeOptions): Promise<void> => {
  await writeFileAtomic(join(options.home, 'config.toml'), codexConfig(options))
}

/**
 * The environment Codex runs with under a node: its home when the node
 * owns one (without it Codex reads the user's `~/.codex`), the model
 * proxy's key for it when it has one, and a terminal type.
 *
 * @category codex nodes
 */
export const codexEnv = (options: {
  readonly home: string | undefined
  readonly proxyKey?: string | undefined
}): Readonly<Record<string, string>> =>
  Object.freeze({
    ...(options.home === undefined ? {} : { CODEX_HOME: options.home }),
    ...(options.proxyKey === undefined ? {} : { [CODEX_KEY_VARIABLE]: options.proxyKey }),
    TERM: 'xterm-256color',
  })

/**
 * Command-line overrides that point Codex at the model proxy while it
 * reads the user's own `~/.codex/config.toml` (`-c key=value`): the
 * provider `nerve` at `baseUrl` (its key in {@link CODEX_KEY_VARIABLE}),
 * and no background daemon.
 *
 * @category codex nodes
 * @example
 * import { codexOverrides } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const args = codexOverrides('http://127.0.0.1:4000/agents/a')
 * assert.ok(args.includes('model_providers.nerve.base_url="http://127.0.0.1:4000/agents/a/v1"'))
 */
export const codexOverrides = (baseUrl: string | undefined): readonly string[] => {
  const pairs = ['features.daemon_auto_start=false']
  if (baseUrl !== undefined) {
    pairs.push(
      'model_provider="nerve"',
      'model_providers.nerve.name="Nerve"',
      `model_providers.nerve.base_url=${str(`${baseUrl.replace(/\/+$/, '')}/v1`)}`,
      'model_providers.nerve.wire_api="responses"',
      `model_providers.nerve.env_key=${str(CODEX_KEY_VARIABLE)}`,
    )
  }
  return Object.freeze(pairs.flatMap((p) => ['-c', p]))
}
