/**
 * What every command shares: the connection options (flags, then `NERVE_*`
 * variables, then the default socket), one way to print a result (text or
 * `--json`) and one way to fail (a single line naming the error's tag and
 * path, exit code 1; the stack only with `--verbose`).
 */
import { NerveClient } from '../client/index.js'
import { defaultSocketPath, socketIsLive } from '../server/index.js'

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
 * `exitCode` 2 is a usage error.
 *
 * @category cli
 */
export class CliError extends Error {
  readonly _tag = 'CliError'
  constructor(
    readonly tag: string,
    message: string,
    readonly path?: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message)
    this.name = 'CliError'
  }
}

/** The socket the command talks to: `--socket`, then `NERVE_SOCKET`, then the default. */
export const socketOf = (o: GlobalOptions): string =>
  o.socket ?? process.env.NERVE_SOCKET ?? defaultSocketPath()

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
  const token = t === undefined ? {} : { token: t }
  if (url !== undefined) {
    const tcp = /^tcp:\/\/(.+):(\d+)\/?$/.exec(url)
    if (tcp !== null) return NerveClient.connectTcp(tcp[1]!, Number(tcp[2]), token)
    if (!/^https?:\/\//.test(url)) {
      throw new CliError(
        'BadUrl',
        `--url must be http://host:port or tcp://host:port, got ${url}`,
        undefined,
        2,
      )
    }
    return NerveClient.connectHttp(url, token)
  }
  const socket = socketOf(o)
  if (!(await socketIsLive(socket))) {
    throw new CliError(
      'DaemonNotRunning',
      `no daemon is listening on ${socket}: start one with \`nerve server start\``,
    )
  }
  return NerveClient.connect(socket)
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

const tagOf = (e: Error): string => {
  const t = (e as { tag?: unknown; _tag?: unknown }).tag ?? (e as { _tag?: unknown })._tag
  return typeof t === 'string' ? t : e.name
}

/**
 * The one line a failure prints: `error: <tag>[ at <path>]: <message>`.
 *
 * @category cli
 */
export const errorLine = (e: unknown): string => {
  if (!(e instanceof Error)) return `error: ${String(e)}`
  const path = (e as { path?: unknown }).path
  const where = typeof path === 'string' && path !== '' ? ` at ${path}` : ''
  const first = e.message.split('\n')[0] ?? ''
  return `error: ${tagOf(e)}${where}: ${first}`
}

/**
 * Reports a failure on stderr and sets the exit code (2 for usage, else 1).
 *
 * @category cli
 */
export const fail = (o: GlobalOptions, e: unknown): void => {
  process.stderr.write(`${errorLine(e)}\n`)
  if (o.verbose === true && e instanceof Error && e.stack !== undefined) {
    process.stderr.write(`${e.stack}\n`)
  }
  process.exitCode = e instanceof CliError ? e.exitCode : 1
}
