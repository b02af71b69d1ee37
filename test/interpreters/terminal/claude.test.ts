import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  addStep,
  claudeWezterm,
  type ClaudeWeztermNode,
  type ClaudeWeztermOptions,
  createSession,
  defaultInterpreters,
  graph,
  run,
  UsageError,
} from 'nerve-agents'
import { claudeArgs, forkClaudeWezterm, interpreters } from 'nerve-agents/core'
import {
  claudeWeztermInterpreter,
  type ClaudeWeztermTerminal,
  openClaudeWezterm,
  type ParsedResponse,
} from 'nerve-agents/interpreters'
import { needsTmux } from './needsTmux.js'

const FAKE_WEZTERM = fileURLToPath(new URL('../../fake-wezterm/wezterm', import.meta.url))
const FAKE_CLAUDE = fileURLToPath(new URL('../../fake-claude/claude', import.meta.url))
/** A tmux server of this file's own, on a socket in a directory removed afterwards. */
const DIR = mkdtempSync(join(tmpdir(), 'nerve-fake-claude-'))
const SOCKET = join(DIR, 'tmux')
const A = '123e4567-e89b-12d3-a456-426614174000'
const B = '223e4567-e89b-12d3-a456-426614174000'
let saved: string | undefined

beforeAll(() => {
  saved = process.env.NERVE_FAKE_WEZTERM_SOCKET
  process.env.NERVE_FAKE_WEZTERM_SOCKET = SOCKET
})

const started: ClaudeWeztermTerminal[] = []
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

const options: ClaudeWeztermOptions = { wezterm: FAKE_WEZTERM, claude: FAKE_CLAUDE }

const open = async (id: string, more: ClaudeWeztermOptions = {}) => {
  const t = openClaudeWezterm(claudeWezterm(id, { ...options, ...more }))
  started.push(t)
  await t.start()
  return t
}

describe('Claude-on-WezTerm nodes', () => {
  it('start a new session, resume one, or fork one', () => {
    expect(claudeArgs(A)(claudeWezterm('a'))).toEqual(['--session-id', A])
    expect(claudeArgs(A)(claudeWezterm('a', { sessionId: A, resume: true }))).toEqual([
      '--resume',
      A,
    ])
    const fork = forkClaudeWezterm(
      'b',
      '2025-01-01T00:00:00.000Z',
      B,
    )(claudeWezterm('a', { sessionId: A, args: ['--model', 'opus'] }))
    expect(claudeArgs(B)(fork)).toEqual([
      '--resume',
      A,
      '--fork-session',
      '--session-id',
      B,
      '--model',
      'opus',
    ])
    expect(fork.metadata).toEqual({ forked_from: 'a', fork_time: '2025-01-01T00:00:00.000Z' })
  })

  it('reject options a claude session cannot have', () => {
    expect(() => claudeWezterm('a', { resume: true })).toThrow(/resume needs the sessionId/)
    expect(() => claudeWezterm('a', { paneId: 1 } as never)).toThrow(UsageError)
    expect(() => forkClaudeWezterm('b', 't', B)(claudeWezterm('a'))).toThrow(/no sessionId/)
  })
})

describe('the Claude-on-WezTerm terminal', () => {
  needsTmux()

  it('starts claude with a new session id and reads its answers with the claude parser', async () => {
    const t = await open('agent')
    expect(t.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    expect(t.read()).toContain(`fake claude --session-id ${t.sessionId}`)
    expect(t.recordsHistory).toBe(true)
    expect(t.inner.recordsHistory).toBe(false)
    const r = await t.execute('hello there')
    expect(r.isComplete).toBe(true)
    expect(r.text).toBe('You said: hello there')
    const tool = await t.execute('use a tool')
    expect(tool.sections.map((s) => s.type)).toEqual(['tool_call', 'text'])
    expect(tool.sections[0]?.metadata).toEqual({ tool: 'Bash', args: 'ls /' })
    expect(tool.text).toBe('You said: use a tool')
  })

  it('keeps a session id it was given', async () => {
    const t = await open('given', { sessionId: A })
    expect(t.sessionId).toBe(A)
    expect(t.read()).toContain(`--session-id ${A}`)
    const chunks: string[] = []
    const it = t.executeStream('think first')[Symbol.asyncIterator]()
    let step = await it.next()
    while (step.done !== true) {
      chunks.push(step.value)
      step = await it.next()
    }
    expect(chunks.join('')).toContain('esc to interrupt')
    expect(step.value.text).toBe('You said: think first')
  })
})

describe('Claude steps in a graph', () => {
  needsTmux()

  it('run through the runtime, and fork with --resume --fork-session', async () => {
    const interpreter = claudeWeztermInterpreter()
    const node = claudeWezterm('agent', options)
    const g = pipe(graph('g'), addStep({ id: 'ask', node, input: 'what is 6 x 7' }))
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), interpreter),
    })
    try {
      session.register(node)
      await session.start('agent')
      const { results } = await run(g, { interpreters: session.interpreters, session })
      expect((results.ask as ParsedResponse).text).toBe('You said: what is 6 x 7')
      const first = session.live('agent') as ClaudeWeztermTerminal
      expect(first.read()).toContain('You said: what is 6 x 7')
      const fork = (await session.fork('agent', 'agent-2')) as ClaudeWeztermNode
      expect(fork.forkFrom).toBe(first.sessionId)
      expect(fork.sessionId).not.toBe(first.sessionId)
      const second = session.live('agent-2') as ClaudeWeztermTerminal
      expect(second.read()).toContain(
        `fake claude --resume ${first.sessionId} --fork-session --session-id ${fork.sessionId}`,
      )
    } finally {
      await session.close()
    }
  })
})
