import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  graph,
  run,
  type RunEvent,
  UsageError,
  wezterm,
  type WeztermOptions,
} from 'nerve-agents'
import { forkWezterm, interpreters } from 'nerve-agents/core'
import {
  openWezterm,
  type ParsedResponse,
  TerminalExited,
  TerminalTimeout,
  WeztermCommandFailed,
  weztermInterpreter,
  type WeztermTerminal,
} from 'nerve-agents/interpreters'
import { needsTmux } from './needsTmux.js'
import { eventually, running, sessionMembers, sessionOf } from './processes.js'

/** The fake `wezterm` kept in test/: `wezterm cli` over a tmux server of this file's own. */
const FAKE = fileURLToPath(new URL('../../fake-wezterm/wezterm', import.meta.url))
/** A tmux server of this file's own, on a socket in a directory removed afterwards. */
const DIR = mkdtempSync(join(tmpdir(), 'nerve-fake-wezterm-'))
const SOCKET = join(DIR, 'tmux')
let saved: string | undefined

beforeAll(() => {
  saved = process.env.NERVE_FAKE_WEZTERM_SOCKET
  process.env.NERVE_FAKE_WEZTERM_SOCKET = SOCKET
})

const cli = (...args: string[]): string =>
  execFileSync(FAKE, ['cli', ...args], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] })
const cliWithInput = (input: string, ...args: string[]): string =>
  execFileSync(FAKE, ['cli', ...args], { encoding: 'utf8', input })

const shell: WeztermOptions = {
  wezterm: FAKE,
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ' },
}

const started: WeztermTerminal[] = []
const open = async (id: string, options: WeztermOptions = shell): Promise<WeztermTerminal> => {
  const t = openWezterm(wezterm(id, options))
  started.push(t)
  await t.start()
  return t
}

afterAll(async () => {
  await Promise.all(started.map((t) => t.stop()))
  try {
    execFileSync('tmux', ['-S', SOCKET, 'kill-server'], { stdio: 'ignore' })
  } catch {
    // the server exits with its last pane
  }
  rmSync(DIR, { recursive: true, force: true })
  if (saved === undefined) delete process.env.NERVE_FAKE_WEZTERM_SOCKET
  else process.env.NERVE_FAKE_WEZTERM_SOCKET = saved
})

/**
 * Reads the pane until `seen` shows (the fake has no events: a test may wait
 * on the screen). Bounded by a deadline far above any loaded machine's delay,
 * not by a number of reads, which a slow `wezterm cli` would use up early.
 */
const screenShows = async (pane: string, seen: string | RegExp): Promise<string> => {
  const deadline = Date.now() + 15_000
  let text = ''
  while (Date.now() < deadline) {
    text = cli('get-text', '--pane-id', pane)
    if (typeof seen === 'string' ? text.includes(seen) : seen.test(text)) return text
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`pane ${pane} never showed ${String(seen)}; it shows:\n${text}`)
}

describe('the fake wezterm', () => {
  needsTmux()

  it('spawns panes, types text, reads it back, lists, activates and kills them', async () => {
    const pane = cli('spawn', '--cwd', '/tmp', '--', 'env', 'PS1=$ ', 'bash', '--norc').trim()
    expect(pane).toMatch(/^\d+$/)
    // Type only at a prompt: text typed before bash reads it, or while a command runs, is
    // echoed by the terminal where it lands, not after the prompt.
    await screenShows(pane, /^\$ ?$/m)
    cli('send-text', '--pane-id', pane, '--no-paste', 'echo from-arg;\r')
    await screenShows(pane, /^from-arg\n\$ ?$/m)
    cliWithInput('echo from-stdin\r', 'send-text', '--pane-id', pane, '--no-paste')
    const screen = await screenShows(pane, 'from-stdin\n')
    expect(screen).toContain('$ echo from-arg;\nfrom-arg\n')
    expect(screen.split('\n').length).toBeGreaterThanOrEqual(50)
    expect(cli('get-text', '--pane-id', pane, '--start-line', '-100', '--end-line', '-1')).toBe('')
    const listed = JSON.parse(cli('list', '--format', 'json')) as { pane_id: number; cwd: string }[]
    const mine = listed.find((p) => p.pane_id === Number(pane))
    expect(mine?.cwd).toBe('file://localhost/tmp')
    expect(mine).toHaveProperty('size.rows', 50)
    expect(cli('list')).toMatch(/^WINID TABID PANEID/)
    cli('activate-pane', '--pane-id', pane)
    cli('kill-pane', '--pane-id', pane)
    expect(() => cli('get-text', '--pane-id', pane)).toThrow(/not found/)
  })
})

describe('WezTerm nodes', () => {
  it('are frozen persistent descriptions that reject bad options', () => {
    const n = wezterm('sh', shell)
    expect(n).toMatchObject({ kind: 'wezterm', persistent: true, wezterm: FAKE })
    expect(Object.isFrozen(n)).toBe(true)
    expect(() => wezterm('sh', { paneId: 1, command: 'bash' })).toThrow(UsageError)
    expect(() => wezterm('sh', { env: { 'A B': 'x' } })).toThrow(/not a variable name/)
  })

  it('fork to a spawning copy with the fork metadata', () => {
    const copy = forkWezterm('b', '2025-01-01T00:00:00.000Z')(wezterm('a', { paneId: 7 }))
    expect(copy.paneId).toBeUndefined()
    expect(copy.metadata).toEqual({ forked_from: 'a', fork_time: '2025-01-01T00:00:00.000Z' })
  })
})

