#!/usr/bin/env node
/**
 * The `nerve` executable. Exit codes: 0 success, else the failure's
 * category's (`exitCodes`: 1 failure, 2 usage, …).
 */
import { CommanderError } from 'commander'
import { readFileSync } from 'node:fs'
import { exitCodes } from './exitCodes.js'
import { program } from './program.js'

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string }

// A reader that went away (`nerve … | head -1`) ends the command quietly, as `cat` does.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e
    process.exit(process.exitCode ?? 0)
  })
}

/** `nerve help graph run` is `nerve graph run --help`, however deep the command. */
const argv = (args: readonly string[]): string[] =>
  args[2] === 'help' && args.length > 3
    ? [...args.slice(0, 2), ...args.slice(3), '--help']
    : [...args]

try {
  const args = argv(process.argv)
  await program(version, args.slice(2)).parseAsync(args)
} catch (e) {
  if (!(e instanceof CommanderError)) throw e
  // help and version exit 0; everything commander refuses is a usage error
  process.exitCode = e.exitCode === 0 ? 0 : exitCodes.invalidInput
}
