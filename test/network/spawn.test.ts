import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addNode,
  type Block,
  network,
  type NetworkEvent,
  type Provider,
  setLimits,
  startNetwork,
  zeroUsage,
} from 'nerve-agents'
import { type ModelRequest } from 'nerve-agents/interpreters'

/** A model answering `turns` in order (a tool call or a text), keeping what it was asked. */
const scripted = (
  turns: readonly (string | { name: string; input: Readonly<Record<string, unknown>> })[],
) => {
  const requests: ModelRequest[] = []
  const provider: Provider = {
    name: 'orchestrator-model',
    call: (request) => {
      requests.push(request)
      const turn = turns[Math.min(requests.length - 1, turns.length - 1)]!
      const content: Block[] =
        typeof turn === 'string'
          ? [{ type: 'text', text: turn }]
          : [{ type: 'tool_use', id: `t${requests.length}`, name: turn.name, input: turn.input }]
      return Promise.resolve({
        content,
        stopReason: typeof turn === 'string' ? 'end_turn' : 'tool_use',
        usage: zeroUsage,
        model: 'scripted',
      })
    },
  }
  return { provider, requests }
}

/** The text of the tool results the model was sent, in order. */
const toolResults = (requests: readonly ModelRequest[]): string[] =>
  (requests.at(-1)?.messages ?? []).flatMap((m) =>
    typeof m.content === 'string'
      ? []
      : m.content.flatMap((b) =>
          b.type === 'tool_result' ? [typeof b.content === 'string' ? b.content : ''] : [],
        ),
  )

const team = (maxSpawned = 8) =>
  pipe(
    network('spawning'),
    addNode({
      id: 'lead',
      role: 'Orchestrator',
      prompt: 'Get hello written.',
      provider: { type: 'llm', provider: 'orchestrator-model' },
      budget: { maxTokens: 1000, maxApiCalls: 40 },
    }),
    setLimits({ maxSpawned }),
  )

const coder = { type: 'mock', script: ['Wrote hello.\nDONE'] }

describe('the Orchestrator spawning sub-agents', () => {
  it('spawns a node by a live edit, awaits its answer, stops it, within a share of its budget', async () => {
    const { provider, requests } = scripted([
      {
        name: 'spawn_agent',
        input: { id: 'c1', role: 'Coder', task: 'write hello', provider: coder, share: 0.5 },
      },
      { name: 'await_agent', input: { id: 'c1' } },
      { name: 'stop_agent', input: { id: 'c1' } },
      'All done.\nDONE',
    ])
    const events: NetworkEvent[] = []
    let spawnedBudget: unknown
    const run = await startNetwork(team(), {
      root: mkdtempSync(join(tmpdir(), 'nerve-spawn-')),
      providers: { 'orchestrator-model': provider },
      onEvent: (e) => {
        events.push(e)
        if (e.type === 'patch' && e.label.startsWith('spawn'))
          spawnedBudget = run.network.nodes.c1?.budget
      },
    })
    await run.idle()
    const out = await run.stop()

    expect(toolResults(requests)).toEqual([
      'spawned "c1" (Coder)',
      'done: Wrote hello.\nDONE',
      'stopped "c1"',
    ])
    const patches = events.flatMap((e) => (e.type === 'patch' ? [e] : []))
    expect(patches.map((p) => p.label)).toEqual(['spawn c1 by lead', 'stop c1 by lead'])
    expect(patches[0]!.patches).toContainEqual(
      expect.objectContaining({ op: 'add', path: ['nodes', 'c1'] }),
    )
    expect(spawnedBudget).toEqual({ maxTokens: 500, maxApiCalls: 20 })
    expect(run.network.nodes.c1).toBeUndefined()
    expect(out.status).toBe('done')
    const task = out.log.envelopes().find((e) => e.toNodeId === 'c1')
    expect(task).toMatchObject({ fromNodeId: 'lead', payload: { message: 'write hello' } })
  })

  it('refuses a command node, a spawn past limits.maxSpawned, and an await of a node it did not spawn', async () => {
    const { provider, requests } = scripted([
      {
        name: 'spawn_agent',
        input: { id: 'sh', role: 'Coder', task: 'a', provider: { type: 'command', command: 'id' } },
      },
      { name: 'spawn_agent', input: { id: 'c1', role: 'Coder', task: 'a', provider: coder } },
      { name: 'spawn_agent', input: { id: 'c2', role: 'Coder', task: 'b', provider: coder } },
      { name: 'await_agent', input: { id: 'lead' } },
      'DONE',
    ])
    const run = await startNetwork(team(1), {
      root: mkdtempSync(join(tmpdir(), 'nerve-spawn-')),
      providers: { 'orchestrator-model': provider },
    })
    await run.idle()
    await run.stop()
    expect(toolResults(requests)).toEqual([
      'spawn_agent starts agents (mock, llm or cli providers), not commands',
      'spawned "c1" (Coder)',
      'the network allows 1 spawned agents (limits.maxSpawned)',
      '"lead" is not a sub-agent of "lead"',
    ])
    expect(Object.keys(run.network.nodes).sort()).toEqual(['c1', 'lead'])
  })

  it('gives up an await after its timeout, and the run goes on', async () => {
    const { provider, requests } = scripted([
      {
        name: 'spawn_agent',
        input: {
          id: 'slow',
          role: 'Verifier',
          task: 'x',
          provider: { type: 'llm', provider: 'silent' },
        },
      },
      { name: 'await_agent', input: { id: 'slow', timeoutMs: 100 } },
      { name: 'stop_agent', input: { id: 'slow' } },
      'Gave up.\nDONE',
    ])
    // a model that answers nothing until its call is aborted
    const silent: Provider = {
      name: 'silent',
      call: (_request, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener(
            'abort',
            () => {
              reject(signal.reason as Error)
            },
            { once: true },
          )
        }),
    }
    const run = await startNetwork(team(), {
      root: mkdtempSync(join(tmpdir(), 'nerve-spawn-')),
      providers: { 'orchestrator-model': provider, silent },
    })
    await run.idle()
    await run.stop()
    expect(toolResults(requests)).toEqual([
      'spawned "slow" (Verifier)',
      '"slow" gave no answer in time',
      'stopped "slow"',
    ])
  })
})