describe('the WezTerm terminal', () => {
  needsTmux()

  it('executes commands through wezterm cli and parses only their answers', async () => {
    const t = await open('echo')
    expect(t.spawned).toBe(true)
    expect((await t.execute('echo hi')).text).toBe('hi')
    expect((await t.execute('echo "$((6 * 7))"')).text).toBe('42')
    expect(t.read()).toContain('$ echo hi\nhi\n')
    expect(t.readTail(1)).toBe('$')
  })

  it('sends long input in pieces and gets it all back', async () => {
    const t = await open('long')
    const word = 'x'.repeat(2500)
    const r = await t.execute(`echo ${word} | wc -c`)
    expect(r.text.trim().split('\n').pop()).toBe('2501')
  })

  it('streams the new text of the pane and returns the answer', async () => {
    const t = await open('stream')
    // b comes a second after a: time for several reads of the pane, even on a busy machine
    const it = t.executeStream('echo a; sleep 1; echo b')[Symbol.asyncIterator]()
    const chunks: string[] = []
    let step = await it.next()
    while (step.done !== true) {
      chunks.push(step.value)
      step = await it.next()
    }
    expect(step.value.text).toBe('a\nb')
    expect(chunks.length).toBeGreaterThan(1)
  })

  it('tells its pane, focuses it, and times out then stays usable', async () => {
    const t = await open('info')
    const info = await t.paneInfo()
    expect(info.paneId).toBe(t.paneId)
    expect(info.rows).toBe(50)
    await t.focus()
    await expect(t.execute('sleep 30', { timeoutMs: 200 })).rejects.toBeInstanceOf(TerminalTimeout)
    await t.interrupt()
    expect((await t.execute('echo back')).text).toBe('back')
  })

  it('attaches to an existing pane and stop leaves it running', async () => {
    const pane = cli('spawn', '--', 'env', 'PS1=$ ', 'bash', '--norc').trim()
    await screenShows(pane, '$')
    const t = await open('guest', { wezterm: FAKE, paneId: Number(pane) })
    expect(t.spawned).toBe(false)
    expect((await t.execute('echo attached')).text).toBe('attached')
    await t.stop()
    expect(cli('get-text', '--pane-id', pane)).toContain('attached')
    cli('kill-pane', '--pane-id', pane)
  })

  it('stop kills the pane it spawned; the program exiting fails a pending execute', async () => {
    const t = await open('stopper')
    const pane = String(t.paneId)
    await t.stop()
    await t.stop()
    expect(() => cli('get-text', '--pane-id', pane)).toThrow(/not found/)
    const q = await open('quitter')
    await expect(q.execute('exit 3')).rejects.toBeInstanceOf(TerminalExited)
    expect(q.state).toBe('stopped')
  })

  it('stop ends every process its pane started, even one that left the session', async () => {
    const t = openWezterm(wezterm('stubborn', shell), { killGraceMs: 300 })
    started.push(t)
    await t.start()
    const leader = Number(
      execFileSync(
        'tmux',
        ['-S', SOCKET, 'display-message', '-p', '-t', `%${t.paneId}`, '#{pane_pid}'],
        {
          encoding: 'utf8',
        },
      ),
    )
    await t.execute(`sh -c "trap '' HUP TERM; sleep 30" &`)
    await t.execute('nohup sleep 30 > /dev/null 2>&1 &')
    await t.execute(`( setsid sh -c 'trap "" HUP TERM; sleep 30' & ) &`)
    const pids = await eventually('the jobs', () => {
      const members = sessionMembers(leader).map((p) => p.pid)
      return members.length >= 4 ? members : undefined
    })
    const daemon = await eventually('the daemon', () =>
      execFileSync('pgrep', ['-f', '-x', 'sh -c trap "" HUP TERM; sleep 30'], { encoding: 'utf8' })
        .split('\n')
        .map(Number)
        .find((pid) => pid > 0 && sessionOf(pid) !== leader),
    )
    await t.stop()
    expect([...pids, daemon].filter(running)).toEqual([])
  })

  it('fails to start on a pane that does not exist', async () => {
    await expect(open('nowhere', { wezterm: FAKE, paneId: 99999 })).rejects.toBeInstanceOf(
      WeztermCommandFailed,
    )
  })
})

describe('WezTerm steps in a graph', () => {
  needsTmux()

  it('run through the runtime', async () => {
    const interpreter = weztermInterpreter()
    const node = wezterm('sh', shell)
    const g = pipe(graph('g'), addStep({ id: 'hello', node, input: 'echo hello' }))
    const events: RunEvent[] = []
    const { results } = await run(g, {
      interpreters: interpreters(...defaultInterpreters.values(), interpreter),
      onEvent: (e) => events.push(e),
    })
    expect((results.hello as ParsedResponse).text).toBe('hello')
    expect(events.some((e) => e.type === 'step_chunk')).toBe(true)
  })
})
