import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { pty } from '../../../src/index.js'
import {
  geminiProtocol,
  type ModelProxyOptions,
  openAgentPty,
  openaiResponsesProtocol,
  type ProxyCall,
  startModelProxy,
} from '../../../src/interpreters/index.js'
import { scriptedModel } from './realCli.js'

const root = mkdtempSync(join(tmpdir(), 'nerve-agent-replay-'))
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

/** One session of `program` in a fresh home on `proxy`: the answers to `prompts`. */
const session = async (
  program: 'codex' | 'gemini',
  upstream: ModelProxyOptions['upstream'],
  run: string,
  prompts: readonly string[],
): Promise<{ readonly texts: string[]; readonly calls: readonly ProxyCall[] }> => {
  const work = join(root, `${program}-${run}`)
  mkdirSync(work)
  const proxy = await startModelProxy({
    protocols: [openaiResponsesProtocol, geminiProtocol],
    upstream,
  })
  const agent = openAgentPty(
    program,
    pty(program, { command: program, cwd: work, env: { HOME: root }, timeoutMs: 45_000 }),
    {
      proxy,
      home: join(root, `${program}-${run}-home`),
      ...(program === 'codex' && { model: 'gpt-5' }),
    },
  )
  try {
    await agent.start()
    const texts: string[] = []
    for (const p of prompts) texts.push((await agent.execute(p)).text)
    return { texts, calls: proxy.calls(program) }
  } finally {
    await agent.stop()
    await proxy.close()
  }
}

it.each(['codex', 'gemini'] as const)(
  'replays a recorded %s session from its calls, with no model behind the proxy',
  async (program) => {
    const model = await scriptedModel()
    const provider = {
      _tag: 'forward' as const,
      baseUrl: model.proxy.url,
      headers: { 'x-api-key': model.proxy.key('api') },
    }
    model.push({ text: 'Recorded one.' }, { text: 'Recorded two.' })
    const recorded = await session(program, provider, 'live', ['first', 'second'])
    await model.proxy.close()
    expect(recorded.texts).toEqual(['Recorded one.', 'Recorded two.'])
    const replayed = await session(program, { _tag: 'replay', calls: recorded.calls }, 'tape', [
      'first',
      'second',
    ])
    expect(replayed.texts).toEqual(recorded.texts)
  },
  120_000,
)
