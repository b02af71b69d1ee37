import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addNode,
  connect,
  defineSubnetwork,
  network,
  type Network,
  type NetworkEvent,
  type NetworkRunOptions,
  setLimits,
  setProvider,
  startNetwork,
} from 'nerve-agents'
import { SubnetworkBudgetExceeded } from 'nerve-agents/network'
import { BudgetExceeded } from 'nerve-agents/runtime'
import { agentNetwork, fakeClock, scriptedProvider } from 'nerve-agents/testing'

const root = mkdtempSync(join(tmpdir(), 'nerve-network-budgets-'))

/** A model answering `reply <n>` on every call, each call using `tokens` input tokens. */
const costly = (tokens: number) =>
  scriptedProvider([(_r, i) => `reply ${i}`], {
    loop: true,
    usage: { input_tokens: tokens, output_tokens: 0 },
  })

const start = async (net: Network, options: Partial<NetworkRunOptions> = {}) => {
  const events: NetworkEvent[] = []
  const run = await startNetwork(net, {
    root,
    clock: fakeClock({ auto: true }),
    providers: { costly: costly(10) },
    onEvent: (e) => events.push(e),
    ...options,
  })
  return { run, events }
}

const llm = { type: 'llm' as const, provider: 'costly' }
const firings = (events: readonly NetworkEvent[], nodeId: string) =>
  events.filter((e) => e.type === 'firing' && e.nodeId === nodeId).length

describe('network budgets', () => {
  it("halt every node of a sub-network once its nodes' usage together spends its budget", async () => {
    const net = pipe(
      network('groups'),
      addNode({ id: 'a', provider: llm }),
      addNode({ id: 'b', provider: llm }),
      addNode({ id: 'c', provider: llm }),
      defineSubnetwork('impl', { nodes: ['a', 'b'], budget: { maxTokens: 30 } }),
    )
    const { run, events } = await start(net)
    run.send('a', '1')
    await run.idle()
    run.send('b', '2')
    await run.idle()
    expect(run.outcome().halts).toEqual([])
    run.send('b', '3')
    await run.idle()
    const halted = run.outcome().halts
    expect(halted).toHaveLength(1)
    const [spent] = halted
    expect(spent).toBeInstanceOf(SubnetworkBudgetExceeded)
    expect(spent).toMatchObject({
      subnetwork: 'impl',
      nodes: ['a', 'b'],
      limit: 'maxTokens',
      max: 30,
      used: 30,
    })
    // halted: neither a nor b fires again, c (outside the sub-network) still does
    run.send('a', '4')
    run.send('b', '5')
    run.send('c', '6')
    await run.idle()
    const out = await run.stop()
    expect([firings(events, 'a'), firings(events, 'b'), firings(events, 'c')]).toEqual([1, 2, 1])
    expect(out.subnetworks.impl!.tokens).toBe(30)
    expect(out.usage.a!.tokens + out.usage.b!.tokens).toBe(30)
    expect(out.unprocessed.map((e) => e.payload.message)).toEqual(['4', '5'])
    expect(out.status).toBe('halted')
  })

  it('roll nested sub-networks up: a firing counts against every sub-network of its node', async () => {
    const net = pipe(
      network('nested'),
      addNode({ id: 'a', provider: llm }),
      addNode({ id: 'b', provider: llm }),
      defineSubnetwork('outer', { nodes: ['a', 'b'], budget: { maxSteps: 3 } }),
      defineSubnetwork('inner', { nodes: ['a'] }),
    )
    const { run, events } = await start(net)
    for (const m of ['1', '2', '3', '4']) run.send('a', m)
    run.send('b', 'x')
    await run.idle()
    const out = await run.stop()
    expect(firings(events, 'a') + firings(events, 'b')).toBe(3)
    // Read as the run goes: what each budget's limits bound, firings among them.
    expect(run.subnetworkUsage().outer).toMatchObject({ firings: 3, tokens: 30, apiCalls: 3 })
    expect(run.subnetworkUsage().inner).toMatchObject({
      firings: firings(events, 'a'),
      tokens: out.usage.a!.tokens,
    })
    expect(out.subnetworks.outer!.tokens).toBe(30)
    expect(out.subnetworks.inner!.tokens).toBe(out.usage.a!.tokens)
    expect(out.halts.map((h) => (h as SubnetworkBudgetExceeded).subnetwork)).toEqual(['outer'])
  })

  it("halt every node when the network's own budget is spent", async () => {
    const net = pipe(
      network('whole', { budget: { maxTokens: 20 } }),
      addNode({ id: 'a', provider: llm }),
      addNode({ id: 'b', provider: llm }),
      connect('a', 'b', { direction: 'one-way' }),
    )
    const { run, events } = await start(net)
    run.send('a', 'go')
    await run.idle()
    run.send('a', 'again')
    run.send('b', 'you too')
    await run.idle()
    const out = await run.stop()
    expect(firings(events, 'a') + firings(events, 'b')).toBe(2)
    expect(out.halts).toHaveLength(1)
    expect(out.halts[0]).toBeInstanceOf(BudgetExceeded)
    expect(out.halts[0]).toMatchObject({ limit: 'maxTokens', max: 20, used: 20 })
    const halt = events.find((e) => e.type === 'halt')
    expect(halt?.type === 'halt' && halt.nodes).toEqual(['a', 'b'])
  })

  it('law: a sub-network uses the sum of its nodes, and none of its nodes starts a firing once it is spent', async () => {
    await fc.assert(
      fc.asyncProperty(
        agentNetwork({ maxNodes: 5, maxSubnetworks: 3 }),
        fc.integer({ min: 1, max: 4 }),
        async (generated, maxInFlight) => {
          let net = pipe(generated, setLimits({ maxIterations: 4, maxInFlight, stallAfter: 100 }))
          for (const id of Object.keys(net.nodes)) net = setProvider(id, llm)(net)
          const { run, events } = await start(net)
          for (const id of Object.keys(net.nodes)) run.send(id, `go ${id}`)
          await run.idle()
          const out = await run.stop()
          for (const g of Object.values(net.subnetworks ?? {})) {
            const sum = g.nodes.reduce((n, id) => n + (out.usage[id]?.tokens ?? 0), 0)
            expect(out.subnetworks[g.id]?.tokens ?? 0).toBe(sum)
            // Replay the events: each firing uses 10 tokens, added when it ends.
            const members = new Set(g.nodes)
            let tokens = 0
            let started = 0
            let haltedAt: number | undefined
            events.forEach((e, i) => {
              if (e.type === 'halt' && e.error === 'SubnetworkBudgetExceeded') {
                if (e.message.includes(`"${g.id}"`)) haltedAt ??= i
              }
              if (!('nodeId' in e) || !members.has(e.nodeId)) return
              if (e.type === 'fired') tokens += 10
              if (e.type !== 'firing') return
              started++
              if (haltedAt !== undefined) expect.fail(`${e.nodeId} fired after "${g.id}" halted`)
              const max = g.budget?.maxTokens
              if (max !== undefined) expect(tokens).toBeLessThan(max)
            })
            if (g.budget?.maxSteps !== undefined) {
              expect(started).toBeLessThanOrEqual(g.budget.maxSteps)
            }
          }
        },
      ),
      { numRuns: 40 },
    )
  })
})
