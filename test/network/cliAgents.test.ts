import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  addNode,
  connect,
  network,
  type Network,
  type NetworkAgentOptions,
  type NetworkEvent,
  type NetworkRun,
  startNetwork,
} from 'nerve-agents'
import { ProxyCallCodec, type PtyTerminal } from 'nerve-agents/interpreters'
import { tapeRecorder } from 'nerve-agents/store'
import { cliRoot, scriptedModel, type ScriptedModel } from '../interpreters/agents/realCli.js'
import { cliHandoff } from './cliHandoff.js'

// The real programs (devDependencies), each in a home its node prepares,
// calling the scripted model through the model proxy the run owns.
const { root, work } = cliRoot('cli-network')
let model: ScriptedModel

beforeAll(async () => {
  model = await scriptedModel()
}, 30_000)

afterAll(async () => {
  await model.proxy.close()
})

const pricing = { inputPerMTok: 3, outputPerMTok: 15 }
/** The run's proxy forwards to the scripted model's, with a key that proxy made. */
const agents = (m: ScriptedModel): NetworkAgentOptions => ({
  upstream: { _tag: 'forward', baseUrl: m.proxy.url, headers: { 'x-api-key': m.proxy.key('run') } },
  pricing,
})

describe('network runs of the real CLI agents', () => {
  it.each([
    ['claude', undefined],
    ['codex', 'gpt-5'],
    ['gemini', undefined],
  ] as const)(
    'drive %s-cli in a home of its own through the run proxy, its usage exact and its calls recorded',
    async (name, gptModel) => {
      model.push({ text: `Handled by ${name}.` })
      const tape = tapeRecorder()
      const provider = {
        type: 'cli',
        agent: `${name}-cli`,
        ...(gptModel !== undefined && { model: gptModel }),
      } as const
      const seen: string[] = []
      const { message, outcome, calls } = await cliHandoff(provider, work, 'hello there', {
        agents: { ...agents(model), onCall: (c) => seen.push(c.agent) },
        wrapInterpreter: tape.interpreter,
      })
      expect(message).toBe(`Handled by ${name}.`)
      expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain('hello there')
      // Exact usage from the proxy (10 input and 5 output tokens a call), not the screen.
      const used = outcome.usage.agent!
      expect(used.apiCalls).toBeGreaterThanOrEqual(1)
      expect(used.tokens).toBe(15 * used.apiCalls)
      expect(used.cost).toBeCloseTo((used.apiCalls * (10 * 3 + 5 * 15)) / 1e6, 12)
      expect(seen).toContain('agent')
      expect(calls.some((c) => JSON.stringify(c.request.messages).includes('hello there'))).toBe(
        true,
      )
      // The firing's output on the recording carries its model calls.
      const step = tape.tape().calls.find((c) => c.kind === 'step' && c.name === 'agent')
      const value = step?.outcome._tag === 'value' ? step.outcome.value : undefined
      expect((value as { modelCalls: unknown[] }).modelCalls).toHaveLength(used.apiCalls)
    },
    120_000,
  )
})

describe('a real CLI agent whose program died', () => {
  it('is started again at its next firing, and the network tells it as respawned', async () => {
    const net = pipe(
      network('respawn'),
      addNode({ id: 'agent', provider: { type: 'cli', agent: 'claude-cli' } }),
      addNode({ id: 'sink', provider: { type: 'mock', script: ['ok'] } }),
      connect('agent', 'sink', { direction: 'one-way' }),
    )
    const events: NetworkEvent[] = []
    const run: NetworkRun = await startNetwork(net, {
      root: work,
      agents: agents(model),
      onEvent: (e) => events.push(e),
    })
    try {
      model.push({ text: 'First answer.' })
      run.send('agent', 'one')
      await run.idle()
      const terminal = run.session.live('agent') as PtyTerminal
      const first = terminal.pid!
      process.kill(first, 'SIGKILL')
      // Until the terminal has seen its program exit.
      while (terminal.state !== 'stopped') await new Promise((resolve) => setTimeout(resolve, 20))
      expect(events.some((e) => e.type === 'respawned')).toBe(false)
      model.push({ text: 'Second answer.' })
      run.send('agent', 'two')
      await run.idle()
      expect((run.session.live('agent') as PtyTerminal).pid).not.toBe(first)
      expect(events.filter((e) => e.type === 'respawned')).toEqual([
        { type: 'respawned', runId: run.runId, nodeId: 'agent' },
      ])
      const answers = run.log.envelopes().filter((e) => e.fromNodeId === 'agent')
      expect(answers.map((e) => e.payload.message)).toEqual(['First answer.', 'Second answer.'])
    } finally {
      await run.stop()
    }
  }, 120_000)
})

