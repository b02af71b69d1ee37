/**
 * Where a daemon's default files are (socket, pid, token), as both sides
 * find them: the daemon to listen, the client to connect.
 */
import { connect } from 'node:net'
import { homedir } from 'node:os'
import { join } from 'node:path'

/**
 * The directory of the daemon's default files (socket, pid, token):
 * `$NERVE_HOME` when that variable is set, else `$XDG_RUNTIME_DIR/nerve`,
 * else `~/.nerve`.
 *
 * @category client
 * @example
 * import { defaultDaemonDir } from 'nerve-agents/client'
 * import assert from 'assert'
 *
 * assert.strictEqual(defaultDaemonDir({ XDG_RUNTIME_DIR: '/run/user/1000' }), '/run/user/1000/nerve')
 */
export const defaultDaemonDir = (env: NodeJS.ProcessEnv = process.env): string => {
  if (env.NERVE_HOME !== undefined && env.NERVE_HOME !== '') return env.NERVE_HOME
  const runtime = env.XDG_RUNTIME_DIR
  return runtime !== undefined && runtime !== ''
    ? join(runtime, 'nerve')
    : join(homedir(), '.nerve')
}

/**
 * The default socket path: `nerve.sock` in {@link defaultDaemonDir}.
 *
 * @category client
 */
export const defaultSocketPath = (env: NodeJS.ProcessEnv = process.env): string =>
  join(defaultDaemonDir(env), 'nerve.sock')

/**
 * Whether something accepts connections on the Unix socket `path` (a live daemon).
 *
 * @category client
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
