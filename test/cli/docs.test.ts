/**
 * docs/cli.md lists every command of the built `nerve`, each with an
 * example that runs that command.
 */
import type { Command } from 'commander'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { program } from '../../src/cli/program.js'
import { root } from './run.js'

/** Every command that runs something, by its words (`graph run`); `server node …` is `node …` again. */
const leaves = (c: Command, path: readonly string[] = []): string[] =>
  c.commands.flatMap((sub) => {
    const p = [...path, sub.name()]
    if (p.join(' ') === 'server node') return []
    return sub.commands.length > 0 ? leaves(sub, p) : [p.join(' ')]
  })

describe('docs/cli.md', () => {
  it('has a section for every command, with an example that runs it', () => {
    const doc = readFileSync(join(root, 'docs/cli.md'), 'utf8')
    const sections = new Map<string, string>()
    for (const part of doc.split(/^#{2,3} /m).slice(1)) {
      const heading = part.split('\n')[0]!
      const m = /^nerve ((?:[a-z-]+ ?)+)/.exec(heading)
      if (m !== null) sections.set(m[1]!.trim(), part)
    }
    const missing: string[] = []
    for (const words of leaves(program('0.0.0'))) {
      const section = sections.get(words)
      const examples = /```sh\n([\s\S]*?)```/.exec(section ?? '')?.[1] ?? ''
      if (!examples.split('\n').some((l) => l.includes(`nerve ${words}`))) missing.push(words)
    }
    expect(missing).toEqual([])
    expect(sections.size).toBeGreaterThan(40)
  })
})
