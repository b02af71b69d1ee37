import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AgentSessionMissing,
  codexEnv,
  codexParser,
  codexSessionId,
  forkCodexHome,
  prepareCodexHome,
  type PtyTerminal,
  TerminalInterrupted,
} from '../../../src/interpreters/index.js'
import {
  cliRoot,
  openCli,
  processesWith,
  scriptedModel,
  textOf,
  until,
  type ScriptedModel,
} from './realCli.js'

const { root, work } = cliRoot('codex')
const home = join(root, 'codex-home')
let model: ScriptedModel
let codex: PtyTerminal

const state = () => codexParser.classify!(codex.screen())

beforeAll(async () => {
  model = await scriptedModel()
  // gpt-5: the model whose tools Codex sends as function tools (newer ones get code-mode custom tools).
  await prepareCodexHome({
    home,
    projects: [work],
    baseUrl: model.proxy.baseUrl('codex'),
    model: 'gpt-5',
  })
  codex = openCli('codex', 'codex', {
    root,
    work,
    env: codexEnv({ home, proxyKey: model.proxy.key('codex') }),
    timeoutMs: 30_000,
  })
  await codex.start()
}, 60_000)

afterAll(async () => {
  await codex.stop()
  await model.proxy.close()
})

describe('the real Codex CLI 0.171 through a PTY node and the model proxy', () => {
  it('starts unattended in a home the node prepared: no trust question, ready', () => {
    expect(state()._tag).toBe('ready')
    expect(readFileSync(join(home, 'config.toml'), 'utf8')).toContain(`[projects."${work}"]`)
  })

  it('answers two turns, each parsed alone, the second request carrying the first', async () => {
    model.push({ text: 'First answer.' })
    const one = await codex.execute('say one')
    expect(one.text).toBe('First answer.')
    expect(one.isComplete).toBe(true)
    model.push({ text: 'Second answer.' })
    const two = await codex.execute('say two')
    expect(two.text).toBe('Second answer.')
    const asked = model.requests.at(-1)!
    expect(asked.system).toMatch(/Codex CLI/)
    const texts = asked.messages.map(textOf)
    expect(texts).toContain('First answer.')
    expect(texts.at(-1)).toBe('say two')
    expect(model.proxy.usage('codex').calls).toBeGreaterThanOrEqual(2)
  }, 60_000)

  it('runs a tool call in the workspace and answers after it, the output sent back', async () => {
    model.push(
      { tools: [{ name: 'exec_command', input: { cmd: 'echo made > made.txt && echo done' } }] },
      { text: 'Made the file.' },
    )
    const r = await codex.execute('make a file')
    expect(r.text).toBe('Made the file.')
    expect(r.sections[0]).toMatchObject({ type: 'tool_call', metadata: { tool: 'Ran' } })
    expect(readFileSync(join(work, 'made.txt'), 'utf8')).toBe('made\n')
    const after = model.requests.at(-1)!.messages.at(-1)!
    expect(JSON.stringify(after.content)).toContain('tool_result')
  }, 60_000)

  it.each([
    ['approved', 'y', true],
    ['denied', '\x1b', false],
  ] as const)(
    'shows an escalated command as a permission prompt, %s in the terminal',
    async (_, key, made) => {
      const file = join(root, `outside-${String(made)}.txt`)
      model.push({
        tools: [
          {
            name: 'exec_command',
            input: {
              cmd: `touch ${file}`,
              sandbox_permissions: 'require_escalated',
              justification: 'May I?',
            },
          },
        ],
      })
      // A denial ends the turn: Codex does not call the model again.
      if (made) model.push({ text: 'Done.' })
      const answer = codex.execute(`touch it ${String(made)}`)
      await until(
        () => state()._tag === 'permission',
        () => codex.screen(),
      )
      expect(state()).toMatchObject({ _tag: 'permission', tool: 'shell', command: `touch ${file}` })
      await codex.write(key)
      const r = await answer
      expect(existsSync(file)).toBe(made)
      if (made) expect(r.text).toBe('Done.')
      else expect(r.sections.some((s) => s.metadata.tool === 'Ran')).toBe(true)
    },
    60_000,
  )

  it('interrupts a turn with Esc, and the next turn runs', async () => {
    model.push({ text: 'Too late.', delayMs: 20_000 })
    const signal = AbortSignal.timeout(1500)
    await expect(codex.execute('take your time', { signal })).rejects.toBeInstanceOf(
      TerminalInterrupted,
    )
    model.push({ text: 'Back again.' })
    const r = await codex.execute('are you there')
    expect(r.text).toBe('Back again.')
    expect(codex.screen()).toMatch(/■ Conversation interrupted/)
  }, 60_000)

  it('forks: a copy of its sessions in a new home, where codex fork carries the conversation on', async () => {
    const forkHome = join(root, 'fork-home')
    const args = await forkCodexHome(home, forkHome)
    expect(args).toEqual(['fork', await codexSessionId(home)])
    const fork = openCli('codex-fork', 'codex', {
      root,
      work,
      // The copied config still names the original's agent: its key goes with it.
      env: codexEnv({ home: forkHome, proxyKey: model.proxy.key('codex') }),
      args,
      timeoutMs: 30_000,
    })
    try {
      await fork.start()
      // The fork starts on the original's history (its last turn shows).
      expect(fork.screen()).toMatch(/Back again\./)
      model.push({ text: 'Forked answer.' })
      expect((await fork.execute('carry on')).text).toBe('Forked answer.')
      const texts = model.requests.at(-1)!.messages.map(textOf)
      expect(texts.join('\n')).toMatch(/say one[^]*First answer\.[^]*Back again\./)
      expect(texts.at(-1)).toBe('carry on')
      // A new session in the fork's home; the original's stays as it was.
      expect(await codexSessionId(forkHome)).not.toBe(args[1])
      expect(await codexSessionId(home)).toBe(args[1])
    } finally {
      await fork.stop()
    }
    expect(processesWith(`CODEX_HOME=${forkHome}`)).toEqual([])
  }, 60_000)

  it('will not fork a home with no session', async () => {
    await expect(forkCodexHome(join(root, 'nowhere'), join(root, 'x'))).rejects.toBeInstanceOf(
      AgentSessionMissing,
    )
  })

  it('leaves no process behind when stopped', async () => {
    expect(processesWith(`CODEX_HOME=${home}`).length).toBeGreaterThan(0)
    await codex.stop()
    expect(processesWith(`CODEX_HOME=${home}`)).toEqual([])
  }, 30_000)
})
