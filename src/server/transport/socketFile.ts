/**
 * Where the daemon's Unix socket lives and how it claims it: the default
 * directory (`$NERVE_HOME`, else `$XDG_RUNTIME_DIR/nerve/`, else
 * `~/.nerve/`) is the owner's alone (mode 0700); a socket file left by a dead daemon (nobody accepts on it) is
 * removed; one a live daemon listens on is refused.
 */
import { chmod, lstat, mkdir, stat, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ServerStartError } from './ServerError.js'

import { socketIsLive } from '../../client/daemonDir.js'

export { defaultDaemonDir, defaultSocketPath, socketIsLive } from '../../client/daemonDir.js'

/**
 * Makes the directory of `file` (a socket, pid or token file) the owner's
 * alone: created mode 0700; an existing one of ours that others may enter
 * (a group or other bit) is set back to 0700; one that belongs to another
 * user is refused with a {@link ServerStartError} `UnsafeDirectory`, since
 * its owner could replace our files.
 *
 * @category server
 */
export const ensureSocketDir = async (file: string): Promise<void> => {
  const dir = dirname(file)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const { uid, mode } = await stat(dir)
  const me = process.getuid?.()
  if (me !== undefined && uid !== me) {
    throw new ServerStartError(
      'UnsafeDirectory',
      dir,
      `${dir} belongs to user ${uid}, not to us (${me}): choose a directory of our own for the socket`,
    )
  }
  if ((mode & 0o777) !== 0o700) await chmod(dir, 0o700)
}

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
