/**
 * Where the daemon's Unix socket lives and how it claims it: the default
 * directory (`$XDG_RUNTIME_DIR/nerve/`, else `~/.nerve/`) is created mode
 * 0700; a socket file left by a dead daemon (nobody accepts on it) is
 * removed; one a live daemon listens on is refused.
 */
import { chmod, lstat, mkdir, unlink } from 'node:fs/promises'
import { connect } from 'node:net'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { ServerStartError } from './ServerError.js'

/**
 * The directory of the daemon's default files (socket, pid, token):
 * `$XDG_RUNTIME_DIR/nerve` when that variable is set, else `~/.nerve`.
 *
 * @category server
 * @example
 * import { defaultDaemonDir } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * assert.strictEqual(defaultDaemonDir({ XDG_RUNTIME_DIR: '/run/user/1000' }), '/run/user/1000/nerve')
 */
export const defaultDaemonDir = (env: NodeJS.ProcessEnv = process.env): string => {
  const runtime = env.XDG_RUNTIME_DIR
  return runtime !== undefined && runtime !== ''
    ? join(runtime, 'nerve')
    : join(homedir(), '.nerve')
}

/**
 * The default socket path: `nerve.sock` in {@link defaultDaemonDir}.
 *
 * @category server
 */
export const defaultSocketPath = (env: NodeJS.ProcessEnv = process.env): string =>
  join(defaultDaemonDir(env), 'nerve.sock')

/** Creates the socket's directory (mode 0700 when it is ours to create). */
export const ensureSocketDir = async (socketPath: string): Promise<void> => {
  const dir = dirname(socketPath)
  const created = await mkdir(dir, { recursive: true, mode: 0o700 })
  if (created !== undefined) await chmod(dir, 0o700)
}

/**
 * Whether something accepts connections on the Unix socket `path` (a live daemon).
 *
 * @category server
 */
export const socketIsLive = (path: string): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = connect(path)
    probe.once('connect', () => {
      probe.destroy()
      resolve(true)
    })
    probe.once('error', () => {
      resolve(false)
    })
  })

/**
 * Makes `path` free for a new socket: nothing there, or a stale socket file
 * (removed). A live daemon's socket, or a file that is not a socket, is
 * refused with a {@link ServerStartError}.
 */
export const claimSocketPath = async (path: string): Promise<void> => {
  let isSocket: boolean
  try {
    isSocket = (await lstat(path)).isSocket()
  } catch {
    return // nothing there
  }
  if (!isSocket) {
    throw new ServerStartError('NotASocket', path, `${path} exists and is not a socket`)
  }
  if (await socketIsLive(path)) {
    throw new ServerStartError(
      'DaemonRunning',
      path,
      `a daemon is already listening on ${path}; stop it first (SHUTDOWN) or choose another socket`,
    )
  }
  await unlink(path).catch(() => undefined)
}

/** Removes a file if it is there. */
export const removeFile = (path: string): Promise<void> => unlink(path).catch(() => undefined)
