import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  addStepRef,
  defaultInterpreters,
  fn,
  graph,
  type Node,
  run,
  stream,
  type StreamEvent,
  UsageError,
} from 'nerve-agents'
import { type ChunkStream, type Interpreter, interpreters, nodeRegistry } from 'nerve-agents/core'
import { fakeClock, scripted, scriptedNode, succeed } from 'nerve-agents/testing'

const one = fn('one', () => 1)
const plus = fn('plus', (ctx) => Number(ctx.input) + 1)
const sum = fn('sum', (ctx) =>
  Object.values(ctx.upstream).reduce((a: number, b) => a + Number(b), 0),
)

describe('run', () => {
  it('gives every step its result, keyed by step id', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: one }),
      addStep({ id: 'b', node: plus, input: 10 }),
      addStep({ id: 'c', node: sum, dependsOn: ['a', 'b'] }),
    )
    const { results } = await run(g, { interpreters: defaultInterpreters })
    expect(results).toEqual({ a: 1, b: 11, c: 12 })
    // A plain frozen object, whatever way it was filled.
    expect(Object.getPrototypeOf(results)).toBe(Object.prototype)
    expect(Object.isFrozen(results)).toBe(true)
  })

  it('passes the graph input to steps without input and the upstream to inputFn', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: plus }),
      addStep({
        id: 'b',
        node: plus,
        dependsOn: ['a'],
        inputFn: (up, gi) => Number(up.a) * Number(gi),
      }),
    )
    const { results } = await run(g, { interpreters: defaultInterpreters, input: 3 })
    expect(results).toEqual({ a: 4, b: 13 })
  })

  it('nests the results of a nested graph under its step', async () => {
    const inner = pipe(graph('inner'), addStep({ id: 'x', node: plus }))
    const g = pipe(
      graph('outer'),
      addStep({ id: 'a', node: one }),
      addStep({ id: 'n', node: inner, dependsOn: ['a'], inputFn: (up) => up.a }),
    )
    const { results, trace } = await run(g, { interpreters: defaultInterpreters })
    expect(results).toEqual({ a: 1, n: { x: 2 } })
    const nested = trace.records[1]!.data.nested!
    expect(nested.path).toEqual(['n'])
    expect(nested.records[0]!.data.path).toEqual(['n', 'x'])
    expect(nested.records[0]!.id).toBe('n/x')
  })

  it('resolves node refs in the session', async () => {
    const g = pipe(graph('g'), addStepRef('a', 'one'))
    const { results } = await run(g, {
      interpreters: defaultInterpreters,
      session: nodeRegistry(one),
    })
    expect(results).toEqual({ a: 1 })
  })

  it('rejects with UnknownNodeRef when the session lacks the node', async () => {
    const g = pipe(graph('g'), addStepRef('a', 'nope'))
    await expect(run(g, { interpreters: defaultInterpreters })).rejects.toMatchObject({
      _tag: 'UnknownNodeRef',
      nodeRef: 'nope',
      path: ['a'],
    })
  })

  it('rejects with MissingInterpreter naming the kind and the step', async () => {
    const g = pipe(graph('g'), addStep({ id: 'ask', node: scriptedNode('llm', 'llm') }))
    await expect(run(g, { interpreters: defaultInterpreters })).rejects.toMatchObject({
      _tag: 'MissingInterpreter',
      kind: 'llm',
      stepId: 'ask',
    })
  })

  it('rejects with InvalidGraph listing the graph errors', async () => {
    const g = pipe(graph('g'), addStep({ id: 'a', node: one, dependsOn: ['zz'] }))
    await expect(run(g, { interpreters: defaultInterpreters })).rejects.toMatchObject({
      _tag: 'InvalidGraph',
      errors: [{ _tag: 'UnknownDependency', dependency: 'zz' }],
    })
  })

  it('throws a UsageError for bad options', () => {
    const g = graph('g')
    expect(() => run(g, { interpreters: defaultInterpreters, maxParallel: 0 })).toThrow(UsageError)
    expect(() => run(g, { interpreters: defaultInterpreters, budget: { maxSteps: -1 } })).toThrow(
      /options\.budget\.maxSteps/,
    )
    expect(() => run(g, { interpreters: defaultInterpreters, bogus: 1 } as never)).toThrow(
      /options\.bogus is not an option/,
    )
  })

  it('runs a graph with no steps', async () => {
    const { results, trace } = await run(graph('empty'), { interpreters: defaultInterpreters })
    expect(results).toEqual({})
    expect(trace.records).toEqual([])
    expect(trace.status).toBe('completed')
  })

  it('runs a 10⁵-step chain without overflowing the stack', async () => {
    let g = graph('long')
    for (let i = 0; i < 100_000; i++) {
      g = addStep({
        id: `s${i}`,
        node: plus,
        ...(i > 0 ? { dependsOn: [`s${i - 1}`], inputFn: (up) => up[`s${i - 1}`] } : { input: 0 }),
      })(g)
    }
    const { results, trace } = await run(g, { interpreters: defaultInterpreters })
    expect(results.s99999).toBe(100_000)
    expect(trace.records).toHaveLength(100_000)
  })

  it('uses the given run id in the context, the trace and the events', async () => {
    const seen: string[] = []
    const g = pipe(graph('g'), addStep({ id: 'a', node: fn('id', (ctx) => ctx.runId) }))
    const r = await run(g, {
      interpreters: defaultInterpreters,
      runId: 'r-1',
      onEvent: (e) => seen.push(e.runId),
    })
    expect(r.results.a).toBe('r-1')
    expect(r.trace.runId).toBe('r-1')
    expect(new Set(seen)).toEqual(new Set(['r-1']))
  })

  it('gives the step parser, or else the run parser, to the context', async () => {
    const parserOf = fn('p', (ctx) => ctx.parser ?? null)
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: parserOf, parser: 'json' }),
      addStep({ id: 'b', node: parserOf }),
    )
    const r = await run(g, { interpreters: defaultInterpreters, parser: 'text' })
    expect(r.results).toEqual({ a: 'json', b: 'text' })
  })
})

