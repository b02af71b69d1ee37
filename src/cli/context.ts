/**
 * What every command shares: the connection options (flags, then `NERVE_*`
 * variables, then the default socket), one way to print a result (text or
 * `--json`) and one way to fail (a single line naming the error's tag and
 * path, the exit code its category's; the stack only with `--verbose`).
 */
import { connect as connectTcp } from 'node:net'
import { ConnectionError, NerveClient } from '../client/index.js'
import { errorJson, errorText, taggedError, type ErrorCategory } from '../errors.js'
import { categoryOf, exitCodeOf } from './exitCodes.js'
import { daemonFiles, tokenFileFor } from './home.js'

/**
 * The options every command takes, from the root program.
 *
 * @category cli
 */
export interface GlobalOptions {
  readonly socket?: string
  readonly url?: string
  readonly token?: string
  readonly session?: string
  readonly json?: boolean
  readonly verbose?: boolean
}

/**
 * A failure the command line reports as one line: `error: <tag>[ at <path>]: <message>`.
 * Its tag is `CliError`; `tag` names the failure and is shown in its place.
 * `category` (default `failed`) gives the exit code (see `exitCodes`).
 *
 * @category cli
 */
export class CliError extends taggedError('CliError', 'failed')<{
  /** The failure, e.g. `DaemonNotRunning`: shown in place of `CliError`. */
  readonly tag: string
  /** What is to blame: a flag, a file, a socket, a URL. */
  readonly path: string | undefined
}> {
  override readonly category: ErrorCategory
  constructor(tag: string, message: string, path?: string, category: ErrorCategory = 'failed') {
    super(message, { tag, path })
    this.category = category
  }
}

/**
 * The category of a file that could not be read: `notFound` when it (or a
 * directory on its path) is not there, else `storage`.
 *
 * @category cli
 */
export const fileCategory = (e: unknown): ErrorCategory => {
  const code = (e as { code?: unknown } | null)?.code
  return code === 'ENOENT' || code === 'ENOTDIR' ? 'notFound' : 'storage'
}

/** The socket the command talks to: `--socket`, then `NERVE_SOCKET`, then `nerve.sock` in NERVE_HOME, then the default. */
export const socketOf = (o: GlobalOptions): string => daemonFiles(o).socket

/** Whether anything accepts TCP connections at `host:port` (`undefined`: no answer in time). */
export const listening = (host: string, port: number): Promise<boolean | undefined> =>
  new Promise((resolve) => {
    const probe = connectTcp({ host, port })
    const done = (v: boolean | undefined): void => {
      probe.destroy()
      resolve(v)
    }
    probe.setTimeout(3000, () => {
      done(undefined)
    })
    probe.once('connect', () => {
      done(true)
    })
    probe.once('error', (e: NodeJS.ErrnoException) => {
      done(e.code === 'ECONNREFUSED' ? false : undefined)
    })
  })

/** The daemon's URL, if one is named: `--url`, then `NERVE_URL`. */
export const urlOf = (o: GlobalOptions): string | undefined => o.url ?? process.env.NERVE_URL

/**
 * Connects to the daemon named by the options: `--url` (`http://…` or
 * `tcp://host:port`, with `--token` / `NERVE_TOKEN`), else the Unix socket.
 * A socket nobody listens on is a {@link CliError} telling how to start one.
 *
 * @category cli
 */
export const connect = async (o: GlobalOptions): Promise<NerveClient> => {
  const url = urlOf(o)
  const t = o.token ?? process.env.NERVE_TOKEN
  if (url !== undefined) {
    const m = /^(tcp|https?):\/\/(\[[^\]]+\]|[^:/]+)(?::(\d+))?\/?/.exec(url)
    if (m === null || (m[1] === 'tcp' && m[3] === undefined)) {
      throw new CliError(
        'BadUrl',
        `--url must be http://host:port or tcp://host:port, got ${url}`,
        '--url',
        'invalidInput',
      )
    }
    const host = m[2]!.replace(/^\[|\]$/g, '')
    const port = Number(m[3] ?? (m[1] === 'https' ? 443 : 80))
    if ((await listening(host, port)) === false) {
      throw new CliError(
        'DaemonNotRunning',
        `no daemon is listening at ${url}: start one with \`nerve server start --http ${host}:${port}\``,
        url,
        'unavailable',
      )
    }
    // the token beside the daemon this URL reaches, as its status file names it
    const token =
      t !== undefined ? { token: t } : { tokenFile: tokenFileFor(daemonFiles(o), host, port) }
    if (m[1] === 'tcp') return NerveClient.connectTcp(host, port, token)
    return NerveClient.connectHttp(url, token)
  }
  const socket = socketOf(o)
  // One connection: no probe first; a socket nobody listens on (absent, or refused) is DaemonNotRunning.
  try {
    return await NerveClient.connect(socket)
  } catch (e) {
    const code = (e as { cause?: { code?: unknown } }).cause?.code
    if (e instanceof ConnectionError && (code === 'ENOENT' || code === 'ECONNREFUSED')) {
      throw new CliError(
        'DaemonNotRunning',
        `no daemon is listening on ${socket}: start one with \`nerve server start\``,
        socket,
        'unavailable',
      )
    }
    throw e
  }
}

/** Runs `f` with a client and closes it afterwards. */
export const withClient = async <A>(
  o: GlobalOptions,
  f: (c: NerveClient) => Promise<A>,
): Promise<A> => {
  const client = await connect(o)
  try {
    return await f(client)
  } finally {
    await client.close()
  }
}

/**
 * Prints a result: its JSON with `--json`, else the text `text` makes of it.
 *
 * @category cli
 */
export const print = <A>(o: GlobalOptions, value: A, text: (a: A) => string): void => {
  const out = o.json === true ? JSON.stringify(value) : text(value)
  if (out !== '') process.stdout.write(out.endsWith('\n') ? out : `${out}\n`)
}

/** The most lines of problems an invalid-input failure prints under its first line. */
const PROBLEM_LINES = 10

/**
 * What a failure prints: `error: <tag>[ at <path>]: <message>`, as
 * `errorText` shows it: the message's first line (the rest may be a whole
 * screen), and for invalid input the problems listed under it, up to ten.
 *
 * @category cli
 */
export const errorLine = (e: unknown): string => {
  const [first = '', ...rest] = errorText(e).split('\n')
  if (categoryOf(e) !== 'invalidInput' || rest.length === 0) return `error: ${first}`
  const more = rest.length - PROBLEM_LINES
  return [
    `error: ${first}`,
    ...rest.slice(0, PROBLEM_LINES),
    ...(more > 0 ? [`  … and ${more} more (--json lists them all)`] : []),
  ].join('\n')
}

/**
 * Reports a failure and sets the exit code from the error's category
 * (`exitCodeOf`): one line on stderr, or with `--json` one JSON value
 * (`{ "error": { ...errorJson(e), category } }`) on stdout, the stream
 * every `--json` command answers on.
 *
 * @category cli
 */
export const fail = (o: GlobalOptions, e: unknown): void => {
  if (o.json === true) {
    const error = { ...errorJson(e), category: categoryOf(e) }
    process.stdout.write(`${JSON.stringify({ error })}\n`)
  } else process.stderr.write(`${errorLine(e)}\n`)
  if (o.verbose === true && e instanceof Error && e.stack !== undefined) {
    process.stderr.write(`${e.stack}\n`)
  }
  process.exitCode = exitCodeOf(e)
}
