import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  graph,
  makeNode,
  retry,
  run,
  UsageError,
  type Graph,
  type Node,
} from 'nerve-agents'
import { interpreters, type NodeContext, type StopContext } from 'nerve-agents/core'
import { LiveHandles } from 'nerve-agents/runtime'

/** An interpreter of `conn` nodes that logs its starts, executes (with the handle seen) and stops. */
const connections = (
  options: { readonly failStarts?: number; readonly gate?: () => Promise<void> } = {},
) => {
  const log: string[] = []
  let opened = 0
  let failures = options.failStarts ?? 0
  return {
    log,
    interpreter: {
      kind: 'conn',
      async start(): Promise<{ readonly id: number }> {
        await Promise.resolve()
        if (failures-- > 0) throw new Error('cannot open')
        const handle = { id: ++opened }
        log.push(`start ${handle.id}`)
        return handle
      },
      stop(_node: Node, ctx: StopContext): Promise<void> {
        log.push(`stop ${(ctx.live as { id: number }).id}`)
        return Promise.resolve()
      },
      async execute(_node: Node, ctx: NodeContext): Promise<number> {
        const id = (ctx.live as { id: number } | undefined)?.id
        log.push(`execute ${ctx.stepId} on ${String(id)}`)
        await options.gate?.()
        return id ?? -1
      },
    },
  }
}

const conn = makeNode({ id: 'db', kind: 'conn', persistent: true, metadata: {} })

/** `n` steps on `conn`, each depending on the one before when `chain`. */
const steps = (n: number, chain: boolean): Graph => {
  let g = graph('g')
  for (let i = 0; i < n; i++) {
    g = addStep({
      id: `s${i}`,
      node: conn,
      ...(chain && i > 0 && { dependsOn: [`s${i - 1}`] }),
    })(g)
  }
  return g
}

describe('the handles a run keeps', () => {
  it('starts a node no session holds once for all its steps, and stops it after them, whatever the order and parallelism', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 4 }),
        async (n, chain, maxParallel) => {
          const c = connections({ gate: () => new Promise((resolve) => setImmediate(resolve)) })
          const r = await run(steps(n, chain), {
            interpreters: interpreters(...defaultInterpreters.values(), c.interpreter),
            maxParallel,
          })
          expect(Object.values(r.results)).toEqual(Array<number>(n).fill(1))
          expect(c.log.filter((l) => l.startsWith('start'))).toEqual(['start 1'])
          expect(c.log.at(-1)).toBe('stop 1')
          expect(c.log.filter((l) => l.startsWith('stop'))).toHaveLength(1)
        },
      ),
      { numRuns: 30 },
    )
  })

  it('stops what it started before its promise settles, when it is cancelled too', async () => {
    const c = connections({ gate: () => new Promise(() => undefined) })
    const controller = new AbortController()
    const running = run(steps(1, false), {
      interpreters: interpreters(...defaultInterpreters.values(), c.interpreter),
      signal: controller.signal,
    })
    while (!c.log.includes('execute s0 on 1')) await new Promise((r) => setImmediate(r))
    controller.abort(new Error('enough'))
    await expect(running).rejects.toMatchObject({ _tag: 'Cancelled' })
    expect(c.log).toEqual(['start 1', 'execute s0 on 1', 'stop 1'])
  })

  it('fails the attempt whose start fails, and starts again for the retry', async () => {
    const c = connections({ failStarts: 1 })
    const g = pipe(graph('g'), addStep({ id: 'a', node: conn, onError: retry({ count: 1 }) }))
    const starts: number[] = []
    const r = await run(g, {
      interpreters: interpreters(...defaultInterpreters.values(), c.interpreter),
      onEvent: (e) => {
        if (e.type === 'step_start') starts.push(e.attempt)
      },
    })
    expect(r.results.a).toBe(1)
    expect(starts).toEqual([1, 2])
    expect(c.log).toEqual(['start 1', 'execute a on 1', 'stop 1'])
  })

  it('shares one handle with the graphs nested in the run', async () => {
    const c = connections()
    const inner = pipe(graph('inner'), addStep({ id: 'in', node: conn }))
    const g = pipe(
      graph('g'),
      addStep({ id: 'out', node: conn }),
      addStep({ id: 'nested', node: inner, dependsOn: ['out'] }),
    )
    const r = await run(g, {
      interpreters: interpreters(...defaultInterpreters.values(), c.interpreter),
    })
    expect([r.results.out, (r.results.nested as Record<string, unknown>).in]).toEqual([1, 1])
    expect(c.log.filter((l) => !l.startsWith('execute'))).toEqual(['start 1', 'stop 1'])
  })

  it('keeps given handles beyond the run, for the caller to stop', async () => {
    const c = connections()
    const handles = new LiveHandles()
    const registry = interpreters(...defaultInterpreters.values(), c.interpreter)
    await run(steps(1, false), { interpreters: registry, handles })
    await run(steps(2, true), { interpreters: registry, handles })
    expect(c.log).toEqual(['start 1', 'execute s0 on 1', 'execute s0 on 1', 'execute s1 on 1'])
    await handles.stopAll()
    await handles.stopAll()
    expect(c.log.at(-1)).toBe('stop 1')
    expect(c.log.filter((l) => l.startsWith('stop'))).toHaveLength(1)
  })

  it('refuses handles that are not a LiveHandles with a UsageError naming the option', () => {
    const c = connections()
    const registry = interpreters(...defaultInterpreters.values(), c.interpreter)
    expect(() => run(steps(1, false), { interpreters: registry, handles: {} as never })).toThrow(
      UsageError,
    )
    expect(() => run(steps(1, false), { interpreters: registry, handles: {} as never })).toThrow(
      /options\.handles/,
    )
  })
})
