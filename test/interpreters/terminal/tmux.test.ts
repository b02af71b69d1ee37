import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  graph,
  run,
  type RunEvent,
  tmux,
  type TmuxOptions,
  UsageError,
} from 'nerve-agents'
import { forkTmux, interpreters } from 'nerve-agents/core'
import {
  openTmux,
  type ParsedResponse,
  TerminalExited,
  TerminalInterrupted,
  TerminalTimeout,
  tmuxInterpreter,
  type TmuxTerminal,
} from 'nerve-agents/interpreters'
import { needsTmux } from './needsTmux.js'
import { eventually, running, sessionMembers } from './processes.js'

/** A server of this test file's own (no test touches another tmux server), its socket removed afterwards. */
const DIR = mkdtempSync(join(tmpdir(), 'nerve-tmux-'))
const SOCKET = join(DIR, 'tmux')
const tmuxCli = (...args: string[]): string =>
  execFileSync('tmux', ['-S', SOCKET, ...args], { encoding: 'utf8' })
const panes = (): string[] => {
  try {
    return tmuxCli('list-panes', '-a', '-F', '#{pane_id}').trim().split('\n')
  } catch {
    return []
  }
}

const sessions = (): string[] => {
  try {
    return tmuxCli('list-sessions', '-F', '#{session_name}').trim().split('\n')
  } catch {
    return []
  }
}

const shell: TmuxOptions = {
  socketPath: SOCKET,
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ' },
  cols: 120,
  rows: 30,
}

const started: TmuxTerminal[] = []
const open = async (id: string, options: TmuxOptions = shell): Promise<TmuxTerminal> => {
  const t = openTmux(tmux(id, options))
  started.push(t)
  await t.start()
  return t
}

afterAll(async () => {
  await Promise.all(started.map((t) => t.stop()))
  try {
    tmuxCli('kill-server')
  } catch {
    // already gone: the server exits with its last session
  }
  rmSync(DIR, { recursive: true, force: true })
})

describe('tmux nodes', () => {
  it('are frozen persistent descriptions that reject bad options', () => {
    const n = tmux('sh', shell)
    expect(n).toMatchObject({ kind: 'tmux', persistent: true, command: 'bash' })
    expect(Object.isFrozen(n)).toBe(true)
    expect(() => tmux('sh', { paneId: '%1', command: 'bash' })).toThrow(UsageError)
    expect(() => tmux('sh', { cols: 0 })).toThrow(/cols must be an integer/)
    expect(() => tmux('sh', { nope: 1 } as never)).toThrow(/unknown option "nope"/)
  })

  it('fork to a spawning copy with the fork metadata, dropping an attached pane id', () => {
    const attached = tmux('mine', { paneId: '%4', socketPath: SOCKET, parser: 'none' })
    const copy = forkTmux('mine-2', '2025-01-01T00:00:00.000Z')(attached)
    expect(copy.paneId).toBeUndefined()
    expect(copy.socketPath).toBe(SOCKET)
    expect(copy.metadata).toEqual({ forked_from: 'mine', fork_time: '2025-01-01T00:00:00.000Z' })
  })
})

