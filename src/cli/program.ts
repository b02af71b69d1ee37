/**
 * The `nerve` command tree. Each action imports its module when it runs, so
 * `nerve --version` and `--help` load nothing but commander; and a run
 * builds only the top-level command it names. The commands are in tree/,
 * by what they work on.
 */
import { Command } from 'commander'
import { daemonCommands } from './tree/daemon.js'
import { fileCommands } from './tree/files.js'
import { runCommands } from './tree/runs.js'
import type { AddCommand } from './tree/act.js'

const all = { ...daemonCommands, ...runCommands, ...fileCommands }

/** The top-level commands, in the order help lists them. */
const COMMANDS: readonly (readonly [string, AddCommand])[] = [
  'server',
  'dashboard',
  'node',
  'repl',
  'chat',
  'graph',
  'wezterm',
  'worker',
  'replay',
  'approvals',
  'approve',
  'deny',
  'network',
  'store',
  'init',
  'schema',
  'extract',
  'view',
  'mcp',
].map((name) => [name, all[name]!])

/**
 * The top-level command `args` (the arguments after `nerve`) names, when it
 * is one of {@link COMMANDS}: the first argument that is neither a root
 * option nor the value of one.
 */
const commandOf = (root: Command, args: readonly string[]): string | undefined => {
  const takesValue = new Set(
    root.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short]),
  )
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (!a.startsWith('-')) return COMMANDS.some(([name]) => name === a) ? a : undefined
    if (takesValue.has(a)) i++
  }
  return undefined
}

/**
 * Builds the program; `version` is printed by `--version`. Given the
 * arguments it will parse (those after `nerve`), it builds only the
 * top-level command they name — a command's start is what a user waits for
 * — and every command when they name none (`nerve`, `--help`, a typo that
 * help suggests a command for).
 */
export const program = (version: string, args: readonly string[] = []): Command => {
  const root = new Command('nerve')
    .description('Nerve: LLM agent systems out of immutable values — daemon, nodes, graphs')
    .version(version)
    .option(
      '--socket <path>',
      'daemon socket (env NERVE_SOCKET; default nerve.sock in NERVE_HOME, ~/.nerve)',
    )
    .option('--url <url>', 'daemon URL, http://host:port or tcp://host:port (env NERVE_URL)')
    .option('--token <token>', 'token for TCP/HTTP (env NERVE_TOKEN)')
    .option('--session <id>', 'session on the daemon (default: its default session)')
    .option('--json', 'machine-readable output: one JSON value, or NDJSON for streams')
    .option('--verbose', 'print stack traces of errors')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      // with --json a usage error is the same one JSON value as every other failure, on stdout
      outputError: (text, write) => {
        if (!process.argv.includes('--json')) {
          write(text)
          return
        }
        const message = text.split('\n')[0]!.replace(/^error: /, '')
        process.stdout.write(
          `${JSON.stringify({ error: { tag: 'UsageError', message, category: 'invalidInput' } })}\n`,
        )
      },
    })

  const only = commandOf(root, args)
  for (const [name, add] of COMMANDS) if (only === undefined || name === only) add(root)
  return root
}