describe('trace', () => {
  it('is a frozen DAG of step records whose parents are the dependencies', async () => {
    const clock = fakeClock({ auto: true })
    const model = scripted({
      clock,
      plan: { a: succeed('A', { delayMs: 5, usage: { tokens: 7, cost: 0.5 } }) },
    })
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: scriptedNode('m') }),
      addStep({ id: 'b', node: one }),
      addStep({ id: 'c', node: sum, dependsOn: ['b', 'a'] }),
    )
    const { trace } = await run(g, {
      interpreters: interpreters(...defaultInterpreters.values(), model),
      clock,
    })
    expect(Object.isFrozen(trace)).toBe(true)
    expect(trace.records.map((v) => v.id)).toEqual(['a', 'b', 'c'])
    const [a, , c] = trace.records
    expect(Object.isFrozen(a!.data)).toBe(true)
    expect(c!.parents.map((p) => p.data.stepId)).toEqual(['b', 'a'])
    expect(a!.data).toMatchObject({
      stepId: 'a',
      nodeId: 'm',
      kind: 'scripted',
      status: 'completed',
      output: 'A',
      attempts: 1,
      start: 0,
      end: 5,
      durationMs: 5,
      tokens: 7,
      cost: 0.5,
    })
  })
})

describe('usage and metrics', () => {
  it('rolls usage of nested graphs up into the step and the run', async () => {
    const model = scripted({ plan: { m: succeed('x', { usage: { tokens: 3, apiCalls: 1 } }) } })
    const inner = pipe(
      graph('inner'),
      addStep({ id: 'p', node: scriptedNode('m') }),
      addStep({ id: 'q', node: scriptedNode('m') }),
    )
    const g = pipe(graph('outer'), addStep({ id: 'n', node: inner }))
    const r = await run(g, { interpreters: interpreters(...defaultInterpreters.values(), model) })
    expect(r.metrics.usage).toEqual({ tokens: 6, apiCalls: 2, cost: 0 })
    expect(r.trace.records[0]!.data.tokens).toBe(6)
    expect(r.trace.records[0]!.data.apiCalls).toBe(2)
    expect(r.metrics.steps).toBe(3)
    expect(r.metrics.latency.count).toBe(3)
  })

  it('refuses a usage report with a negative amount', async () => {
    const bad = fn('bad', (ctx) => {
      ctx.reportUsage({ tokens: -1 })
    })
    const g = pipe(graph('g'), addStep({ id: 'a', node: bad }))
    const error = await run(g, { interpreters: defaultInterpreters }).catch((e: unknown) => e)
    expect((error as Error).cause).toBeInstanceOf(UsageError)
  })
})

