#!/usr/bin/env node
/**
 * The `nerve` executable. Exit codes: 0 success, 1 failure, 2 usage.
 */
import { CommanderError } from 'commander'
import { readFileSync } from 'node:fs'
import { program } from './program.js'

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string }

try {
  await program(version).parseAsync(process.argv)
} catch (e) {
  if (!(e instanceof CommanderError)) throw e
  // help and version exit 0; everything commander refuses is a usage error
  process.exitCode = e.exitCode === 0 ? 0 : 2
}
