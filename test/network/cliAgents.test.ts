import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { codexBinary, geminiBinary, prepareCodexHome, prepareGeminiHome } from 'nerve-agents'
import { cliRoot, scriptedModel, type ScriptedModel } from '../interpreters/agents/realCli.js'
import { cliHandoff } from './cliHandoff.js'

// The real programs (devDependencies), with the user's own configuration as
// a network node finds it: the environment and the homes it names.
const { root, work } = cliRoot('cli-network')
let model: ScriptedModel
const saved = { ...process.env }

beforeAll(async () => {
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
})

describe('network runs of the real CLI agents', () => {
  it.each([
    ['codex', 'codex.js'],
    ['gemini', 'gemini.js'],
  ] as const)(
    'drive %s-cli through its terminal node and hand its answer on',
    async (name, bin) => {
      model.push({ text: `Handled by ${name}.` })
      const provider = { type: 'cli', agent: `${name}-cli`, command: bin } as const
      expect(await cliHandoff(provider, work, 'hello there')).toBe(`Handled by ${name}.`)
      expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain('hello there')
    },
    90_000,
  )
})
