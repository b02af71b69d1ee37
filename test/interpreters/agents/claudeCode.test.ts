import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claudeWezterm, type ClaudeWeztermNode } from '../../../src/index.js'
import { nodeRegistry } from '../../../src/core.js'
import {
  anthropicMessages,
  approvalRules,
  type ClaudePtyTerminal,
  claudeWeztermInterpreter,
  type ModelProxy,
  type PermissionRequest,
  startModelProxy,
  TerminalDialog,
  TerminalInterrupted,
} from '../../../src/interpreters/index.js'
import { running, sessionMembers, sessionOf } from '../terminal/processes.js'
import { claudeModel, promptOf } from './claudeModel.js'

// The real Claude Code (the pinned devDependency), offline, against the
// model proxy answering from a scripted model.

const signal = new AbortController().signal
const lifecycle = { signal, session: nodeRegistry() }

let proxy: ModelProxy
let project: string
let home: string
const asked: PermissionRequest[] = []
let interpreter: ReturnType<typeof claudeWeztermInterpreter>
let node: ClaudeWeztermNode
let agent: ClaudePtyTerminal
let model: ReturnType<typeof claudeModel>

beforeAll(async () => {
  model = claudeModel()
  proxy = await startModelProxy({
    protocols: [anthropicMessages],
    upstream: { _tag: 'provider', provider: model },
  })
  project = mkdtempSync(join(tmpdir(), 'nerve-claude-project-'))
  home = mkdtempSync(join(tmpdir(), 'nerve-claude-home-'))
  interpreter = claudeWeztermInterpreter({
    backend: 'pty',
    proxy,
    home,
    killGraceMs: 500,
    approvals: {
      policy: approvalRules([
        { tool: 'Bash', pattern: '* > denied.txt', decision: 'deny' },
        { tool: 'Bash', pattern: 'echo hi > out.txt', decision: 'approve' },
      ]),
      onRequest: (request, answer) => {
        asked.push(request)
        void answer('approve')
      },
    },
  })
  node = claudeWezterm('agent', { cwd: project, timeoutMs: 60_000 })
  agent = (await interpreter.start(node, lifecycle)) as ClaudePtyTerminal
}, 90_000)

afterAll(async () => {
  await agent.stop()
  await proxy.close()
  rmSync(project, { recursive: true, force: true })
  rmSync(home, { recursive: true, force: true })
}, 30_000)

const terminal = (): ClaudePtyTerminal => agent

describe('Claude Code in a PTY node, through the model proxy', { timeout: 60_000 }, () => {
  it('starts unattended on a plain PTY in a home the node prepared', () => {
    expect(terminal().backend).toBe('pty')
    expect(terminal().state).toBe('ready')
    const config = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')) as {
      hasCompletedOnboarding: boolean
      projects: Record<string, { hasTrustDialogAccepted: boolean }>
    }
    expect(config.hasCompletedOnboarding).toBe(true)
    expect(config.projects[project]!.hasTrustDialogAccepted).toBe(true)
  })

  it('answers two turns, the second call carrying the first', async () => {
    const one = await terminal().execute('hello there')
    expect(one.text).toBe('Answer to: hello there')
    expect(one.isComplete).toBe(true)
    const two = await terminal().execute('and again')
    expect(two.text).toBe('Answer to: and again')
    const last = proxy.calls('agent').at(-1)!
    expect(promptOf(last.request)).toBe('and again')
    expect(JSON.stringify(last.request.messages)).toContain('Answer to: hello there')
    expect(proxy.usage('agent').usage.output_tokens).toBe(7 * proxy.usage('agent').calls)
  })

  it('runs a tool its policy approves, and reads the tool cell and the answer', async () => {
    const r = await terminal().execute('please WRITE out.txt')
    expect(existsSync(join(project, 'out.txt'))).toBe(true)
    expect(r.sections.find((s) => s.type === 'tool_call')?.metadata['tool']).toBe('Bash')
    expect(r.text).toMatch(/^Tool said: /)
  })

  it('does not run a tool its policy denies', async () => {
    const r = await terminal().execute('please WRITE denied.txt')
    expect(existsSync(join(project, 'denied.txt'))).toBe(false)
    expect(r.sections[0]?.metadata['summary']).toBe('Did not run 1 call')
    expect(asked).toEqual([])
  })

  it('hands a prompt no rule decides to whoever asks, and runs the tool once approved', async () => {
    await terminal().execute('please WRITE asked.txt')
    expect(asked).toEqual([
      expect.objectContaining({ nodeId: 'agent', tool: 'Bash', command: 'echo hi > asked.txt' }),
    ])
    expect(existsSync(join(project, 'asked.txt'))).toBe(true)
  })

  it('is interrupted with Escape and answers the next turn', async () => {
    const controller = new AbortController()
    const slow = terminal().execute('SLOW one', { signal: controller.signal })
    const calls = proxy.usage('agent').calls
    const watch = setInterval(() => {
      if (model.requests.some((r) => promptOf(r).includes('SLOW one'))) controller.abort()
    }, 20)
    const error = await slow.catch((e: unknown) => e)
    expect(error, String(error)).toBeInstanceOf(TerminalInterrupted)
    clearInterval(watch)
    const next = await terminal().execute('after the interrupt', { timeoutMs: 20_000 })
    expect(next.text).toBe('Answer to: after the interrupt')
    expect(proxy.usage('agent').calls).toBe(calls + 1)
  })

  it('forks into a process that resumes the conversation: its first call carries the earlier messages', async () => {
    const fork = await interpreter.fork(node, 'agent-fork', { ...lifecycle, live: agent })
    expect(fork.forkFrom).toBe(terminal().sessionId)
    const forked = await interpreter.start(fork, lifecycle)
    const r = await forked.execute('what did I say first?')
    expect(r.text).toBe('Answer to: what did I say first?')
    const first = proxy.calls('agent-fork')[0]!
    expect(JSON.stringify(first.request.messages)).toContain('hello there')
    await interpreter.stop(fork, { ...lifecycle, live: forked })
  })

  it('stops with no process left', async () => {
    const t = terminal()
    const session = sessionOf(t.pid!)!
    expect(sessionMembers(session).length).toBeGreaterThan(0)
    await interpreter.stop(node, { ...lifecycle, live: t })
    expect(running(t.pid!)).toBe(false)
    expect(sessionMembers(session)).toEqual([])
  })
})

describe('Claude Code with a home nothing prepared', { timeout: 60_000 }, () => {
  it('reports the first-run dialog it stops on, with the screen', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'nerve-claude-bare-'))
    const own = claudeWeztermInterpreter({
      backend: 'pty',
      proxy,
      ownConfig: true,
      killGraceMs: 500,
    })
    try {
      const error = await own
        .start(
          claudeWezterm('bare', { cwd: project, env: { HOME: bare }, timeoutMs: 30_000 }),
          lifecycle,
        )
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TerminalDialog)
      expect((error as TerminalDialog).screen.length).toBeGreaterThan(0)
    } finally {
      rmSync(bare, { recursive: true, force: true })
    }
  })
})
