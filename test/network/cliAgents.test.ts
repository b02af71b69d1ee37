import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  addNode,
  codexBinary,
  connect,
  geminiBinary,
  network,
  prepareCodexHome,
  prepareGeminiHome,
  startNetwork,
} from 'nerve-agents'
import { scriptedModel, type ScriptedModel } from '../interpreters/agents/realCli.js'

// The real programs (devDependencies), with the user's own configuration as
// a network node finds it: the environment and the homes it names.
const root = mkdtempSync(join(tmpdir(), 'nerve-cli-network-'))
const work = join(root, 'work')
let model: ScriptedModel
const saved = { ...process.env }

beforeAll(async () => {
  mkdirSync(work)
  model = await scriptedModel()
  const codexHome = join(root, 'codex-home')
  const geminiHome = join(root, 'gemini-home')
  await prepareCodexHome({
    home: codexHome,
    projects: [work],
    baseUrl: model.proxy.baseUrl('codex'),
    model: 'gpt-5',
  })
  await prepareGeminiHome({ home: geminiHome, projects: [work] })
  Object.assign(process.env, {
    PATH: `${dirname(codexBinary())}:${dirname(geminiBinary())}:${process.env.PATH ?? ''}`,
    // A HOME of its own: login shells the agents start read no profile of the machine's.
    HOME: root,
    CODEX_HOME: codexHome,
    GEMINI_CLI_HOME: geminiHome,
    GOOGLE_GEMINI_BASE_URL: model.proxy.baseUrl('gemini'),
    GEMINI_API_KEY: 'nerve-throwaway',
  })
}, 30_000)

afterAll(async () => {
  process.env = saved
  await model.proxy.close()
  rmSync(root, { recursive: true, force: true })
})

describe('network runs of the real CLI agents', () => {
  it.each([
    ['codex', 'codex.js'],
    ['gemini', 'gemini.js'],
  ] as const)(
    'drive %s-cli through its terminal node and hand its answer on',
    async (name, bin) => {
      const net = pipe(
        network('cli'),
        addNode({
          id: 'agent',
          provider: { type: 'cli', agent: `${name}-cli`, command: bin },
        }),
        addNode({ id: 'sink', provider: { type: 'mock', script: ['DONE'] } }),
        connect('agent', 'sink', { direction: 'one-way' }),
      )
      model.push({ text: `Handled by ${name}.` })
      const run = await startNetwork(net, { root: work })
      run.send('agent', 'hello there')
      await run.idle()
      expect(run.session.state('agent')).toBe('ready')
      const out = await run.stop()
      expect(run.session.state('agent')).toBe('stopped')
      const handoff = out.log.envelopes().find((e) => e.fromNodeId === 'agent')
      expect(handoff?.payload.message).toBe(`Handled by ${name}.`)
      expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain('hello there')
      expect(out.done).toEqual(['sink'])
    },
    90_000,
  )
})
