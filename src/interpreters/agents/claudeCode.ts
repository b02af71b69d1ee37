/**
 * What Claude Code needs to start unattended: its executable, a home of
 * its own with the first-run questions answered, and the environment that
 * points it at the model proxy.
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { writeFileAtomic } from '../atomicWrite.js'

/**
 * The Claude Code executable: `NERVE_CLAUDE_BIN` when set, else the native
 * binary of the installed `@anthropic-ai/claude-code` (its platform
 * package, which needs no postinstall), else `claude` on the PATH.
 *
 * @category claude nodes
 */
export const claudeBinary = (): string => {
  const own = process.env.NERVE_CLAUDE_BIN
  if (own !== undefined && own !== '') return own
  const require = createRequire(import.meta.url)
  const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`
  try {
    return join(dirname(require.resolve(`${platform}/package.json`)), 'claude')
  } catch {
    return 'claude'
  }
}

/**
 * Options of {@link prepareClaudeHome}.
 *
 * @category claude nodes
 */
export interface ClaudeHomeOptions {
  /** The home directory the node owns (it becomes `HOME`). */
  readonly home: string
  /** The working directories to trust (each a project in `~/.claude.json`). */
  readonly projects: readonly string[]
  /** The API key Claude Code will see: its approval is written so it is not asked about. */
  readonly apiKey: string
}

const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === 'object' && u !== null && !Array.isArray(u)

/**
 * Writes (atomically) the `~/.claude.json` of a home a node owns, so that
 * Claude Code starts with no question: onboarding done, the API key
 * approved (Claude Code keeps the last 20 characters of approved keys), each
 * project trusted and its onboarding done. What the file already holds is
 * kept (sessions a fork resumes live beside it, under `~/.claude`).
 *
 * @category claude nodes
 */
export const prepareClaudeHome = async (options: ClaudeHomeOptions): Promise<void> => {
  const file = join(options.home, '.claude.json')
  let config: Record<string, unknown> = {}
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'))
    if (isObject(parsed)) config = parsed
  } catch {
    // none yet, or not JSON: written anew
  }
  const key = options.apiKey.slice(-20)
  const responses = isObject(config.customApiKeyResponses) ? config.customApiKeyResponses : {}
  const approved = Array.isArray(responses.approved) ? (responses.approved as unknown[]) : []
  const projects = isObject(config.projects) ? config.projects : {}
  const trusted = Object.fromEntries(
    options.projects.map((p) => [
      p,
      {
        ...(isObject(projects[p]) ? projects[p] : {}),
        hasTrustDialogAccepted: true,
        hasCompletedProjectOnboarding: true,
      },
    ]),
  )
  const next = {
    ...config,
    hasCompletedOnboarding: true,
    numStartups: typeof config.numStartups === 'number' ? config.numStartups : 1,
    customApiKeyResponses: {
      ...responses,
      approved: approved.includes(key) ? approved : [...approved, key],
      rejected: Array.isArray(responses.rejected) ? responses.rejected : [],
    },
    projects: { ...projects, ...trusted },
  }
  await writeFileAtomic(file, JSON.stringify(next, null, 2) + '\n')
}

/**
 * The environment Claude Code runs with under a node: its home, the model
 * API at `baseUrl` (the model proxy's URL for the agent), the key, and no
 * traffic besides the model calls (no telemetry, error reports, update
 * checks).
 *
 * @category claude nodes
 */
export const claudeEnv = (options: {
  readonly home: string | undefined
  readonly baseUrl: string | undefined
  readonly apiKey: string | undefined
}): Readonly<Record<string, string>> =>
  Object.freeze({
    ...(options.home === undefined ? {} : { HOME: options.home }),
    ...(options.baseUrl === undefined ? {} : { ANTHROPIC_BASE_URL: options.baseUrl }),
    ...(options.apiKey === undefined ? {} : { ANTHROPIC_API_KEY: options.apiKey }),
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    TERM: 'xterm-256color',
  })