const collect = async (events: AsyncIterable<StreamEvent>): Promise<string[]> => {
  const out: string[] = []
  for await (const e of events) {
    if (e.type === 'stream_lag') throw new Error(`the stream dropped ${e.dropped} events`)
    const at = e.path.join('/')
    out.push(
      e.type === 'step_chunk'
        ? `chunk ${at} ${String(e.chunk)}`
        : e.type === 'step_error'
          ? `error ${at} ${e.attempt}${e.final ? ' final' : ''}`
          : `${e.type} ${at}`.trimEnd(),
    )
  }
  return out
}

describe('stream', () => {
  it('yields events in order, nested ones with their path', async () => {
    const inner = pipe(graph('inner'), addStep({ id: 'x', node: one }))
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: one }),
      addStep({ id: 'n', node: inner, dependsOn: ['a'] }),
    )
    expect(await collect(stream(g, { interpreters: defaultInterpreters }))).toEqual([
      'graph_started',
      'step_start a',
      'step_complete a',
      'step_start n',
      'graph_started n',
      'step_start n/x',
      'step_complete n/x',
      'graph_completed n',
      'step_complete n',
      'graph_completed',
    ])
  })

  it('turns executeStream chunks and ctx.emit into step_chunk events', async () => {
    const streaming: Interpreter = {
      kind: 'words',
      async *executeStream(_node: Node): ChunkStream {
        await Promise.resolve()
        yield 'hello'
        yield 'world'
        return 'hello world'
      },
    }
    const emitting = fn('emit', (ctx) => {
      ctx.emit('tick')
      return 'done'
    })
    const g = pipe(
      graph('g'),
      addStep({ id: 'w', node: scriptedNode('w', 'words') }),
      addStep({ id: 'e', node: emitting, dependsOn: ['w'] }),
    )
    const its = interpreters(...defaultInterpreters.values(), streaming)
    expect(await collect(stream(g, { interpreters: its }))).toEqual([
      'graph_started',
      'step_start w',
      'chunk w hello',
      'chunk w world',
      'step_complete w',
      'step_start e',
      'chunk e tick',
      'step_complete e',
      'graph_completed',
    ])
    expect((await run(g, { interpreters: its })).results.w).toBe('hello world')
  })

  it('throws the run error after the last event', async () => {
    const g = pipe(
      graph('g'),
      addStep({
        id: 'a',
        node: fn('bad', () => {
          throw new Error('boom')
        }),
      }),
    )
    const seen: string[] = []
    await expect(async () => {
      for await (const e of stream(g, { interpreters: defaultInterpreters })) seen.push(e.type)
    }).rejects.toMatchObject({ _tag: 'StepFailed', stepId: 'a' })
    expect(seen).toEqual(['graph_started', 'step_start', 'step_error', 'graph_completed'])
  })

  it('cancels the run when the reader leaves the loop', async () => {
    const clock = fakeClock()
    const slow = scripted({ clock, delayMs: () => 1000 })
    const g = pipe(graph('g'), addStep({ id: 'a', node: scriptedNode('s') }))
    for await (const e of stream(g, { interpreters: interpreters(slow), clock })) {
      if (e.type === 'step_start') break
    }
    expect(slow.calls.map((c) => c.outcome)).toEqual(['aborted'])
    expect(clock.pending).toBe(0)
  })
})
