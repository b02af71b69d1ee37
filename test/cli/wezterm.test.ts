/**
 * `nerve wezterm …` through the built executable, with the fake `wezterm`
 * (a tmux server underneath, so panes and their text are real), and
 * without any `wezterm` at all.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { needsTmux } from '../interpreters/terminal/needsTmux.js'
import { ensureBuilt, nerve } from './run.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-wez-'))
const socket = join(dir, 'tmux')
const env = {
  NERVE_WEZTERM: fileURLToPath(new URL('../fake-wezterm/wezterm', import.meta.url)),
  NERVE_FAKE_WEZTERM_SOCKET: socket,
}

beforeAll(() => {
  ensureBuilt()
}, 180_000)
afterAll(() => {
  try {
    execFileSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore' })
  } catch {
    // no server left
  }
  rmSync(dir, { recursive: true, force: true })
})

const until = async (f: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 200 && !(await f()); i++) await new Promise((r) => setTimeout(r, 50))
}

describe('nerve wezterm', () => {
  needsTmux()

  it('spawns a pane, sends it a command, reads the screen, lists and kills it', async () => {
    const spawned = await nerve(
      ['wezterm', 'spawn', '--json', '--', 'bash', '--norc', '--noprofile'],
      env,
    )
    expect(spawned.stderr).toBe('')
    const { paneId } = JSON.parse(spawned.stdout) as { paneId: number }
    expect(Number.isInteger(paneId)).toBe(true)

    const listed = await nerve(['wezterm', 'list', '--json'], env)
    const { panes } = JSON.parse(listed.stdout) as { panes: { paneId: number }[] }
    expect(panes.map((p) => p.paneId)).toContain(paneId)

    expect(
      (await nerve(['wezterm', 'send', String(paneId), 'echo $((6*7))-marker'], env)).code,
    ).toBe(0)
    let screen = ''
    await until(async () => {
      screen = (await nerve(['wezterm', 'read', String(paneId)], env)).stdout
      return /^42-marker$/m.test(screen)
    })
    expect(screen).toMatch(/^42-marker$/m)
    const tail = await nerve(['wezterm', 'read', String(paneId), '--tail', '1', '--json'], env)
    expect((JSON.parse(tail.stdout) as { text: string }).text.split('\n')).toHaveLength(1)

    const killed = await nerve(['wezterm', 'kill', String(paneId)], env)
    expect(killed.stdout.trim()).toBe(`Killed pane ${paneId}`)
    const after = JSON.parse((await nerve(['wezterm', 'list', '--json'], env)).stdout) as {
      panes: { paneId: number }[]
    }
    expect(after.panes.map((p) => p.paneId)).not.toContain(paneId)
  }, 60_000)

  it("reports wezterm's own failure (an unknown pane) as one line, exit 1", async () => {
    const r = await nerve(['wezterm', 'read', '99999'], env)
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^error: WeztermCommandFailed: wezterm cli get-text/)
  })

  it('refuses a pane id that is not a number as a usage error', async () => {
    const r = await nerve(['wezterm', 'kill', 'abc'], env)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^error: BadPane/)
  })
})

describe('nerve wezterm without wezterm', () => {
  it('says in one line that wezterm is missing, exit 6 (unavailable)', async () => {
    const r = await nerve(['wezterm', 'list'], { NERVE_WEZTERM: join(dir, 'no-such-wezterm') })
    expect(r.code).toBe(6)
    expect(r.stderr.trim()).toMatch(
      /^error: WeztermMissing: .*no-such-wezterm is not installed or not on PATH/,
    )
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })
})
