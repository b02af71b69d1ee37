import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedPeers } from '../kit.js'
import { needsTmux } from '../../interpreters/terminal/needsTmux.js'

/** The fake wezterm CLI drives a tmux server of this file's own; the fake claude answers "You said: …". */
const FAKE_WEZTERM = fileURLToPath(new URL('../../fake-wezterm/wezterm', import.meta.url))
const FAKE_CLAUDE = fileURLToPath(new URL('../../fake-claude/claude', import.meta.url))
const DIR = mkdtempSync(join(tmpdir(), 'nerve-engine-panes-'))
const SOCKET = join(DIR, 'tmux')
let saved: string | undefined

beforeAll(() => {
  saved = process.env.NERVE_FAKE_WEZTERM_SOCKET
  process.env.NERVE_FAKE_WEZTERM_SOCKET = SOCKET
})

afterAll(() => {
  try {
    execFileSync('tmux', ['-S', SOCKET, 'kill-server'], { stdio: 'ignore' })
  } catch {
    // the server exits with its last pane
  }
  rmSync(DIR, { recursive: true, force: true })
  if (saved === undefined) delete process.env.NERVE_FAKE_WEZTERM_SOCKET
  else process.env.NERVE_FAKE_WEZTERM_SOCKET = saved
})

const connected = connectedPeers()

describe('pane nodes through the engine', { timeout: 60_000 }, () => {
  needsTmux()
  it('runs Claude Code in a WezTerm pane (kind claude): executes with the claude parser and forks the session', async () => {
    const p = await connected()
    expect(
      await p.ok('CREATE_NODE', {
        nodeId: 'agent',
        kind: 'claude',
        options: { wezterm: FAKE_WEZTERM, claude: FAKE_CLAUDE },
      }),
    ).toMatchObject({ id: 'agent', type: 'claude-wezterm', state: 'ready' })
    const answer = await p.ok<{ text: string }>('EXECUTE_INPUT', {
      nodeId: 'agent',
      input: 'hello there',
    })
    expect(answer.text).toBe('You said: hello there')
    const fork = await p.ok('FORK_NODE', { sourceId: 'agent', targetId: 'agent-b' })
    expect(fork).toEqual({ nodeId: 'agent-b', forkedFrom: 'agent', nodeType: 'claude-wezterm' })
    const { buffer } = await p.ok<{ buffer: string }>('GET_BUFFER', { nodeId: 'agent-b' })
    expect(buffer).toContain('--fork-session')
  })

  it('runs a program in a WezTerm pane (kind wezterm)', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', {
      nodeId: 'pane',
      kind: 'wezterm',
      options: {
        wezterm: FAKE_WEZTERM,
        command: 'bash',
        args: ['--norc', '--noprofile'],
        env: { PS1: '$ ' },
      },
    })
    const answer = await p.ok<{ text: string }>('EXECUTE_INPUT', {
      nodeId: 'pane',
      input: 'echo from-pane',
    })
    expect(answer.text).toContain('from-pane')
  })
})
