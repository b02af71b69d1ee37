import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addStep, defaultInterpreters, fn, graph, run } from 'nerve-agents'
import { type Interpreter, interpreters } from 'nerve-agents/core'
import { scriptedNode } from 'nerve-agents/testing'

/** `doc` nodes output their input; their artifact is `[output + artifacts of their "refs" links]`. */
const docs = (): Interpreter & { materialized: string[] } => {
  const materialized: string[] = []
  const interpreter: Interpreter & { materialized: string[] } = {
    kind: 'doc',
    materialized,
    execute: (_node, ctx) => ctx.input,
    async materialize(_node, output, ctx) {
      materialized.push(ctx.stepId)
      const refs = await linksOf(ctx)
      return `<${String(output)}${refs.map((r) => ` ${String(r)}`).join('')}>`
    },
  }
  return interpreter
}

const linksOf = (ctx: { resolveLinks(h: string): Promise<readonly unknown[]>; stepId: string }) =>
  ctx.resolveLinks('refs').catch((e: unknown) => {
    if ((e as { _tag?: string })._tag === 'UnknownLinkHandle') return []
    throw e
  })

const doc = scriptedNode('doc', 'doc')
const reader = fn('reader', (ctx) => ctx.resolveLinks('refs'))

describe('links', () => {
  it('give the artifacts materialized by the linked steps, in link order, cached per run', async () => {
    const d = docs()
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: doc, input: 'A' }),
      addStep({ id: 'b', node: doc, input: 'B' }),
      addStep({ id: 'r1', node: reader, dependsOn: ['a', 'b'], links: { refs: ['b', 'a'] } }),
      addStep({ id: 'r2', node: reader, dependsOn: ['r1'], links: { refs: ['a'] } }),
    )
    const r = await run(g, { interpreters: interpreters(...defaultInterpreters.values(), d) })
    expect(r.results.r1).toEqual(['<B>', '<A>'])
    expect(r.results.r2).toEqual(['<A>'])
    expect(d.materialized.sort()).toEqual(['a', 'b'])
    expect(r.metrics.materializeCacheHits).toBe(1)
    expect(r.metrics.linkFanOutDepth).toBe(1)
  })

  it('are the output itself when the interpreter has no materialize', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: fn('one', () => 1) }),
      addStep({ id: 'r', node: reader, dependsOn: ['a'], links: { refs: ['a'] } }),
    )
    expect((await run(g, { interpreters: defaultInterpreters })).results.r).toEqual([1])
  })

  it('wait for a linked step that has not finished yet', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'r', node: reader, links: { refs: ['a'] } }),
      addStep({ id: 'a', node: fn('later', () => Promise.resolve('A')) }),
    )
    expect((await run(g, { interpreters: defaultInterpreters })).results.r).toEqual(['A'])
  })

  it('resolve links of links lazily and measure the depth', async () => {
    const d = docs()
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: doc, input: 'A' }),
      addStep({ id: 'b', node: doc, input: 'B', links: { refs: ['a'] } }),
      addStep({ id: 'r', node: reader, dependsOn: ['a', 'b'], links: { refs: ['b'] } }),
    )
    const r = await run(g, { interpreters: interpreters(...defaultInterpreters.values(), d) })
    expect(r.results.r).toEqual(['<B <A>>'])
    expect(r.metrics.linkFanOutDepth).toBe(2)
  })

  it('report a link cycle with its path', async () => {
    const d = docs()
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: doc, input: 'A', links: { refs: ['b'] } }),
      addStep({ id: 'b', node: doc, input: 'B', links: { refs: ['a'] } }),
      addStep({ id: 'r', node: reader, dependsOn: ['a', 'b'], links: { refs: ['a'] } }),
    )
    await expect(
      run(g, { interpreters: interpreters(...defaultInterpreters.values(), d) }),
    ).rejects.toMatchObject({
      _tag: 'StepFailed',
      stepId: 'r',
      cause: { _tag: 'LinkCycle', cycle: ['r', 'a', 'b', 'a'] },
    })
  })

  it('report a link to a step that can only run after the asking one as a cycle', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'r', node: reader, links: { refs: ['later'] } }),
      addStep({ id: 'later', node: fn('one', () => 1), dependsOn: ['r'] }),
    )
    await expect(run(g, { interpreters: defaultInterpreters })).rejects.toMatchObject({
      cause: { _tag: 'LinkCycle', cycle: ['r', 'later'] },
    })
  })

  it('reject an unknown handle', async () => {
    const g = pipe(graph('g'), addStep({ id: 'r', node: reader }))
    await expect(run(g, { interpreters: defaultInterpreters })).rejects.toMatchObject({
      cause: { _tag: 'UnknownLinkHandle', handle: 'refs' },
    })
  })
})
