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
 * 80: the fewest bits a given token's estimated entropy (see
 * {@link tokenBits}) may have. A generated token has about 210.
 *
 * @category server
 */
export const MIN_TOKEN_BITS = 80

/**
 * An estimate of the bits of entropy in `token`, from its length and its
 * distinct characters: `length × log2(distinct)`. It overrates a token made
 * of words, and rates a token of one repeated character at 0.
 *
 * @category server
 * @example
 * import { tokenBits } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * assert.strictEqual(tokenBits('aaaaaaaaaaaaaaaa'), 0)
 * assert.strictEqual(tokenBits('abcdabcdabcdabcd'), 32)
 */
export const tokenBits = (token: string): number => {
  const chars = Array.from(token)
  const distinct = new Set(chars).size
  return distinct < 2 ? 0 : chars.length * Math.log2(distinct)
}

/** How to make a token that passes {@link checkToken}. */
const MAKE_ONE = 'make one with `openssl rand -base64 32`, or give none to have one generated'

/**
 * Throws a {@link ServerStartError} `TokenTooWeak` (path `token`) when `token`
 * is shorter than {@link MIN_TOKEN_LENGTH} characters or its estimated
 * entropy ({@link tokenBits}) is under {@link MIN_TOKEN_BITS}; `what` names
 * the listener. Every listener that takes a token checks it here.
 *
 * @category server
 * @example
 * import { checkToken } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * assert.throws(() => checkToken('', 'tcp'), { reason: 'TokenTooWeak', path: 'token' })
 * assert.throws(() => checkToken('aaaaaaaaaaaaaaaa', 'tcp'), { reason: 'TokenTooWeak' })
 * checkToken('a-token-of-24-characters', 'tcp')
 */
export const checkToken = (token: string, what: string): void => {
  const length = Array.from(token).length
  if (length < MIN_TOKEN_LENGTH) {
    throw new ServerStartError(
      'TokenTooWeak',
      'token',
      `the token of ${what} has ${length} characters, fewer than ${MIN_TOKEN_LENGTH}: ${MAKE_ONE}`,
    )
  }
  const bits = tokenBits(token)
  if (bits < MIN_TOKEN_BITS) {
    throw new ServerStartError(
      'TokenTooWeak',
      'token',
      `the token of ${what} is too easy to guess: about ${Math.floor(bits)} bits (${length} characters, ${new Set(token).size} distinct), fewer than ${MIN_TOKEN_BITS}: ${MAKE_ONE}`,
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
