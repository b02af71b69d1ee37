import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addStep, defaultInterpreters, fn, graph, run } from 'nerve-agents'
import { type NodeContext } from 'nerve-agents/core'

/** A step that registers a cleanup logging `name`, then answers `answer(ctx)`. */
const holding = (name: string, log: string[], answer: (ctx: NodeContext) => unknown = () => name) =>
  fn(name, (ctx) => {
    ctx.onRunEnd!(async () => {
      await Promise.resolve()
      log.push(`closed ${name}`)
    })
    return answer(ctx)
  })

describe('ctx.onRunEnd', () => {
  it('runs each cleanup once, last given first, before the run’s promise settles', async () => {
    const log: string[] = []
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: holding('a', log) }),
      addStep({ id: 'b', node: holding('b', log), dependsOn: ['a'] }),
    )
    const r = await run(g, { interpreters: defaultInterpreters })
    log.push('run settled')
    expect(r.results).toEqual({ a: 'a', b: 'b' })
    expect(log).toEqual(['closed b', 'closed a', 'run settled'])
  })

  it('runs them when the run fails or is cancelled too, and ignores what they throw', async () => {
    const log: string[] = []
    const failing = pipe(
      graph('g'),
      addStep({
        id: 'a',
        node: fn('a', (ctx) => {
          ctx.onRunEnd!(() => {
            throw new Error('ignored')
          })
          return 1
        }),
      }),
      addStep({
        id: 'b',
        node: holding('b', log, () => {
          throw new Error('boom')
        }),
        dependsOn: ['a'],
      }),
    )
    await expect(run(failing, { interpreters: defaultInterpreters })).rejects.toMatchObject({
      _tag: 'StepFailed',
    })
    expect(log).toEqual(['closed b'])

    const stop = new AbortController()
    const waiting = pipe(
      graph('g'),
      addStep({
        id: 'w',
        node: holding('w', log, (ctx) => {
          stop.abort()
          return new Promise((_, reject) => {
            ctx.signal.addEventListener('abort', () => {
              reject(new Error('stopped'))
            })
          })
        }),
      }),
    )
    await expect(
      run(waiting, { interpreters: defaultInterpreters, signal: stop.signal }),
    ).rejects.toMatchObject({ _tag: 'Cancelled' })
    expect(log).toEqual(['closed b', 'closed w'])
  })
})
