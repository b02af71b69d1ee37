import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach } from 'vitest'
import {
  callTool,
  toolbox,
  type Tool,
  type ToolContext,
  type ToolOutput,
} from '../../../src/interpreters/tools/index.js'

const made: string[] = []

afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

/** A new temporary directory (real path), removed after the test. */
export const tempDir = async (): Promise<string> => {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'nerve-tools-')))
  made.push(dir)
  return dir
}

/** Writes files (path → content) below `dir`, creating directories. */
export const files = async (dir: string, tree: Readonly<Record<string, string | Buffer>>) => {
  for (const [path, content] of Object.entries(tree)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), content)
  }
}

/**
 * A workspace for a test: `root` inside a temporary directory, and
 * `outside`, a sibling directory of it with a file `secret.txt`.
 */
export const workspaceDirs = async (): Promise<{ root: string; outside: string }> => {
  const base = await tempDir()
  const root = join(base, 'root')
  const outside = join(base, 'outside')
  await mkdir(root)
  await files(outside, { 'secret.txt': 'secret\n' })
  return { root, outside }
}

export const ctxOf = (signal: AbortSignal = new AbortController().signal): ToolContext => ({
  signal,
  toolUseId: 'call-1',
  depth: 0,
})

/** Calls `tool` through `callTool` with `input`. */
export const call = (
  tool: Tool,
  input: Readonly<Record<string, unknown>>,
  signal?: AbortSignal,
): Promise<ToolOutput> =>
  callTool(
    toolbox(tool),
    { type: 'tool_use', id: 'call-1', name: tool.definition.name, input },
    ctxOf(signal),
  )

/** The text of an output whose content is a string. */
export const textOf = (output: ToolOutput): string => {
  if (typeof output.content !== 'string') throw new Error('expected text content')
  return output.content
}
