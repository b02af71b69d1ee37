import fc from 'fast-check'
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  addNode,
  type Block,
  connect,
  empty,
  network,
  startNetwork,
  tool,
  toolbox,
  user,
} from 'nerve-agents'
import { runAgent } from 'nerve-agents/interpreters'
import { fakeClock, scriptedProvider } from 'nerve-agents/testing'
import { isReplayDivergence, replayTape, tapeRecorder, TapeCodec } from 'nerve-agents/store'

/** A tool that doubles a number, counting its runs. */
const doubler = () => {
  let runs = 0
  const double = tool(
    { name: 'double', description: 'n * 2', input_schema: { type: 'object', required: ['n'] } },
    t.type({ n: t.number }),
    ({ n }) => {
      runs++
      return Promise.resolve(String(n * 2))
    },
  )
  return { box: toolbox(double), runs: () => runs }
}

/** A model's turns: some asking for the tool, then a last text answer. */
const turns = fc
  .tuple(
    fc.array(fc.array(fc.integer({ min: -99, max: 99 }), { minLength: 1, maxLength: 3 }), {
      maxLength: 4,
    }),
    fc.string(),
  )
  .map(([rounds, last]) => [
    ...rounds.map((ns, r): readonly Block[] =>
      ns.map((n, i) => ({ type: 'tool_use', id: `t${r}_${i}`, name: 'double', input: { n } })),
    ),
    last,
  ])

describe('an agent loop, taped', () => {
  it('replays to the same conversation, text and usage, calling no model and no tool (law)', async () => {
    await fc.assert(
      fc.asyncProperty(turns, fc.string({ minLength: 1 }), async (script, prompt) => {
        const rec = tapeRecorder()
        const live = doubler()
        const model = scriptedProvider(script, { usage: { input_tokens: 3, output_tokens: 2 } })
        const first = await runAgent(rec.provider(model), user(prompt)(empty), {
          tools: rec.toolbox(live.box),
        })
        const tape = rec.tape()
        expect(TapeCodec.is(JSON.parse(JSON.stringify(tape)))).toBe(true)
        const player = replayTape(JSON.parse(JSON.stringify(tape)) as typeof tape)
        const again = await runAgent(player.provider(model.name), user(prompt)(empty), {
          tools: player.toolbox(live.box),
        })
        expect(again.conversation.id).toBe(first.conversation.id)
        expect([again.text, again.usage, again.calls]).toEqual([
          first.text,
          first.usage,
          first.calls,
        ])
        expect(model.requests).toHaveLength(script.length)
        expect(live.runs()).toBe(
          script.length === 0 ? 0 : tape.calls.filter((c) => c.kind === 'tool').length,
        )
        expect(player.unused()).toEqual([])
      }),
      { numRuns: 50 },
    )
  })

  it('stops at the first model call whose request differs, naming the provider and the call', async () => {
    const rec = tapeRecorder()
    const live = doubler()
    const script = [
      [{ type: 'tool_use', id: 'a', name: 'double', input: { n: 2 } }] as Block[],
      'four',
    ]
    await runAgent(rec.provider(scriptedProvider(script)), user('double 2')(empty), {
      tools: rec.toolbox(live.box),
    })
    const player = replayTape(rec.tape())
    const error = await runAgent(player.provider('scripted'), user('double 3')(empty), {
      tools: player.toolbox(live.box),
    }).catch((e: unknown) => e)
    const divergence = (error as { cause?: unknown }).cause ?? error
    expect(isReplayDivergence(divergence)).toBe(true)
    expect(divergence).toMatchObject({ path: ['model', 'scripted'], attempt: 1, what: 'input' })
    expect(() => replayTape({ version: 1, calls: 'none' } as never)).toThrow(
      /^replayTape: not a tape at \/calls$/,
    )
  })
})

