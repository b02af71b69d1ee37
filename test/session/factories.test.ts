import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, describe, expect, it } from 'vitest'
import { addStep, defaultInterpreters, graph, UsageError } from '../../src/index.js'
import { interpreters } from '../../src/core.js'
import {
  type ParsedResponse,
  ptyInterpreter,
  tmuxInterpreter,
  type Terminal,
} from '../../src/interpreters/index.js'
import { createFunction, createGraph, createTerminal } from '../../src/session/factories.js'
import { createSession } from '../../src/session/createSession.js'
import { StartFailed } from '../../src/session/SessionError.js'
import { counter, counterInterpreter } from './kit.js'
import { needsTmux } from '../interpreters/terminal/needsTmux.js'

const SHELL = {
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ', PROMPT_COMMAND: '' },
} as const

const DIR = mkdtempSync(join(tmpdir(), 'nerve-factories-'))
afterAll(() => {
  rmSync(DIR, { recursive: true, force: true })
})

describe('createFunction and createGraph', () => {
  it('registers and starts a function node', async () => {
    const session = createSession()
    const node = await createFunction(session, 'shout', (ctx) => String(ctx.input).toUpperCase())
    expect(session.get('shout')).toBe(node)
    expect(session.state('shout')).toBe('ready')
    expect(await session.execute('shout', 'hi')).toBe('HI')
  })

  it('registers and starts a graph with the persistent nodes inside it', async () => {
    const counters = counterInterpreter()
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), counters),
    })
    const g = pipe(graph('g'), addStep({ id: 'c', node: counter('c') }))
    expect(await createGraph(session, g, 'mine')).toBe(g)
    expect(session.state('mine')).toBe('ready')
    expect(counters.log).toEqual(['start c'])
  })

  it('frees the name again when the start fails', async () => {
    const counters = counterInterpreter({ failStart: ['c'] })
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), counters),
    })
    const g = pipe(graph('g'), addStep({ id: 'c', node: counter('c') }))
    await expect(createGraph(session, g)).rejects.toBeInstanceOf(StartFailed)
    expect(session.has('g')).toBe(false)
  })
})

describe('createTerminal', () => {
  it('starts a real pty, ready for input', async () => {
    const terminals = ptyInterpreter({ killGraceMs: 500 })
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), terminals),
    })
    let terminal: Terminal | undefined
    try {
      const node = await createTerminal(session, 'sh', { kind: 'pty', ...SHELL })
      expect(node).toMatchObject({ id: 'sh', kind: 'pty', command: 'bash' })
      expect(session.state('sh')).toBe('ready')
      terminal = session.live('sh') as Terminal
      expect(terminal.state).toBe('ready')
      const answer = (await session.execute('sh', 'echo $((6 * 7))')) as ParsedResponse
      expect(answer.text).toContain('42')
    } finally {
      await session.close()
    }
    expect(session.state('sh')).toBe('stopped')
    expect(terminal.state).toBe('stopped')
    expect(session.live('sh')).toBeUndefined()
  })

  describe('with tmux', () => {
    needsTmux()
    it('starts a tmux pane', async () => {
      const session = createSession({
        interpreters: interpreters(...defaultInterpreters.values(), tmuxInterpreter()),
      })
      try {
        await createTerminal(session, 'pane', {
          kind: 'tmux',
          socketPath: join(DIR, 'tmux'),
          ...SHELL,
        })
        expect(session.state('pane')).toBe('ready')
        const answer = (await session.execute('pane', 'echo tm-$((1 + 1))')) as ParsedResponse
        expect(answer.text).toContain('tm-2')
      } finally {
        await session.close()
      }
    })
  })

  it('rejects a program that cannot start with StartFailed, leaving the name free', async () => {
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), ptyInterpreter()),
    })
    await expect(
      createTerminal(session, 'gone', { kind: 'pty', command: 'bash', args: ['-c', 'exit 3'] }),
    ).rejects.toBeInstanceOf(StartFailed)
    expect(session.has('gone')).toBe(false)
    await session.close()
  })

  it('refuses a kind the session has no interpreter for, and an unknown kind', async () => {
    const session = createSession()
    await expect(createTerminal(session, 'sh', { kind: 'pty', ...SHELL })).rejects.toThrow(
      /no interpreter for kind "pty"/,
    )
    await expect(
      createTerminal(session, 'sh', { kind: 'screen', command: 'x' } as never),
    ).rejects.toBeInstanceOf(UsageError)
    expect(session.size).toBe(0)
  })
})
