import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bashTool } from '../../../src/interpreters/tools/index.js'
import { call, textOf, workspaceDirs } from './fixture.js'
import { gone, goneSoon } from '../../processes.js'

/** Waits for a file the command writes (an event, not a timed assertion). */
const waitForFile = async (path: string): Promise<string> => {
  for (;;) {
    const text = await readFile(path, 'utf8').catch(() => '')
    if (text.endsWith('\n')) return text
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** Starts two sleeps, the first in the background; writes the background one's pid to bg.pid. */
const twoSleeps = 'sleep 30 & echo $! > bg.pid; sleep 30'

describe('bashTool', () => {
  it('runs the command in the root and answers its exit code, stdout and stderr', async () => {
    const { root } = await workspaceDirs()
    const out = await call(bashTool({ root }), { command: 'pwd; echo oops >&2' })
    expect(out).toEqual({ content: `exit code 0\n--- stdout ---\n${root}\n--- stderr ---\noops` })
  })

  it('makes a non-zero exit code an error', async () => {
    const { root } = await workspaceDirs()
    const out = await call(bashTool({ root }), { command: 'echo no; exit 3' })
    expect(out).toEqual({ content: 'exit code 3\n--- stdout ---\nno', is_error: true })
  })

  it('says when there is no output', async () => {
    const { root } = await workspaceDirs()
    expect(textOf(await call(bashTool({ root }), { command: 'true' }))).toBe(
      'exit code 0 (no output)',
    )
  })

  it('closes stdin', async () => {
    const { root } = await workspaceDirs()
    const out = await call(bashTool({ root }), { command: 'cat; echo done' })
    expect(textOf(out)).toBe('exit code 0\n--- stdout ---\ndone')
  })

  it('kills the whole process group when the time is up', async () => {
    const { root } = await workspaceDirs()
    const out = await call(bashTool({ root, timeoutMs: 500 }), { command: twoSleeps })
    expect(out.is_error).toBe(true)
    expect(textOf(out)).toMatch(/^timed out after 500 ms; its process group was killed/)
    const pid = Number(await readFile(join(root, 'bg.pid'), 'utf8'))
    expect(await goneSoon(pid)).toBe(true)
  })

  it('kills the whole process group when the call is aborted', async () => {
    const { root } = await workspaceDirs()
    const controller = new AbortController()
    const running = call(bashTool({ root }), { command: twoSleeps }, controller.signal)
    const pid = Number(await waitForFile(join(root, 'bg.pid')))
    expect(gone(pid)).toBe(false)
    controller.abort()
    const out = await running
    expect(out.is_error).toBe(true)
    expect(textOf(out)).toMatch(/^interrupted; its process group was killed/)
    expect(await goneSoon(pid)).toBe(true)
  })

  it('cuts long output and says how much was cut', async () => {
    const { root } = await workspaceDirs()
    const tool = bashTool({ root, maxOutputBytes: 1000 })
    const out = textOf(await call(tool, { command: "head -c 5000 /dev/zero | tr '\\0' a" }))
    expect(out).toBe(
      `exit code 0\n--- stdout ---\n${'a'.repeat(1000)}\n[output truncated: 4000 of 5000 bytes cut]`,
    )
  })

  it('shares the output budget between stdout and stderr', async () => {
    const { root } = await workspaceDirs()
    const tool = bashTool({ root, maxOutputBytes: 1000 })
    const command = "head -c 3000 /dev/zero | tr '\\0' o; head -c 3000 /dev/zero | tr '\\0' e >&2"
    expect(textOf(await call(tool, { command }))).toBe(
      [
        'exit code 0',
        '--- stdout ---',
        'o'.repeat(500),
        '[output truncated: 2500 of 3000 bytes cut]',
        '--- stderr ---',
        'e'.repeat(500),
        '[output truncated: 2500 of 3000 bytes cut]',
      ].join('\n'),
    )
  })

  it('answers a missing command with an error naming the field', async () => {
    const { root } = await workspaceDirs()
    expect(await call(bashTool({ root }), {})).toEqual({
      content:
        'invalid input for tool "bash": field "command" is missing (expected non-empty string)',
      is_error: true,
    })
  })
})
