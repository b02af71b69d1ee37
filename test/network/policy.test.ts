import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addNode, network, type NetworkEvent, startNetwork, type WorkflowMode } from 'nerve-agents'
import { writeTool } from 'nerve-agents/interpreters'
import { PolicyRefused, policyTools } from 'nerve-agents/network'

const bash = (command: string) => ({ tools: [{ name: 'bash', input: { command } }] })
const write = (path: string, content: string) => ({
  tools: [{ name: 'write', input: { path, content } }],
})

const waitFor = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setImmediate(r))
}

describe('the workflow policy', () => {
  it('refuses a planning write outside docs/ with a typed error the model reads', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nerve-policy-'))
    const refused: PolicyRefused[] = []
    let mode: WorkflowMode = 'planning'
    const [guarded] = policyTools([writeTool({ root })], {
      nodeId: 'planner',
      root,
      workflow: () => mode,
      assignment: () => undefined,
      approve: () => Promise.resolve(false),
      onRefused: (e) => refused.push(e),
    })
    const ctx = { signal: new AbortController().signal, toolUseId: 't', depth: 0 }
    const out = await guarded!.run({ path: 'src/a.ts', content: 'x' }, ctx)
    expect(out).toEqual({
      content: expect.stringContaining('planning mode allows writes only under docs/') as string,
      is_error: true,
    })
    expect(refused[0]).toBeInstanceOf(PolicyRefused)
    expect(refused[0]).toMatchObject({ nodeId: 'planner', tool: 'write', target: 'src/a.ts' })
    await guarded!.run({ path: 'docs/plan.md', content: '# plan' }, ctx)
    expect(readFileSync(join(root, 'docs/plan.md'), 'utf8')).toBe('# plan')
    mode = 'implementation'
    await guarded!.run({ path: 'src/a.ts', content: 'x' }, ctx)
    expect(existsSync(join(root, 'src/a.ts'))).toBe(true)
  })

  it('makes shell commands wait for an approval while planning, and records the decision', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nerve-policy-'))
    const events: NetworkEvent[] = []
    const net = pipe(
      network('plan', { workflow: 'planning' }),
      addNode({
        id: 'planner',
        role: 'Planner',
        tools: ['bash'],
        provider: { type: 'mock', script: [bash('echo hi > note.txt'), 'ok'] },
      }),
    )
    const run = await startNetwork(net, { root, onEvent: (e) => events.push(e) })
    run.send('planner', 'look around')
    await waitFor(() => run.control.pending().length === 1)
    const [request] = run.control.pending()
    expect(request).toMatchObject({
      nodeId: 'planner',
      action: 'bash',
      target: 'echo hi > note.txt',
      reason: 'shell commands need approval in planning mode',
    })
    run.control.approve(request!.id, 'ana')
    await run.idle()
    await run.stop()
    expect(readFileSync(join(root, 'note.txt'), 'utf8')).toBe('hi\n')
    expect(events.find((e) => e.type === 'decision')).toMatchObject({
      decision: { decision: 'approved', by: 'ana' },
    })
  })

  it('routes a write outside the assignment to an approval in implementation, refusing it when denied', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nerve-policy-'))
    const net = pipe(
      network('impl'),
      addNode({
        id: 'coder',
        tools: ['write'],
        assignment: ['src'],
        provider: { type: 'mock', script: [write('package.json', '{}'), 'tried'] },
      }),
    )
    const events: NetworkEvent[] = []
    const run = await startNetwork(net, { root, onEvent: (e) => events.push(e) })
    run.send('coder', 'go')
    await waitFor(() => run.control.pending().length === 1)
    run.control.deny(run.control.pending()[0]!.id, 'orchestrator')
    await run.idle()
    await run.stop()
    expect(existsSync(join(root, 'package.json'))).toBe(false)
    expect(events.find((e) => e.type === 'refused')).toMatchObject({
      tool: 'write',
      target: 'package.json',
    })
  })
})

describe('approvals routed to the Orchestrator', () => {
  it('are decided by its answer, recorded with it as the decider', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nerve-policy-'))
    const net = pipe(
      network('orchestrated', { workflow: 'planning' }),
      addNode({
        id: 'boss',
        role: 'Orchestrator',
        provider: { type: 'mock', script: ['APPROVE: harmless'] },
      }),
      addNode({
        id: 'planner',
        role: 'Planner',
        tools: ['bash'],
        provider: { type: 'mock', script: [bash('echo ok > seen.txt'), 'ok'] },
      }),
    )
    const run = await startNetwork(net, { root })
    run.send('planner', 'check')
    await run.idle()
    await run.stop()
    expect(readFileSync(join(root, 'seen.txt'), 'utf8')).toBe('ok\n')
    expect(run.control.decisions()).toEqual([
      expect.objectContaining({ decision: 'approved', by: 'boss', note: 'APPROVE: harmless' }),
    ])
    expect(run.log.envelopes().map((e) => `${e.kind} ${e.fromNodeId}→${e.toNodeId}`)).toEqual([
      'message user→planner',
      'message planner→boss',
      'status boss→planner',
    ])
  })
})
