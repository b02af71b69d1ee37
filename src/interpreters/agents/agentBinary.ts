import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/**
 * An agent CLI's executable: the variable `override` of the environment
 * when set, else `file` inside the installed package `pkg`, else `command`
 * on the PATH.
 *
 * @internal
 */
export const agentBinary = (
  override: string,
  pkg: string,
  file: string,
  command: string,
): string => {
  const own = process.env[override]
  if (own !== undefined && own !== '') return own
  try {
    return join(dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), file)
  } catch {
    return command
  }
}