describe('a network run, taped', () => {
  const team = pipe(
    network('team'),
    addNode({ id: 'writer', tools: ['double'], provider: { type: 'llm', provider: 'model' } }),
    addNode({ id: 'editor', provider: { type: 'llm', provider: 'model' } }),
    connect('writer', 'editor', { direction: 'one-way' }),
  )
  const model = () =>
    scriptedProvider(
      [
        [{ type: 'tool_use', id: 'a', name: 'double', input: { n: 21 } }] as Block[],
        'The answer is 42.',
        'Fine. DONE',
      ],
      { name: 'model' },
    )
  const runOf = async (
    providers:
      | Record<string, ReturnType<typeof scriptedProvider>>
      | ReturnType<ReturnType<typeof replayTape>['providers']>,
    tools: ReturnType<typeof doubler>['box'],
    message: string,
  ) => {
    const run = await startNetwork(team, {
      root: tmpdir(),
      providers,
      tools: [...tools.values()],
      clock: fakeClock(),
    })
    run.send('writer', message)
    await run.idle()
    return run.stop()
  }

  it('replays to the same envelope DAG without calling the model or the tool', async () => {
    const rec = tapeRecorder()
    const live = doubler()
    const first = await runOf(rec.providers({ model: model() }), rec.toolbox(live.box), 'Go')
    expect(live.runs()).toBe(1)
    const player = replayTape(rec.tape())
    const again = await runOf(player.providers(['model']), player.toolbox(live.box), 'Go')
    expect(live.runs()).toBe(1)
    expect(again.log.envelopes()).toEqual(first.log.envelopes())
    expect(again.status).toBe(first.status)
    expect(player.unused()).toEqual([])
  })

  it('diverges at the model call when what the user sent changed, and says so in an error envelope', async () => {
    const rec = tapeRecorder()
    const live = doubler()
    await runOf(rec.providers({ model: model() }), rec.toolbox(live.box), 'Go')
    const player = replayTape(rec.tape())
    const again = await runOf(player.providers(['model']), player.toolbox(live.box), 'Stop')
    // The writer's firing fails on the model call that differs; the network reports it as an error envelope.
    const error = again.log.envelopes().find((e) => e.kind === 'error')
    expect(error).toMatchObject({ fromNodeId: 'writer', causedBy: ['e1'] })
    expect(error!.payload.message).toMatch(
      /replay diverged at step model\/model \(attempt 1\): input differs: recorded .*\[message from user\] Go.*got .*\[message from user\] Stop/,
    )
    expect(live.runs()).toBe(1)
  })
})

describe('a network of a command and a CLI agent, taped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nerve-tape-net-'))
  let path: string | undefined
  beforeAll(() => {
    // A `claude` that notes each start in the workspace, then is the fake claude.
    const fake = fileURLToPath(new URL('../../fake-claude/claude', import.meta.url))
    writeFileSync(
      join(dir, 'claude'),
      `#!/bin/sh\necho started >> '${dir}/starts'\nexec '${fake}' "$@"\n`,
    )
    chmodSync(join(dir, 'claude'), 0o755)
    path = process.env.PATH
    process.env.PATH = `${dir}:${path ?? ''}`
  })
  afterAll(() => {
    process.env.PATH = path
  })
  const ops = pipe(
    network('ops'),
    addNode({
      id: 'build',
      provider: { type: 'command', command: `echo ran >> ${dir}/runs; echo built` },
    }),
    addNode({ id: 'agent', provider: { type: 'cli', agent: 'claude-cli', command: 'claude' } }),
    addNode({ id: 'sink', provider: { type: 'mock', script: ['DONE'] } }),
    connect('build', 'agent', { direction: 'one-way' }),
    connect('agent', 'sink', { direction: 'one-way' }),
  )
  const runOf = async (
    wrapInterpreter: Parameters<typeof startNetwork>[1]['wrapInterpreter'],
    message = 'go',
  ) => {
    const run = await startNetwork(ops, {
      root: dir,
      clock: fakeClock(),
      ...(wrapInterpreter && { wrapInterpreter }),
    })
    run.send('build', message)
    await run.idle()
    return run.stop()
  }
  const count = (file: string): number =>
    readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean).length

  it('replays to the same envelopes without running the command or starting the agent', async () => {
    const rec = tapeRecorder()
    const first = await runOf(rec.interpreter)
    expect([count('runs'), count('starts')]).toEqual([1, 1])
    expect(rec.tape().calls.map((c) => [c.kind, c.name])).toEqual([
      ['step', 'build'],
      ['step', 'agent'],
    ])
    const player = replayTape(rec.tape())
    const again = await runOf(player.interpreter)
    expect([count('runs'), count('starts')]).toEqual([1, 1])
    expect(again.log.envelopes()).toEqual(first.log.envelopes())
    expect(again.done).toEqual(['sink'])
    expect(player.unused()).toEqual([])
    // Another message to the command node: its step is not on the tape.
    const changed = await runOf(replayTape(rec.tape()).interpreter, 'again')
    expect(changed.log.envelopes().find((e) => e.kind === 'error')?.payload.message).toMatch(
      /replay diverged at step step\/build .*input differs/,
    )
    expect([count('runs'), count('starts')]).toEqual([1, 1])
  }, 30_000)
})
