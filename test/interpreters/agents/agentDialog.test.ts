import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { pty } from '../../../src/index.js'
import {
  geminiBinary,
  geminiEnv,
  openPty,
  TerminalDialog,
} from '../../../src/interpreters/index.js'

const root = mkdtempSync(join(tmpdir(), 'nerve-agent-dialog-'))
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

it('fails the start of Gemini CLI on a first run nothing prepared, with the dialog’s title and screen', async () => {
  const work = join(root, 'work')
  mkdirSync(work)
  execFileSync('git', ['init', '-q'], { cwd: work })
  const home = join(root, 'gemini-home')
  const terminal = openPty(
    pty('gemini', {
      command: geminiBinary(),
      cwd: work,
      env: { ...geminiEnv({ home, baseUrl: 'http://127.0.0.1:9', apiKey: 'x' }), HOME: root },
      parser: 'gemini',
      cols: 100,
      rows: 30,
      timeoutMs: 45_000,
    }),
  )
  try {
    const started = terminal.start()
    await expect(started).rejects.toBeInstanceOf(TerminalDialog)
    const dialog = (await started.catch((e: unknown) => e)) as TerminalDialog
    expect(dialog.title).toBe('Do you trust the files in this folder?')
    expect(dialog.screen).toMatch(/1\. Trust folder/)
  } finally {
    await terminal.stop()
  }
}, 90_000)
