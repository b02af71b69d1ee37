import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, describe, expect, it } from 'vitest'
import { addStep, bash, defaultInterpreters, fn, graph, retry, type RunResult } from 'nerve-agents'
import { type Interpreter, interpreters } from 'nerve-agents/core'
import { isStoreCorrupt } from 'nerve-agents/session'
import { failure, scripted, scriptedNode, succeed } from 'nerve-agents/testing'
import {
  isReplayDivergence,
  loadRecording,
  record,
  replay,
  saveRecording,
  traceJson,
  type ReplayDivergence,
} from 'nerve-agents/store'

const base = mkdtempSync(join(tmpdir(), 'nerve-replay-'))
afterAll(() => {
  rmSync(base, { recursive: true, force: true })
})

const right = (e: E.Either<unknown, RunResult>): RunResult => {
  if (E.isLeft(e)) throw e.left as Error
  return e.right
}

const divergence = async (p: Promise<unknown>): Promise<ReplayDivergence> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  )
  if (!isReplayDivergence(e)) throw new Error(`expected a divergence, got ${String(e)}`)
  return e
}

const model = () =>
  scripted({
    kind: 'model',
    plan: { ask: [failure('rate limited'), succeed('draft')], polish: succeed('final') },
  })

const pipeline = (prompt: string) =>
  pipe(
    graph('pipeline'),
    addStep({
      id: 'ask',
      node: scriptedNode('ask', 'model'),
      input: prompt,
      onError: retry({ count: 1, delayMs: 5, jitter: 0.5 }),
    }),
    addStep({ id: 'polish', node: scriptedNode('polish', 'model'), dependsOn: ['ask'] }),
    addStep({
      id: 'count',
      node: fn('count', (ctx) => String(ctx.upstream.polish).length),
      dependsOn: ['polish'],
    }),
  )

const live = () => interpreters(...defaultInterpreters.values(), model())

describe('replay', () => {
  it('records a streaming interpreter by its result, and replays it without running it', async () => {
    let runs = 0
    const streaming: Interpreter = {
      kind: 'ticker',
      async *executeStream(_node, ctx) {
        runs++
        yield 'tick '
        await Promise.resolve()
        yield 'tock'
        return `${String(ctx.input)} #${runs}`
      },
    }
    const g = pipe(graph('g'), addStep({ id: 't', node: scriptedNode('t', 'ticker'), input: 'hi' }))
    const { result, recording } = await record(g, { interpreters: interpreters(streaming) })
    expect(right(result).results.t).toBe('hi #1')
    expect(recording.calls.map((c) => [c.kind, c.outcome])).toEqual([
      ['ticker', { _tag: 'value', value: 'hi #1' }],
    ])
    const again = right(await replay(recording, g))
    expect(again.results.t).toBe('hi #1')
    expect(runs).toBe(1)
  })

  it('gives the recorded trace and results without calling any interpreter', async () => {
    const g = pipeline('write a poem')
    const { result, recording } = await record(g, { interpreters: live(), input: 'x' })
    const recorded = right(result)
    const again = right(await replay(recording, g))
    expect(again.results).toEqual(recorded.results)
    expect(traceJson(again.trace)).toEqual(traceJson(recorded.trace))
  })

  it('gives the recorded trace of a parallel graph, every time on its own step', async () => {
    const g = pipe(
      graph('parallel'),
      addStep({ id: 'sh', node: bash('sh', { command: 'sleep 0.01; echo sh' }) }),
      addStep({ id: 'quick', node: fn('quick', () => 'q') }),
      addStep({ id: 'later', node: fn('later', () => Promise.resolve('l')) }),
      addStep({ id: 'after', node: fn('after', () => 'a'), dependsOn: ['sh', 'quick'] }),
      addStep({ id: 'last', node: bash('last', { command: 'echo last' }), dependsOn: ['later'] }),
    )
    for (let k = 0; k < 3; k++) {
      const { result, recording } = await record(g, { interpreters: live() })
      const again = right(await replay(recording, g))
      expect(traceJson(again.trace)).toEqual(traceJson(right(result).trace))
    }
  })

  it('answers from a recording saved to a file and loaded back', async () => {
    const g = pipeline('write a poem')
    const { result, recording } = await record(g, { interpreters: live() })
    const file = join(base, 'run.json')
    await saveRecording(file, recording)
    const loaded = loadRecording(file)
    expect(loaded).toEqual(recording)
    const again = right(await replay(loaded, g))
    expect(traceJson(again.trace)).toEqual(traceJson(right(result).trace))
  })

  it('refuses a file that is not a recording, naming where', () => {
    const file = join(base, 'bad.json')
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        runId: 'r',
        graphId: 'g',
        failed: false,
        calls: [{}],
        clock: [],
        random: [],
      }),
    )
    expect(() => loadRecording(file)).toThrow(/calls\/0/)
    try {
      loadRecording(file)
    } catch (e) {
      expect(isStoreCorrupt(e)).toBe(true)
    }
  })

  it('stops at the first step whose input changed, naming the step and what differed', async () => {
    const { recording } = await record(pipeline('write a poem'), { interpreters: live() })
    const d = await divergence(replay(recording, pipeline('write a song')))
    expect(d.path).toEqual(['ask'])
    expect(d.what).toBe('input')
    expect(d.recorded).toBe('write a poem')
    expect(d.actual).toBe('write a song')
  })

  it('names a step the recording does not have, and a recorded step that did not run', async () => {
    const g = pipeline('p')
    const { recording } = await record(g, { interpreters: live() })
    const more = pipe(g, addStep({ id: 'extra', node: scriptedNode('extra', 'model') }))
    expect((await divergence(replay(recording, more))).what).toBe('missing')
    const fewer = pipe(
      graph('pipeline'),
      addStep({
        id: 'ask',
        node: scriptedNode('ask', 'model'),
        input: 'p',
        onError: retry({ count: 1, delayMs: 5, jitter: 0.5 }),
      }),
    )
    const d = await divergence(replay(recording, fewer))
    expect(d.what).toBe('unused')
    expect(d.path).toEqual(['polish'])
  })

  it('names a step of a kind the recording never used as missing', async () => {
    const g = pipeline('p')
    const { recording } = await record(g, { interpreters: live() })
    const other = pipe(g, addStep({ id: 'shell', node: bash('shell', { command: 'echo hi' }) }))
    const d = await divergence(replay(recording, other))
    expect(d).toMatchObject({ path: ['shell'], attempt: 1, what: 'missing' })
  })
})