describe('a network of real CLI agents on a budget', () => {
  it('has the run proxy refuse the calls of a node past its budget, within the firing', async () => {
    const own = await scriptedModel()
    try {
      own.push(
        {
          tools: [{ name: 'run_shell_command', input: { command: 'ls -a', description: 'List' } }],
        },
        { text: 'Never sent: the budget allows one call.' },
      )
      const net = pipe(
        network('budget'),
        addNode({
          id: 'agent',
          provider: { type: 'cli', agent: 'gemini-cli' },
          budget: { maxApiCalls: 1 },
        }),
      )
      const run = await startNetwork(net, { root: work, agents: agents(own) })
      run.send('agent', 'list the files')
      await run.idle()
      const out = await run.stop()
      // The tool call was answered; the call with its result was refused, never sent on.
      expect(own.requests).toHaveLength(1)
      expect(out.usage.agent!.apiCalls).toBe(1)
      expect(run.modelCalls()).toHaveLength(1)
    } finally {
      await own.proxy.close()
    }
  }, 120_000)
})

describe("a real CLI agent's permission prompts in a network", () => {
  it('are the run approvals: an approved command runs, a denied one does not', async () => {
    const own = await scriptedModel()
    const bash = (file: string) => ({
      tools: [{ name: 'Bash', input: { command: `echo hi > ${file}`, description: 'Write' } }],
    })
    own.push(bash('yes.txt'), { text: 'Wrote yes.txt.' }, bash('no.txt'), { text: 'Refused.' })
    const at = join(root, 'prompts')
    mkdirSync(at)
    const asked: Extract<NetworkEvent, { type: 'approval' | 'decision' }>[] = []
    let run: NetworkRun | undefined
    try {
      run = await startNetwork(
        pipe(
          network('prompts'),
          addNode({ id: 'agent', provider: { type: 'cli', agent: 'claude-cli' } }),
        ),
        {
          root: at,
          agents: agents(own),
          onEvent: (e) => {
            if (e.type !== 'approval' && e.type !== 'decision') return
            asked.push(e)
            if (e.type === 'approval') {
              if (e.request.command?.includes('yes.txt') === true)
                run!.control.approve(e.request.id, 'ana')
              else run!.control.deny(e.request.id, 'ana', 'not that one')
            }
          },
        },
      )
      run.send('agent', 'write yes.txt')
      await run.idle()
      run.send('agent', 'write no.txt')
      await run.idle()
      expect(existsSync(join(at, 'yes.txt'))).toBe(true)
      expect(existsSync(join(at, 'no.txt'))).toBe(false)
      expect(
        asked.map((e) =>
          e.type === 'approval'
            ? `asked ${e.request.nodeId} ${e.request.action} ${e.request.command ?? ''}`
            : `${e.decision.decision} by ${e.decision.by}`,
        ),
      ).toEqual([
        'asked agent Bash echo hi > yes.txt',
        'approved by ana',
        'asked agent Bash echo hi > no.txt',
        'denied by ana',
      ])
    } finally {
      await run?.stop()
      await own.proxy.close()
    }
  }, 180_000)
})

describe('a recorded network of real CLI agents', () => {
  const relay: Network = pipe(
    network('relay'),
    addNode({ id: 'writer', provider: { type: 'cli', agent: 'claude-cli' } }),
    addNode({ id: 'reviewer', provider: { type: 'cli', agent: 'codex-cli', model: 'gpt-5' } }),
    addNode({ id: 'sink', provider: { type: 'mock', script: ['DONE'] } }),
    connect('writer', 'reviewer', { direction: 'one-way' }),
    connect('reviewer', 'sink', { direction: 'one-way' }),
  )

  /** Runs the relay in `dir` with `options`: the messages it passed along, and its agents' model calls. */
  const relayOnce = async (dir: string, options: NetworkAgentOptions) => {
    const at = join(root, dir)
    mkdirSync(at)
    const run = await startNetwork(relay, { root: at, agents: options })
    run.send('writer', 'write a haiku')
    await run.idle()
    const out = await run.stop()
    expect(out.done).toEqual(['sink'])
    const messages = out.log
      .envelopes()
      .map((e) => `${e.fromNodeId} -> ${e.toNodeId}: ${e.payload.message}`)
    return { messages, calls: run.modelCalls() }
  }

  it('replays from its proxy tape with no model server: the real programs, the same messages', async () => {
    const live = await scriptedModel()
    live.push({ text: 'Autumn wind, drafted.' }, { text: 'Reviewed: it scans.' })
    const recorded = await relayOnce('live', agents(live))
    await live.proxy.close()
    expect(recorded.messages).toEqual([
      'user -> writer: write a haiku',
      'writer -> reviewer: Autumn wind, drafted.',
      'reviewer -> sink: Reviewed: it scans.',
    ])
    // The tape is plain JSON, decoded strictly.
    const tape = t.readonlyArray(ProxyCallCodec).decode(JSON.parse(JSON.stringify(recorded.calls)))
    if (E.isLeft(tape)) throw new Error('the recorded calls are not a tape')
    const replayed = await relayOnce('replay', { upstream: { _tag: 'replay', calls: tape.right } })
    expect(replayed.messages).toEqual(recorded.messages)
    // Each turn answered from the tape (Codex's title call may come after the run stopped).
    const turns = (calls: typeof recorded.calls) =>
      calls.filter((c) => c.request.tools.length > 0).map((c) => `${c.agent}#${c.index}`)
    expect(turns(replayed.calls).sort()).toEqual(turns(recorded.calls).sort())
    expect(turns(replayed.calls)).toEqual(expect.arrayContaining(['writer#0', 'reviewer#0']))
  }, 180_000)
})
