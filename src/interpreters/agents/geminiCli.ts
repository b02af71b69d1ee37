/**
 * What Gemini CLI needs to start unattended: its executable, a home of its
 * own (`GEMINI_CLI_HOME`) whose settings choose API-key auth and turn
 * telemetry off and whose trusted folders hold the project, and the
 * environment that points it at the model proxy.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '../atomicWrite.js'
import { agentBinary } from './agentBinary.js'

/**
 * The Gemini CLI executable: `NERVE_GEMINI_BIN` when set, else the bundle
 * of the installed `@google/gemini-cli`, else `gemini` on the PATH.
 *
 * @category gemini nodes
 */
export const geminiBinary = (): string =>
  agentBinary('NERVE_GEMINI_BIN', '@google/gemini-cli', 'bundle/gemini.js', 'gemini')

/**
 * Options of {@link prepareGeminiHome}.
 *
 * @category gemini nodes
 */
export interface GeminiHomeOptions {
  /** The directory the node owns; it becomes `GEMINI_CLI_HOME` (settings live in its `.gemini`). */
  readonly home: string
  /** The working directories to trust: no folder trust question. */
  readonly projects: readonly string[]
  /**
   * The model to ask for. Default `gemini-2.5-pro`: a named model, so Gemini
   * CLI makes no routing call (a side call that picks a model) per prompt.
   */
  readonly model?: string
}

const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === 'object' && u !== null && !Array.isArray(u)

const readJson = async (file: string): Promise<Record<string, unknown>> => {
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'))
    return isObject(parsed) ? parsed : {}
  } catch {
    return {} // none yet, or not JSON: written anew
  }
}

const section = (u: unknown): Record<string, unknown> => (isObject(u) ? u : {})

/**
 * Writes (atomically) the `settings.json` and `trustedFolders.json` of a
 * home a node owns, so that Gemini CLI starts with no question: API-key
 * auth chosen (the key comes from `GEMINI_API_KEY`), usage statistics and
 * telemetry off, no update check, the model named, each project trusted.
 * What the files already hold is kept.
 *
 * @category gemini nodes
 */
export const prepareGeminiHome = async (options: GeminiHomeOptions): Promise<void> => {
  const dir = join(options.home, '.gemini')
  const settingsFile = join(dir, 'settings.json')
  const settings = await readJson(settingsFile)
  const security = section(settings.security)
  const next = {
    ...settings,
    security: { ...security, auth: { ...section(security.auth), selectedType: 'gemini-api-key' } },
    privacy: { ...section(settings.privacy), usageStatisticsEnabled: false },
    telemetry: { ...section(settings.telemetry), enabled: false },
    general: { ...section(settings.general), disableAutoUpdate: true, disableUpdateNag: true },
    model: { ...section(settings.model), name: options.model ?? 'gemini-2.5-pro' },
  }
  await writeFileAtomic(settingsFile, JSON.stringify(next, null, 2) + '\n')
  const trustFile = join(dir, 'trustedFolders.json')
  const trusted = await readJson(trustFile)
  for (const p of options.projects) trusted[p] = 'TRUST_FOLDER'
  await writeFileAtomic(trustFile, JSON.stringify(trusted, null, 2) + '\n')
}

/**
 * The environment Gemini CLI runs with under a node: its home when the
 * node owns one (without it Gemini reads the user's `~/.gemini`), the
 * model API at `baseUrl` (the model proxy's URL for the agent), the key,
 * telemetry off.
 *
 * @category gemini nodes
 */
export const geminiEnv = (options: {
  readonly home: string | undefined
  readonly baseUrl: string | undefined
  readonly apiKey: string | undefined
}): Readonly<Record<string, string>> =>
  Object.freeze({
    ...(options.home === undefined ? {} : { GEMINI_CLI_HOME: options.home }),
    ...(options.baseUrl === undefined ? {} : { GOOGLE_GEMINI_BASE_URL: options.baseUrl }),
    ...(options.apiKey === undefined ? {} : { GEMINI_API_KEY: options.apiKey }),
    GEMINI_TELEMETRY_ENABLED: 'false',
    TERM: 'xterm-256color',
  })
