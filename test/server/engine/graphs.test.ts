import * as E from 'fp-ts/lib/Either.js'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeConversation, messages } from '../../../src/conversation/index.js'
import { describe, expect, it } from 'vitest'
import type { EngineEvent } from '../../../src/server/index.js'
import { exitingTerminalGraph } from '../../interpreters/terminal/processes.js'
import { connectedPeers, until, type Peer } from '../kit.js'

const connected = connectedPeers()
const keepingOne = connectedPeers({ limits: { keptRuns: 1 } })

interface Run {
  state: string
  results?: Record<string, { stdout: string }>
  error?: { tag: string }
  trace?: { status: string; steps: { stepId: string; status: string; parents: string[] }[] }
}

const settled = async (p: Peer, runId: string): Promise<Run> => {
  let run: Run = { state: 'running' }
  await until(() => {
    void p.ok<Run>('GET_RUN', { runId }).then((r) => (run = r))
    return run.state !== 'running'
  }, 10_000)
  return run
}

const twoSteps = {
  id: 'pipeline',
  nodes: {
    hello: { kind: 'bash', command: 'echo hello' },
    shout: { kind: 'bash', command: 'echo HELLO' },
  },
  steps: [
    { id: 'first', node: 'hello' },
    { id: 'second', node: 'shout', dependsOn: ['first'] },
  ],
}

