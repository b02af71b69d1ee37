import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NerveClient, type RemoteNode } from '../../../src/client/index.js'
import {
  anthropicMessages,
  type ModelProxy,
  startModelProxy,
} from '../../../src/interpreters/index.js'
import type { EngineEvent } from '../../../src/protocol/index.js'
import { createEngine, startServer, type ServerHandle } from '../../../src/server/index.js'
import { claudeModel } from './claudeModel.js'
import { until } from './realCli.js'

// The real Claude Code (the pinned devDependency) as a node of a daemon,
// offline against the model proxy: its permission prompts are the
// daemon's approval requests, answered through the client.

let dir: string
let project: string
let proxy: ModelProxy
let server: ServerHandle
let client: NerveClient
let agent: RemoteNode
const events: EngineEvent[] = []

const options = (backend: 'pty' | 'tmux') => ({
  cwd: project,
  backend,
  timeoutMs: 60_000,
  env: { ANTHROPIC_BASE_URL: proxy.baseUrl('agent'), ANTHROPIC_API_KEY: proxy.key('agent') },
  approvals: {
    rules: [
      { tool: 'Bash', pattern: '* > policy.txt', decision: 'approve' },
      { tool: 'Bash', pattern: '* > never.txt', decision: 'deny' },
    ],
  },
})

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-approvals-'))
  project = join(dir, 'project')
  mkdirSync(project)
  proxy = await startModelProxy({
    protocols: [anthropicMessages],
    upstream: { _tag: 'provider', provider: claudeModel() },
  })
  server = await startServer({
    engine: createEngine({ history: false }),
    socket: join(dir, 'n.sock'),
  })
  client = await NerveClient.connect(server.socket)
  const sub = await client.subscribe({ types: ['APPROVAL_REQUESTED', 'APPROVAL_DECIDED'] })
  void (async () => {
    for await (const e of sub) events.push(e)
  })().catch(() => undefined) // the connection closes after the tests
  agent = await client.createNode('agent', 'claude', { options: options('pty') })
}, 90_000)

afterAll(async () => {
  await client.close()
  await server.close()
  await proxy.close()
  rmSync(dir, { recursive: true, force: true })
}, 30_000)

/** The first request event about `command` (waits for it). */
const requested = async (command: string) => {
  let found: Extract<EngineEvent, { type: 'APPROVAL_REQUESTED'; request: unknown }> | undefined
  await until(
    () =>
      (found = events.find(
        (e): e is NonNullable<typeof found> =>
          e.type === 'APPROVAL_REQUESTED' && e.request.command === command,
      )) !== undefined,
    () => JSON.stringify(events),
    30_000,
  )
  return found!
}

/** The decision event of request `id` (waits for it). */
const decided = async (id: string) => {
  let found: Extract<EngineEvent, { type: 'APPROVAL_DECIDED'; decision: unknown }> | undefined
  await until(
    () =>
      (found = events.find(
        (e): e is NonNullable<typeof found> =>
          e.type === 'APPROVAL_DECIDED' && e.decision.request.id === id,
      )) !== undefined,
    () => JSON.stringify(events),
  )
  return found!
}

describe(
  'a Claude Code node on a daemon asks its permission prompts as approvals',
  { timeout: 90_000 },
  () => {
    it('runs the tool once a person approves the request through the client', async () => {
      const answer = agent.execute('please WRITE approved.txt')
      const { request, sessionId } = await requested('echo hi > approved.txt')
      expect({
        sessionId,
        nodeId: request.nodeId,
        tool: request.action,
        risk: request.risk,
      }).toEqual({
        sessionId: 'default',
        nodeId: 'agent',
        tool: 'Bash',
        risk: 'high',
      })
      expect((await client.approvals({ nodeId: 'agent' })).map((r) => r.id)).toEqual([request.id])
      await client.approve(request.id, { by: 'ana', note: 'fine' })
      expect((await answer) as { text: string }).toHaveProperty('text')
      expect(((await answer) as { text: string }).text).toMatch(/^Tool said: /)
      expect(existsSync(join(project, 'approved.txt'))).toBe(true)
      expect((await decided(request.id)).decision).toMatchObject({
        decision: 'approved',
        by: 'ana',
        note: 'fine',
      })
      expect(await client.approvals()).toEqual([])
    })

    it('does not run the tool a person denies', async () => {
      const answer = agent.execute('please WRITE denied.txt')
      const { request } = await requested('echo hi > denied.txt')
      await client.deny(request.id, { note: 'no' })
      await answer
      expect(existsSync(join(project, 'denied.txt'))).toBe(false)
      expect((await decided(request.id)).decision.decision).toBe('denied')
    })

    it("decides by the node's policy without asking anyone", async () => {
      await agent.execute('please WRITE policy.txt')
      expect(existsSync(join(project, 'policy.txt'))).toBe(true)
      const { request } = await requested('echo hi > policy.txt')
      expect((await decided(request.id)).decision).toMatchObject({
        decision: 'approved',
        by: 'policy',
      })
      await agent.execute('please WRITE never.txt')
      expect(existsSync(join(project, 'never.txt'))).toBe(false)
    })

    it('withdraws a request a person answered in the terminal itself', async () => {
      const answer = agent.execute('please WRITE typed.txt')
      const { request } = await requested('echo hi > typed.txt')
      await agent.write('\r') // Enter on the prompt: its first option, Yes
      await answer
      expect(existsSync(join(project, 'typed.txt'))).toBe(true)
      expect((await decided(request.id)).decision).toMatchObject({
        decision: 'cancelled',
        by: 'withdrawn',
      })
      expect(await client.approvals()).toEqual([])
    })

    it('refuses a decision on a request that is not waiting', async () => {
      await expect(client.approve('approval-999')).rejects.toMatchObject({ tag: 'UnknownApproval' })
    })

    it('runs on tmux when the node asks, says so in its info, and asks there too', async () => {
      const tmuxed = await client.createNode('tmuxed', 'claude', { options: options('tmux') })
      let attach = ''
      try {
        const info = await tmuxed.describe()
        attach = String(info.metadata['attach'])
        expect(info.metadata['backend']).toBe('tmux')
        expect(attach).toMatch(/^tmux -S \S+\/tmux-tmuxed-\w+\.sock attach -t claude$/)
        expect((await agent.describe()).metadata).toMatchObject({ backend: 'pty' })
        const answer = tmuxed.execute('please WRITE tmux.txt')
        const { request } = await requested('echo hi > tmux.txt')
        await client.approve(request.id)
        await answer
        expect(existsSync(join(project, 'tmux.txt'))).toBe(true)
      } finally {
        await tmuxed.delete()
      }
      // Its tmux server is gone with it.
      const socket = attach.split(' ')[2]!
      expect(() => execFileSync('tmux', ['-S', socket, 'ls'], { stdio: 'ignore' })).toThrow()
      expect(existsSync(socket)).toBe(false)
    })
  },
)