describe('the tmux terminal', () => {
  needsTmux()

  it('executes a command in a spawned pane and parses only its answer', async () => {
    const t = await open('echo')
    expect(t.state).toBe('ready')
    expect(t.paneId).toMatch(/^%\d+$/)
    const r = await t.execute('echo hi')
    expect(r.text).toBe('hi')
    expect(r.isComplete).toBe(true)
    const again = await t.execute('echo "$((6 * 7))"; echo done;')
    expect(again.text).toBe('42\ndone')
    expect(t.read()).toContain('$ echo hi')
    expect(t.readTail(1)).toBe('$')
  })

  it('queues executes so their inputs never interleave', async () => {
    const t = await open('queue')
    const answers = await Promise.all(
      ['echo one', 'echo two', 'echo three'].map((c) => t.execute(c)),
    )
    expect(answers.map((a) => a.text)).toEqual(['one', 'two', 'three'])
  })

  it('streams the new text of the pane as chunks and returns the answer', async () => {
    const t = await open('stream')
    const it = t.executeStream('for i in 1 2 3; do echo line$i; done')[Symbol.asyncIterator]()
    const chunks: string[] = []
    let step = await it.next()
    while (step.done !== true) {
      chunks.push(step.value)
      step = await it.next()
    }
    expect(step.value.text).toBe('line1\nline2\nline3')
    expect(chunks.join('')).toContain('line3')
  })

  it('attaches to an existing pane, and stop leaves that pane running', async () => {
    await open('first') // makes sure the server runs
    const paneId = tmuxCli(
      'new-session',
      '-d',
      '-P',
      '-F',
      '#{pane_id}',
      '--',
      'env',
      'PS1=$ ',
      'bash',
      '--norc',
    ).trim()
    const guest = await open('guest', { socketPath: SOCKET, paneId })
    expect(guest.sessionName).toBeUndefined()
    expect((await guest.execute('echo attached')).text).toBe('attached')
    await expect(open('second-guest', { socketPath: SOCKET, paneId })).rejects.toThrow(
      /already has a pipe-pane/,
    )
    await guest.stop()
    expect(guest.state).toBe('stopped')
    expect(panes()).toContain(paneId)
    expect(tmuxCli('capture-pane', '-p', '-t', paneId)).toContain('attached')
    const again = await open('guest-again', { socketPath: SOCKET, paneId })
    expect((await again.execute('echo back')).text).toBe('back')
  })

  it('stop kills the session it spawned, and stopping twice is harmless', async () => {
    const t = await open('stopper')
    const paneId = t.paneId!
    await t.stop()
    await t.stop()
    expect(t.state).toBe('stopped')
    expect(panes()).not.toContain(paneId)
    await expect(t.execute('echo no')).rejects.toBeInstanceOf(TerminalExited)
  })

  it('stop ends every process the pane started: a job that ignores SIGHUP and SIGTERM, a nohup job', async () => {
    const t = openTmux(tmux('stubborn', shell), { killGraceMs: 300 })
    started.push(t)
    await t.start()
    const leader = Number(tmuxCli('display-message', '-p', '-t', t.paneId!, '#{pane_pid}'))
    await t.execute(`sh -c "trap '' HUP TERM; sleep 30" &`)
    await t.execute('nohup sleep 30 > /dev/null 2>&1 &')
    const pids = await eventually('the jobs', () => {
      const members = sessionMembers(leader).map((p) => p.pid)
      return members.length >= 4 ? members : undefined
    })
    await t.stop()
    expect(pids.filter(running)).toEqual([])
  })

  it('times out with the partial answer, then stays usable', async () => {
    const t = await open('slow')
    const error = await t
      .execute('echo started; sleep 30', { timeoutMs: 2000 })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TerminalTimeout)
    expect((error as TerminalTimeout).partial).toContain('started')
    await t.interrupt()
    expect((await t.execute('echo after')).text).toBe('after')
  })

  it('settles an execute as interrupted when its signal aborts, and goes on', async () => {
    const t = await open('abort')
    const controller = new AbortController()
    const pending = t.execute('sleep 30', { signal: controller.signal })
    setTimeout(() => {
      controller.abort()
    }, 100)
    await expect(pending).rejects.toBeInstanceOf(TerminalInterrupted)
    expect((await t.execute('echo next')).text).toBe('next')
  })

  it('interrupt sends Ctrl+C: the pending execute settles as interrupted', async () => {
    const t = await open('ctrl-c')
    const pending = t.execute('echo waiting; sleep 30')
    await expect.poll(() => t.read()).toContain('\nwaiting')
    await t.interrupt()
    const error = (await pending.catch((e: unknown) => e)) as TerminalInterrupted
    expect(error).toBeInstanceOf(TerminalInterrupted)
    expect(error.partial).toContain('waiting')
    expect(t.read()).toContain('^C')
    expect((await t.execute('echo fine')).text).toBe('fine')
  })

  it('fails a pending execute with the exit code of a spawned program, leaving no session', async () => {
    const t = await open('quitter', { ...shell, args: ['--norc'] })
    const session = t.sessionName!
    const error = (await t.execute('exit 3').catch((e: unknown) => e)) as TerminalExited
    expect(error).toBeInstanceOf(TerminalExited)
    expect(error.exitCode).toBe(3)
    expect(t.state).toBe('stopped')
    await expect.poll(sessions).not.toContain(session)
    await expect(t.execute('echo no')).rejects.toMatchObject({ exitCode: 3 })
  })

  it('tells the signal that killed a spawned program', async () => {
    const t = await open('killed')
    const error = (await t.execute('kill -KILL $$').catch((e: unknown) => e)) as TerminalExited
    expect(error).toBeInstanceOf(TerminalExited)
    expect(error).toMatchObject({ exitCode: null, signal: 'SIGKILL' })
    expect(t.state).toBe('stopped')
  })

  it('fails start with the exit code of a program that exits at once', async () => {
    const t = openTmux(
      tmux('brief', { socketPath: SOCKET, command: 'bash', args: ['-c', 'exit 7'] }),
    )
    await expect(t.start()).rejects.toMatchObject({ _tag: 'TerminalExited', exitCode: 7 })
    expect(t.state).toBe('stopped')
  })

  it('writes raw text without a newline, and clearBuffer moves the start of read()', async () => {
    const t = await open('raw')
    await t.execute('echo before')
    t.clearBuffer()
    expect(t.read()).not.toContain('before')
    await t.write('echo typed')
    expect((await t.execute('')).text).toMatch(/^\$ echo typed\ntyped$/)
  })
})

