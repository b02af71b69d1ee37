import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addNode,
  connect,
  network,
  type Network,
  type NetworkEvent,
  type NetworkRunOptions,
  type Provider,
  removeNode,
  setLimits,
  setMode,
  startNetwork,
} from 'nerve-agents'
import { MaxIterationsExceeded, StallError } from 'nerve-agents/network'
import { BudgetExceeded } from 'nerve-agents/runtime'
import { agentNetwork, fakeClock, scriptedProvider, seededSchedule } from 'nerve-agents/testing'

const root = mkdtempSync(join(tmpdir(), 'nerve-network-run-'))

const start = async (net: Network, options: Partial<NetworkRunOptions> = {}) => {
  const events: NetworkEvent[] = []
  const run = await startNetwork(net, {
    root,
    clock: fakeClock({ auto: true }),
    onEvent: (e) => events.push(e),
    ...options,
  })
  return { run, events }
}

const firings = (events: readonly NetworkEvent[], nodeId?: string) =>
  events.filter((e) => e.type === 'firing' && (nodeId === undefined || e.nodeId === nodeId))

const mock = (...script: string[]) => ({ type: 'mock' as const, script })

/** x and y each feed j, which fires once both have delivered. */
const joinNet = pipe(
  network('join'),
  addNode({ id: 'x', provider: mock('from x') }),
  addNode({ id: 'y', provider: mock('from y') }),
  addNode({ id: 'j', trigger: { type: 'all' }, provider: mock('joined') }),
  connect('x', 'j', { direction: 'one-way' }),
  connect('y', 'j', { direction: 'one-way' }),
)

