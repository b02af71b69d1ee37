import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addStep, defaultInterpreters, graph, type RunResult } from 'nerve-agents'
import { interpreters, type NodeContext } from 'nerve-agents/core'
import { scripted, scriptedNode } from 'nerve-agents/testing'
import { record, replay } from 'nerve-agents/store'

const right = (e: E.Either<unknown, RunResult>): RunResult => {
  if (E.isLeft(e)) throw e.left as Error
  return e.right
}

/** A human who answers approvals from a list, and a model that echoes its prompt, counting their calls. */
const people = (answers: readonly string[]) => {
  let asked = 0
  const human = scripted({ kind: 'human', otherwise: () => answers[asked++] ?? 'no answer' })
  const model = scripted({
    kind: 'model',
    otherwise: (_node, ctx: NodeContext) =>
      `${String(ctx.input)} → ${JSON.stringify(ctx.upstream)}`,
  })
  return {
    registry: interpreters(...defaultInterpreters.values(), human, model),
    human,
    model,
  }
}

const flow = (prompt: string) =>
  pipe(
    graph('flow'),
    addStep({ id: 'plan', node: scriptedNode('plan', 'model'), input: 'plan it' }),
    addStep({ id: 'approve', node: scriptedNode('approve', 'human'), dependsOn: ['plan'] }),
    addStep({
      id: 'write',
      node: scriptedNode('write', 'model'),
      input: prompt,
      dependsOn: ['approve'],
    }),
    addStep({ id: 'confirm', node: scriptedNode('confirm', 'human'), dependsOn: ['write'] }),
  )

describe('partial replay', () => {
  it('reuses what was recorded before the step and runs live from it, with a different prompt', async () => {
    const first = people(['yes', 'ship it'])
    const { recording } = await record(flow('write a poem'), { interpreters: first.registry })
    const later = people(['asked again'])
    const again = right(
      await replay(recording, flow('write a song'), { from: 'write', live: later.registry }),
    )
    expect(again.results.plan).toBe(`plan it → {}`)
    expect(again.results.write).toBe(`write a song → {"approve":"yes"}`)
    expect(later.model.calls.map((c) => c.path)).toEqual([['write']])
  })

  it('reuses an approval given before the point and asks again for one after it', async () => {
    const first = people(['yes', 'ship it'])
    const { recording } = await record(flow('write a poem'), { interpreters: first.registry })
    const later = people(['not yet'])
    const again = right(
      await replay(recording, flow('write a poem'), { from: 'write', live: later.registry }),
    )
    expect(again.results.approve).toBe('yes')
    expect(again.results.confirm).toBe('not yet')
    expect(later.human.calls.map((c) => c.path)).toEqual([['confirm']])
  })

  it('replays a nested graph at the point of its parent, not from its own latest state', async () => {
    const inner = (prompt: string) =>
      pipe(
        graph('inner'),
        addStep({ id: 'draft', node: scriptedNode('draft', 'model'), input: prompt }),
      )
    const outer = (prompt: string) =>
      pipe(
        graph('outer'),
        addStep({ id: 'sub', node: inner(prompt) }),
        addStep({ id: 'review', node: scriptedNode('review', 'human'), dependsOn: ['sub'] }),
      )
    const first = people(['fine'])
    const { result, recording } = await record(outer('v1'), { interpreters: first.registry })
    expect(recording.calls.map((c) => c.path)).toEqual([['sub', 'draft'], ['review']])
    // Up to "review", the nested graph's step is answered from the recording, by its path under its parent.
    const later = people(['again'])
    const again = right(
      await replay(recording, outer('v1'), { from: 'review', live: later.registry }),
    )
    expect(again.results.sub).toEqual(right(result).results.sub)
    expect(again.results.review).toBe('again')
    expect(later.model.calls).toEqual([])
    const changed = await replay(recording, outer('v2'), {
      from: 'review',
      live: later.registry,
    }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(changed).toMatchObject({
      _tag: 'ReplayDivergence',
      path: ['sub', 'draft'],
      what: 'input',
    })
  })

  it('re-runs from a nested graph step: its steps and what follows run live, what precedes is reused', async () => {
    const inner = pipe(
      graph('inner'),
      addStep({ id: 'draft', node: scriptedNode('draft', 'model'), input: 'write' }),
      addStep({ id: 'polish', node: scriptedNode('polish', 'model'), dependsOn: ['draft'] }),
    )
    const outer = pipe(
      graph('outer'),
      addStep({ id: 'plan', node: scriptedNode('plan', 'model'), input: 'plan it' }),
      addStep({ id: 'inner', node: inner, dependsOn: ['plan'] }),
      addStep({ id: 'review', node: scriptedNode('review', 'human'), dependsOn: ['inner'] }),
    )
    const first = people(['fine'])
    const { recording } = await record(outer, { interpreters: first.registry })
    const later = people(['again'])
    const again = right(await replay(recording, outer, { from: 'inner', live: later.registry }))
    expect(later.model.calls.map((c) => c.path)).toEqual([
      ['inner', 'draft'],
      ['inner', 'polish'],
    ])
    expect(again.results.review).toBe('again')
    const fromPath = right(
      await replay(recording, outer, { from: ['inner', 'polish'], live: people(['x']).registry }),
    )
    expect(fromPath.results.review).toBe('x')
  })
})