describe('EXECUTE_GRAPH and GET_RUN', () => {
  it('answers a run id at once; the run ends with results, a trace and the run events in order', async () => {
    const p = await connected()
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph: twoSteps })
    expect(runId).toMatch(/^[0-9a-f-]{36}$/)
    const run = await settled(p, runId)
    expect(run.state).toBe('completed')
    expect(run.results!.second!.stdout).toBe('HELLO\n')
    expect(run.trace!.steps.map((s) => [s.stepId, s.status, s.parents])).toEqual([
      ['first', 'completed', []],
      ['second', 'completed', ['first']],
    ])
  })

  it('answers the graph file and input a run ran, so that any client can run it again', async () => {
    const p = await connected()
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
      graph: twoSteps,
      input: { topic: 'x' },
    })
    const running = await p.ok<Run & { graph: unknown; input: unknown }>('GET_RUN', { runId })
    expect(running).toMatchObject({ graph: twoSteps, input: { topic: 'x' } })
    const ended = await settled(p, runId)
    expect(ended).toMatchObject({ state: 'completed', graph: twoSteps, input: { topic: 'x' } })
    const again = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
      graph: (ended as { graph?: unknown }).graph,
    })
    expect((await settled(p, again.runId)).results!.second!.stdout).toBe('HELLO\n')
  })

  it("answers where a running run's steps stand: the latest event of each, none once it ended", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nerve-steps-'))
    try {
      const p = await connected()
      const open = join(dir, 'open')
      const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
        graph: {
          id: 'midway',
          nodes: { sh: { kind: 'bash' } },
          steps: [
            { id: 'early', node: 'sh', input: 'echo early' },
            {
              id: 'waits',
              node: 'sh',
              input: `while [ ! -e ${open} ]; do sleep 0.02; done`,
              dependsOn: ['early'],
            },
          ],
        },
      })
      type Steps = { steps?: { type: string; stepId: string }[] }
      let now: Steps = {}
      await until(() => {
        void p.ok<Steps>('GET_RUN', { runId }).then((r) => (now = r))
        return now.steps?.some((s) => s.stepId === 'waits') === true
      }, 10_000)
      expect(now.steps!.map((s) => [s.stepId, s.type])).toEqual([
        ['early', 'STEP_COMPLETED'],
        ['waits', 'STEP_STARTED'],
      ])
      writeFileSync(open, '')
      const ended = await settled(p, runId)
      expect(ended.state).toBe('completed')
      expect(ended).not.toHaveProperty('steps')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('runs the nodes the file describes in cwd when they name none of their own', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'nerve-cwd-')))
    try {
      const p = await connected()
      const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
        cwd: dir,
        graph: {
          id: 'where',
          nodes: { here: { kind: 'bash' }, root: { kind: 'bash', cwd: '/' } },
          steps: [
            { id: 'a', node: 'here', input: 'pwd' },
            { id: 'b', node: 'root', input: 'pwd' },
          ],
        },
      })
      const run = await settled(p, runId)
      expect(run.results!.a!.stdout).toBe(`${dir}\n`)
      expect(run.results!.b!.stdout).toBe('/\n')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("tells a long step output's end (truncated) in STEP_COMPLETED; GET_RUN has it whole", async () => {
    const p = await connected()
    await p.ok('SUBSCRIBE', { types: ['STEP_COMPLETED'] })
    const graph = {
      id: 'long',
      nodes: { count: { kind: 'bash', command: 'seq 100000 119999' } },
      steps: [{ id: 'count', node: 'count' }],
    }
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph })
    const whole = (await settled(p, runId)).results!.count!.stdout
    expect(whole).toHaveLength(140_000)
    const told = await p.waitFor((e) => e.type === 'STEP_COMPLETED')
    expect(told).toMatchObject({ stepId: 'count', truncated: true })
    expect((told as { output: { stdout: string } }).output.stdout).toBe(whole.slice(-64 * 1024))
  })

  it('tells a subscriber of that run its graph and step events', async () => {
    const p = await connected()
    const first = await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph: twoSteps })
    await settled(p, first.runId)
    const { subscription } = await p.ok<{ subscription: string }>('SUBSCRIBE', {
      types: ['GRAPH_STARTED', 'STEP_STARTED', 'STEP_COMPLETED', 'GRAPH_COMPLETED'],
    })
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph: twoSteps })
    await settled(p, runId)
    const seen = p.events(subscription).map((e: EngineEvent) => {
      const x = e as { stepId?: string; runId?: string }
      expect(x.runId).toBe(runId)
      return x.stepId === undefined ? e.type : `${e.type} ${x.stepId}`
    })
    expect(seen).toEqual([
      'GRAPH_STARTED',
      'STEP_STARTED first',
      'STEP_COMPLETED first',
      'STEP_STARTED second',
      'STEP_COMPLETED second',
      'GRAPH_COMPLETED',
    ])
  })

  it('tells RUN_NODE_RESPAWNED when a terminal the run started had exited and a later step starts it again', async () => {
    const p = await connected()
    const { subscription } = await p.ok<{ subscription: string }>('SUBSCRIBE', {
      types: ['RUN_NODE_RESPAWNED', 'NODE_RESPAWNED'],
    })
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
      graph: exitingTerminalGraph,
    })
    const run = await settled(p, runId)
    expect(run.state).toBe('completed')
    await until(() => p.events(subscription).length > 0)
    // The run's own terminal, not a session node: told as the run's, for the step that needed it.
    expect(p.events(subscription)).toMatchObject([
      { type: 'RUN_NODE_RESPAWNED', runId, path: ['after'], nodeId: 'sh', kind: 'pty' },
    ])
  })

  it('resolves step nodes the file does not describe among the session nodes', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'chat', kind: 'llm', options: { provider: 'echo' } })
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
      graph: { id: 'g', steps: [{ id: 'ask', nodeRef: 'chat' }] },
      input: 'ping',
    })
    const run = await settled(p, runId)
    expect(run.results).toEqual({ ask: 'echo: ping' })
  })

  it('reports a failed run with its error and partial trace', async () => {
    const p = await connected()
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
      graph: {
        id: 'g',
        nodes: { bad: { kind: 'bash', command: 'exit 4' } },
        steps: [{ id: 'a', node: 'bad' }],
      },
    })
    const run = await settled(p, runId)
    expect(run.state).toBe('failed')
    expect(run.error!.tag).toBe('StepFailed')
    expect(run.trace!.steps[0]!.status).toBe('failed')
  })

  it('refuses a graph file that does not decode, with the file errors under /graph', async () => {
    const p = await connected()
    const r = await p.call('EXECUTE_GRAPH', {
      graph: { id: 'g', steps: [{ id: 'a', node: 'x', dependsOn: ['zz'] }], extra: 1 },
    })
    expect(r.error).toMatchObject({ code: -32008, data: { tag: 'GraphFileInvalid' } })
    const paths = (r.error!.data!.errors as { path: string }[]).map((e) => e.path)
    expect(paths).toContain('/graph/extra')
  })
})