describe('a tmux terminal with an agent parser', () => {
  needsTmux()

  it('waits out the thinking status and reads the answer (a fake claude)', async () => {
    const claude = fileURLToPath(new URL('../../fake-claude/claude', import.meta.url))
    const t = await open('agent', { socketPath: SOCKET, command: claude, parser: 'claude' })
    const chunks: string[] = []
    const it = t.executeStream('hello tmux')[Symbol.asyncIterator]()
    let step = await it.next()
    while (step.done !== true) {
      chunks.push(step.value)
      step = await it.next()
    }
    expect(chunks.join('')).toContain('esc to interrupt')
    expect(step.value.text).toBe('You said: hello tmux')
  })
})

describe('tmux steps in a graph', () => {
  needsTmux()

  it('run through the runtime, their screen changes streamed as step_chunk events', async () => {
    const interpreter = tmuxInterpreter()
    const node = tmux('sh', shell)
    const g = pipe(
      graph('g'),
      addStep({ id: 'first', node, input: 'echo one' }),
      addStep({ id: 'second', node, input: 'echo two', dependsOn: ['first'] }),
    )
    const events: RunEvent[] = []
    const { results } = await run(g, {
      interpreters: interpreters(...defaultInterpreters.values(), interpreter),
      onEvent: (e) => events.push(e),
    })
    expect((results.first as ParsedResponse).text).toBe('one')
    expect((results.second as ParsedResponse).text).toBe('two')
    expect(events.some((e) => e.type === 'step_chunk' && e.stepId === 'second')).toBe(true)
    const fork = await interpreter.fork(node, 'sh-2')
    expect(fork.metadata['forked_from']).toBe('sh')
    const copy = await interpreter.start(fork, {} as never)
    try {
      expect(copy.state).toBe('ready')
    } finally {
      await interpreter.stop(fork, { live: copy } as never)
    }
    expect(copy.state).toBe('stopped')
  })
})