describe('a network run', () => {
  it('hands envelopes along edges and records them as a DAG of causes', async () => {
    const net = pipe(
      network('pair'),
      addNode({ id: 'a', provider: mock('to b') }),
      addNode({ id: 'b', provider: mock('DONE') }),
      connect('a', 'b', { direction: 'one-way' }),
    )
    const { run } = await start(net)
    const hello = run.send('a', 'go')
    await run.idle()
    const out = await run.stop()
    expect(out.status).toBe('done')
    expect(out.done).toEqual(['b'])
    expect(out.log.envelopes().map((e) => [e.kind, e.fromNodeId, e.toNodeId])).toEqual([
      ['message', 'user', 'a'],
      ['handoff', 'a', 'b'],
    ])
    expect(out.log.get('e2')!.parents).toEqual([out.log.get(hello.id)])
    expect(run.session.names()).toEqual(['a', 'b'])
  })

  it('fires a join only once every upstream edge has delivered', async () => {
    const { run, events } = await start(joinNet)
    run.send('x', 'go')
    await run.idle()
    expect(firings(events, 'j')).toEqual([])
    run.send('y', 'go')
    await run.idle()
    const [joined] = firings(events, 'j')
    expect(
      joined?.type === 'firing' && joined.causedBy.map((id) => run.log.get(id)!.data.fromNodeId),
    ).toEqual(['x', 'y'])
    await run.stop()
  })

  it('lists its inboxes: what waits in each, what was taken', async () => {
    const { run } = await start(joinNet)
    run.send('x', 'go')
    await run.idle()
    const edgeOf = (from: string) =>
      Object.values(run.network.edges).find((e) => e.from === from)!.id
    const ways = run.inboxes().map((i) => [i.route.from, i.route.to, i.waiting, i.delivered])
    expect(ways).toEqual([
      ['user', 'x', 0, 1],
      ['user', 'y', 0, 0],
      ['user', 'j', 0, 0],
      ['x', 'j', 1, 0],
      ['y', 'j', 0, 0],
    ])
    expect(run.inboxes().map((i) => i.route.edgeId)).toEqual([
      undefined,
      undefined,
      undefined,
      edgeOf('x'),
      edgeOf('y'),
    ])
    expect(run.inboxes()[3]).toMatchObject({ delivery: 'queue', holding: false, dropped: 0 })
    await run.stop()
  })

  it('fires a manual node only on trigger, and a scheduled one on its interval', async () => {
    const clock = fakeClock()
    const net = pipe(
      network('timers'),
      addNode({ id: 'm', trigger: { type: 'manual' }, provider: mock('ok') }),
      addNode({ id: 's', trigger: { type: 'scheduled', everyMs: 1000 }, provider: mock('tick') }),
      connect('s', 'm', { direction: 'one-way' }),
    )
    const { run, events } = await start(net, { clock })
    await clock.advance(2500)
    await run.idle()
    expect(firings(events, 's')).toHaveLength(2)
    expect(firings(events, 'm')).toHaveLength(0)
    run.trigger('m', 'now')
    await run.idle()
    expect(firings(events, 'm')).toHaveLength(1)
    await run.stop()
  })

  it('law: never has more firings in flight than maxInFlight', async () => {
    await fc.assert(
      fc.asyncProperty(
        agentNetwork({ maxNodes: 6 }),
        fc.integer({ min: 1, max: 3 }),
        async (net, max) => {
          const limited = pipe(net, setLimits({ maxInFlight: max, maxIterations: 4 }))
          const { run, events } = await start(limited)
          for (const id of Object.keys(limited.nodes)) run.send(id, 'go')
          await run.idle()
          await run.stop()
          let now = 0
          let peak = 0
          for (const e of events) {
            if (e.type === 'firing') peak = Math.max(peak, ++now)
            if (e.type === 'fired') now--
          }
          expect(peak).toBeLessThanOrEqual(max)
        },
      ),
      { numRuns: 25 },
    )
  })

  it('law: every generated cyclic network terminates, no node of a loop firing more than maxIterations times', async () => {
    await fc.assert(
      fc.asyncProperty(
        agentNetwork({ minNodes: 2, maxNodes: 6 }),
        fc.integer({ min: 1, max: 6 }),
        async (net, max) => {
          const limited = pipe(net, setLimits({ maxIterations: max, stallAfter: 1000 }))
          const { run, events } = await start(limited)
          run.send('n0', 'go')
          await run.idle()
          const out = await run.stop()
          const loopNodes = new Set(
            out.halts.flatMap((h) => (h instanceof MaxIterationsExceeded ? h.loop : [])),
          )
          for (const id of loopNodes) expect(firings(events, id).length).toBeLessThanOrEqual(max)
          expect(['idle', 'halted', 'done']).toContain(out.status)
        },
      ),
      { numRuns: 25 },
    )
  })

  it('stops a loop that repeats the same error with a StallError naming the loop and the evidence', async () => {
    const failing: Provider = {
      name: 'failing',
      call: () => Promise.reject(new Error('tests fail: 1 != 2')),
    }
    const net = pipe(
      network('stuck'),
      addNode({ id: 'coder', provider: { type: 'llm', provider: 'failing' } }),
      addNode({ id: 'verifier', provider: mock('try again') }),
      connect('coder', 'verifier'),
      setLimits({ stallAfter: 3, maxIterations: 50 }),
    )
    const { run, events } = await start(net, { providers: { failing } })
    run.send('coder', 'fix it')
    await run.idle()
    const out = await run.stop()
    expect(out.status).toBe('halted')
    const [stall] = out.halts
    expect(stall).toBeInstanceOf(StallError)
    expect((stall as StallError).loop).toEqual(['coder', 'verifier'])
    expect((stall as StallError).evidence).toMatchObject({
      kind: 'same-error',
      nodeId: 'coder',
      count: 3,
    })
    expect(firings(events, 'coder')).toHaveLength(3)
  })

  it('law: the same seed and scripted providers give the same envelope DAG', async () => {
    await fc.assert(
      fc.asyncProperty(agentNetwork({ maxNodes: 5 }), fc.integer(), async (net, seed) => {
        const once = async () => {
          const { run } = await start(pipe(net, setLimits({ maxIterations: 4, maxInFlight: 2 })), {
            schedule: seededSchedule(seed),
          })
          for (const id of Object.keys(net.nodes)) run.send(id, `go ${id}`)
          await run.idle()
          return JSON.stringify((await run.stop()).log.vertices())
        }
        expect(await once()).toBe(await once())
      }),
      { numRuns: 20 },
    )
  })

  it("rolls a node's usage up and halts it when its runtime Budget is spent", async () => {
    const costly = scriptedProvider(['one', 'two', 'three'], {
      usage: { input_tokens: 60, output_tokens: 0 },
    })
    const net = pipe(
      network('budget'),
      addNode({
        id: 'a',
        provider: { type: 'llm', provider: 'costly' },
        budget: { maxTokens: 100 },
      }),
    )
    const { run, events } = await start(net, { providers: { costly } })
    for (const m of ['1', '2', '3']) run.send('a', m)
    await run.idle()
    const out = await run.stop()
    expect(firings(events, 'a')).toHaveLength(2)
    expect(out.usage.a!.tokens).toBe(120)
    expect(out.halts[0]).toBeInstanceOf(BudgetExceeded)
    expect((out.halts[0] as BudgetExceeded).limit).toBe('maxTokens')
    expect(out.unprocessed.map((e) => e.payload.message)).toEqual(['3'])
  })

  it('applies live edits, publishes their patches, and undoes them', async () => {
    const net = pipe(network('live'), addNode({ id: 'a', provider: mock('hi') }))
    const { run, events } = await start(net)
    const c = run.edit(
      addNode({ id: 'b', provider: mock('DONE') }),
      connect('a', 'b', { direction: 'one-way' }),
    )
    expect(events.find((e) => e.type === 'patch')).toMatchObject({
      type: 'patch',
      patches: c.patches,
    })
    expect(run.session.has('b')).toBe(true)
    run.send('a', 'go')
    await run.idle()
    expect(firings(events, 'b')).toHaveLength(1)
    expect(run.undo()).toBe(true)
    expect(Object.keys(run.network.nodes)).toEqual(['a'])
    expect(run.session.has('b')).toBe(false)
    run.edit(setMode('a', 'auto'))
    expect(run.network.nodes.a!.mode).toBe('auto')
    run.edit(removeNode('a'))
    expect(() => run.send('a', 'x')).toThrow(/no node "a"/)
    await run.stop()
  })

  it('pauses, resumes and cancels through run control', async () => {
    const net = pipe(network('ctl'), addNode({ id: 'a', provider: mock('ok') }))
    const { run, events } = await start(net)
    expect(run.control.active()).toEqual([{ runId: 'run-ctl', label: 'ctl', status: 'running' }])
    run.control.pause(run.runId)
    run.send('a', 'go')
    await new Promise((r) => setImmediate(r))
    expect(firings(events)).toHaveLength(0)
    run.control.resume(run.runId)
    await run.idle()
    expect(firings(events)).toHaveLength(1)
    run.control.cancel(run.runId)
    expect((await run.stop()).status).toBe('cancelled')
    expect(run.control.active()).toEqual([])
  })
})
