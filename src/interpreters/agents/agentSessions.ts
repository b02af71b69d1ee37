/**
 * The recorded sessions of Codex CLI and Gemini CLI in a home a node owns,
 * and their forks: a fork is a new home holding a copy of the sessions,
 * where the program resumes the conversation by id and carries it on apart
 * from the original.
 *
 * - Codex: `codex fork <id>` starts a new session (a new id) with the
 *   history of `<id>`, read from the rollout files under `sessions/`.
 * - Gemini CLI has no fork: `gemini --resume <id>` continues a session of
 *   the project (`tmp/<project>/chats`); resumed in a copied home it goes on
 *   apart from the original, under the same id.
 */
import { taggedError } from '../../errors.js'
import { cp, readdir, readFile, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/**
 * A home with no recorded session to resume or fork: the agent has not
 * taken a turn yet.
 *
 * @category errors
 */
export class AgentSessionMissing extends taggedError('AgentSessionMissing', 'invalidState')<{
  readonly program: 'codex' | 'gemini'
  readonly home: string
}> {
  constructor(program: 'codex' | 'gemini', home: string) {
    super(`${program}: no recorded session in ${home} to fork (it has taken no turn yet)`, {
      program,
      home,
    })
  }
}

const exists = async (path: string): Promise<boolean> => {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}

/** Every file under `dir` (recursively), or none when it does not exist. */
const filesUnder = async (dir: string): Promise<string[]> => {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true })
    return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
  } catch {
    return []
  }
}

/** The newest of `files` by modification time. */
const newest = async (files: readonly string[]): Promise<string | undefined> => {
  let best: { readonly file: string; readonly at: number } | undefined
  for (const file of files) {
    const at = (await stat(file)).mtimeMs
    if (best === undefined || at >= best.at) best = { file, at }
  }
  return best?.file
}

const UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/

/**
 * The id of the newest session Codex recorded in `home` (its `CODEX_HOME`):
 * the id in the name of the newest rollout file under `sessions/`.
 *
 * @category codex nodes
 */
export const codexSessionId = async (home: string): Promise<string | undefined> => {
  const rollouts = (await filesUnder(join(home, 'sessions'))).filter((f) => UUID.test(f))
  const file = await newest(rollouts)
  return file === undefined ? undefined : UUID.exec(file)![1]
}

/**
 * Prepares the home of a fork of a Codex node: copies `config.toml` and the
 * recorded sessions of `from` into `to`, and resolves with the arguments
 * that start Codex on the fork (`['fork', id]`: a new session carrying the
 * history of the newest one). Rejects with {@link AgentSessionMissing} when
 * `from` holds no session.
 *
 * @category codex nodes
 */
export const forkCodexHome = async (from: string, to: string): Promise<readonly string[]> => {
  const id = await codexSessionId(from)
  if (id === undefined) throw new AgentSessionMissing('codex', from)
  for (const name of ['config.toml', 'session_index.jsonl', 'sessions'])
    if (await exists(join(from, name)))
      await cp(join(from, name), join(to, name), { recursive: true })
  return Object.freeze(['fork', id])
}

const SESSION = /^session-.*\.jsonl$/

/**
 * The id of the newest session Gemini CLI recorded in `home` (its
 * `GEMINI_CLI_HOME`), any project: the `sessionId` on the first line of
 * the newest `.gemini/tmp/<project>/chats/session-*.jsonl`.
 *
 * @category gemini nodes
 */
export const geminiSessionId = async (home: string): Promise<string | undefined> => {
  const chats = (await filesUnder(join(home, '.gemini', 'tmp'))).filter(
    (f) => basename(dirname(f)) === 'chats' && SESSION.test(basename(f)),
  )
  const file = await newest(chats)
  if (file === undefined) return undefined
  const first = (await readFile(file, 'utf8')).split('\n', 1)[0] ?? ''
  try {
    const head: unknown = JSON.parse(first)
    const id = (head as { sessionId?: unknown }).sessionId
    return typeof id === 'string' ? id : undefined
  } catch {
    return undefined
  }
}

/**
 * Prepares the home of a fork of a Gemini CLI node: copies the `.gemini`
 * of `from` (settings, trusted folders, projects, recorded chats; not lock
 * files) into `to`, and resolves with the arguments that start Gemini on
 * it (`['--resume', id]`: the newest session, carried on apart from the
 * original). Rejects with {@link AgentSessionMissing} when `from` holds no
 * session.
 *
 * @category gemini nodes
 */
export const forkGeminiHome = async (from: string, to: string): Promise<readonly string[]> => {
  const id = await geminiSessionId(from)
  if (id === undefined) throw new AgentSessionMissing('gemini', from)
  await cp(join(from, '.gemini'), join(to, '.gemini'), {
    recursive: true,
    filter: (source) => !source.endsWith('.lock'),
  })
  return Object.freeze(['--resume', id])
}
