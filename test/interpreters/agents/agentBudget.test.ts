import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { pty } from '../../../src/index.js'
import {
  geminiProtocol,
  openAgentPty,
  openaiResponsesProtocol,
  startModelProxy,
} from '../../../src/interpreters/index.js'
import { scriptedProvider } from '../../../src/testing/index.js'

const root = mkdtempSync(join(tmpdir(), 'nerve-agent-budget-'))
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

it.each(['codex', 'gemini'] as const)(
  'refuses the calls of a %s node past its budget at the proxy, and the turn ends there',
  async (program) => {
    const work = join(root, program)
    mkdirSync(work)
    const model = scriptedProvider(['never sent'])
    const proxy = await startModelProxy({
      protocols: [openaiResponsesProtocol, geminiProtocol],
      upstream: { _tag: 'provider', provider: model },
      budget: { maxCalls: 0 },
    })
    const agent = openAgentPty(
      program,
      pty(program, { command: program, cwd: work, env: { HOME: root }, timeoutMs: 45_000 }),
      {
        proxy,
        home: join(root, `${program}-home`),
        ...(program === 'codex' && { model: 'gpt-5' }),
      },
    )
    try {
      await agent.start()
      const r = await agent.execute('hello')
      expect(r.isComplete).toBe(true)
      expect(r.text).toBe('')
      expect(model.requests).toEqual([])
      expect(proxy.usage(program).calls).toBe(0)
      expect(proxy.usage(program).refused).toBeGreaterThan(0)
    } finally {
      await agent.stop()
      await proxy.close()
    }
  },
  90_000,
)