describe('CANCEL_GRAPH', () => {
  it('cancels a running run, which ends cancelled; a second cancel says it had ended', async () => {
    const p = await connected()
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', {
      graph: {
        id: 'g',
        nodes: { slow: { kind: 'bash', command: 'sleep 10' } },
        steps: [{ id: 'a', node: 'slow' }],
      },
    })
    await new Promise((r) => setTimeout(r, 100))
    expect(await p.ok('CANCEL_GRAPH', { runId })).toEqual({ cancelled: true })
    const run = await settled(p, runId)
    expect(run.state).toBe('cancelled')
    expect(await p.ok('CANCEL_GRAPH', { runId })).toEqual({ cancelled: false })
  })

  it('refuses an unknown run', async () => {
    const p = await connected()
    for (const method of ['CANCEL_GRAPH', 'GET_RUN']) {
      expect((await p.call(method, { runId: 'nope' })).error).toMatchObject({
        code: -32001,
        data: { tag: 'UnknownRun', path: '/runId' },
      })
    }
  })
})

describe('finished runs', () => {
  it('are kept up to limits.keptRuns, the oldest forgotten first', async () => {
    const p = await keepingOne()
    const graph = {
      id: 'g',
      nodes: { one: { kind: 'bash', command: 'true' } },
      steps: [{ id: 'a', node: 'one' }],
    }
    const first = await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph })
    await settled(p, first.runId)
    const second = await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph })
    await settled(p, second.runId)
    expect((await p.call('GET_RUN', { runId: first.runId })).error).toMatchObject({
      data: { tag: 'UnknownRun' },
    })
    expect((await p.ok<Run>('GET_RUN', { runId: second.runId })).state).toBe('completed')
  })

  it('runs the toolset and mcp-server kinds of a graph file', async () => {
    const p = await connected()
    const graph = {
      id: 'tools',
      nodes: {
        fs: { kind: 'toolset', builtin: ['read', 'grep'], root: '.' },
        broken: { kind: 'mcp-server', command: process.execPath, args: ['-e', 'process.exit(5)'] },
      },
      steps: [{ id: 'fs', node: 'fs' }],
    }
    const ok = await settled(p, (await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph })).runId)
    expect(ok.state).toBe('completed')
    expect(ok.results!.fs as unknown).toEqual(['read', 'grep'])
    const failing = { ...graph, steps: [{ id: 'srv', node: 'broken' }] }
    const bad = await settled(
      p,
      (await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph: failing })).runId,
    )
    expect(bad.state).toBe('failed')
    // Failed by the server, not for want of an interpreter.
    expect(bad.error?.tag).toBe('StepFailed')
  })
})

describe('GET_CONVERSATION', () => {
  it("answers an LLM node's conversation as a Nerve file, registered or used by a graph run", async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'chat', kind: 'llm', options: { provider: 'echo' } })
    await p.ok('EXECUTE_INPUT', { nodeId: 'chat', input: 'hello' })
    const got = await p.ok<{ messageCount: number; conversation: unknown }>('GET_CONVERSATION', {
      nodeId: 'chat',
    })
    expect(got.messageCount).toBe(2)
    const doc = decodeConversation(got.conversation)
    expect(E.isRight(doc)).toBe(true)
    if (E.isRight(doc)) {
      expect(messages(doc.right.heads[0]!).map((m) => m.role)).toEqual(['user', 'assistant'])
    }

    const graph = {
      id: 'ask',
      nodes: { bot: { kind: 'llm', provider: 'echo' } },
      steps: [
        { id: 'one', node: 'bot', input: 'first' },
        { id: 'two', node: 'bot', input: 'second', dependsOn: ['one'] },
      ],
    }
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph })
    expect((await settled(p, runId)).state).toBe('completed')
    const bot = await p.ok<{ messageCount: number }>('GET_CONVERSATION', { nodeId: 'bot' })
    expect(bot.messageCount).toBe(4)
  })

  it('refuses a node that is not an LLM node, and one that does not exist', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    expect((await p.call('GET_CONVERSATION', { nodeId: 'sh' })).error).toMatchObject({
      data: { tag: 'InvalidOptions', path: '/nodeId' },
    })
    expect((await p.call('GET_CONVERSATION', { nodeId: 'nobody' })).error).toMatchObject({
      data: { tag: 'UnknownNode' },
    })
  })
})
