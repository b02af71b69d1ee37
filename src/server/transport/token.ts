/**
 * Tokens for the TCP, HTTP and WebSocket transports: generated at random
 * into a 0600 file unless one is given, compared in constant time, and
 * presented as the first line of a TCP stream (`AUTH`) or as an
 * `Authorization: Bearer …` header on HTTP and on the WebSocket upgrade.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { ServerStartError } from './ServerError.js'

/**
 * A fresh token: 32 random bytes, base64url (43 characters).
 *
 * @category server
 */
export const generateToken = (): string => randomBytes(32).toString('base64url')

/**
 * 16: the fewest characters a given token may have. An empty or short token
 * is refused at start ({@link ServerStartError} `TokenTooWeak`): a listener
 * guarded by it would be as good as open.
 *
 * @category server
 */
export const MIN_TOKEN_LENGTH = 16

/**
 * Throws a {@link ServerStartError} `TokenTooWeak` (path `token`) when `token`
 * is shorter than {@link MIN_TOKEN_LENGTH}; `what` names the listener.
 *
 * @category server
 * @example
 * import { checkToken } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * assert.throws(() => checkToken('', 'tcp'), { reason: 'TokenTooWeak', path: 'token' })
 * checkToken('a-token-of-24-characters', 'tcp')
 */
export const checkToken = (token: string, what: string): void => {
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new ServerStartError(
      'TokenTooWeak',
      'token',
      `the token of ${what} has ${token.length} characters, fewer than ${MIN_TOKEN_LENGTH}: give a longer one, or none to have one generated`,
    )
  }
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest()

/**
 * Whether `given` is the token, in time that does not depend on where they differ.
 *
 * @category server
 * @example
 * import { tokenMatches } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * assert.ok(tokenMatches('s3cret', 's3cret'))
 * assert.ok(!tokenMatches('s3cret', 's3cres'))
 * assert.ok(!tokenMatches('s3cret', undefined))
 */
export const tokenMatches = (token: string, given: string | undefined): boolean =>
  given !== undefined && timingSafeEqual(digest(token), digest(given))

/**
 * Writes `token` to `file` atomically, mode 0600.
 *
 * @category server
 */
export const writeTokenFile = async (file: string, token: string): Promise<void> => {
  // Loaded when a token file is written: the listener guard (which MCP uses too) loads no interpreter.
  const { writeFileAtomic } = await import('../../interpreters/index.js')
  await writeFileAtomic(file, `${token}\n`, { mode: 0o600 })
}

/**
 * The token of an `Authorization: Bearer <token>` header, if it has one.
 *
 * @category server
 */
export const bearerToken = (header: string | undefined): string | undefined => {
  const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  return m?.[1]
}

/**
 * The method of the first line a TCP client sends:
 * `{"jsonrpc":"2.0","id":0,"method":"AUTH","params":{"token":"…"}}`.
 *
 * @category server
 */
export const AUTH_METHOD = 'AUTH'

/**
 * Reads an `AUTH` request line: its id and token, or `undefined` when the
 * line is anything else.
 *
 * @category server
 */
export const authRequest = (
  line: string,
): { readonly id: string | number | null; readonly token: string } | undefined => {
  let msg: unknown
  try {
    msg = JSON.parse(line)
  } catch {
    return undefined
  }
  if (typeof msg !== 'object' || msg === null) return undefined
  const { method, params, id } = msg as { method?: unknown; params?: unknown; id?: unknown }
  if (method !== AUTH_METHOD || typeof params !== 'object' || params === null) return undefined
  const token = (params as { token?: unknown }).token
  if (typeof token !== 'string') return undefined
  return { id: typeof id === 'string' || typeof id === 'number' ? id : null, token }
}
