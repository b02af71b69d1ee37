/** What every command of the tree shares: its action wrapper and its examples. */
import type { Command } from 'commander'
import type { GlobalOptions } from '../context.js'

/** Adds a top-level command (and its subcommands) to the root. */
export type AddCommand = (root: Command) => void

/**
 * Wraps an action (its arguments, then the options): the options are the
 * command's merged with the global ones; a failure is one line on stderr.
 */
export const act =
  (f: (...args: never[]) => Promise<void>) =>
  async (...args: unknown[]): Promise<void> => {
    const cmd = args.at(-1) as Command
    const o = cmd.optsWithGlobals<GlobalOptions>()
    try {
      await (f as (...a: unknown[]) => Promise<void>)(...args.slice(0, -2), o)
    } catch (e) {
      // context.js loads the client and the server's protocol: only when a command runs
      ;(await import('../context.js')).fail(o, e)
    }
  }

export const example = (cmd: Command, ...lines: string[]): Command =>
  cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`)
