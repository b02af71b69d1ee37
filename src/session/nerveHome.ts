import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * Nerve's home: the directory that holds what Nerve keeps between runs — the
 * daemon's socket, token, pid, log and store, and node histories.
 * `NERVE_HOME` when it is set (relative to the current directory), else
 * `~/.nerve`. Nothing goes in the working directory unless asked.
 *
 * @category history
 * @example
 * import { nerveHome } from 'nerve-agents/session'
 * import assert from 'assert'
 * import { homedir } from 'node:os'
 * import { join } from 'node:path'
 *
 * assert.strictEqual(nerveHome({ NERVE_HOME: '/srv/nerve' }), '/srv/nerve')
 * assert.strictEqual(nerveHome({}), join(homedir(), '.nerve'))
 */
export const nerveHome = (
  env: Readonly<Record<string, string | undefined>> = process.env,
): string => {
  const home = env.NERVE_HOME
  return home !== undefined && home !== '' ? resolve(home) : join(homedir(), '.nerve')
}
