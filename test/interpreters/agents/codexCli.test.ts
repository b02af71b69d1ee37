import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  codexBinary,
  codexEnv,
  codexParser,
  openPty,
  prepareCodexHome,
  pty,
  TerminalInterrupted,
  type PtyTerminal,
} from '../../../src/index.js'
import { processesWith, scriptedModel, textOf, until, type ScriptedModel } from './realCli.js'

const root = mkdtempSync(join(tmpdir(), 'nerve-codex-'))
const home = join(root, 'codex-home')
const work = join(root, 'work')
let model: ScriptedModel
let codex: PtyTerminal

const state = () => codexParser.classify!(codex.screen())

beforeAll(async () => {
  mkdirSync(work)
  model = await scriptedModel()
  // gpt-5: the model whose tools Codex sends as function tools (newer ones get code-mode custom tools).
  await prepareCodexHome({
    home,
    projects: [work],
    baseUrl: model.proxy.baseUrl('codex'),
    model: 'gpt-5',
  })
  codex = openPty(
    pty('codex', {
      command: codexBinary(),
      cwd: work,
      env: codexEnv({ home }),
      parser: 'codex',
      cols: 100,
      rows: 30,
      timeoutMs: 30_000,
    }),
  )
  await codex.start()
}, 60_000)

afterAll(async () => {
  await codex.stop()
  await model.proxy.close()
  rmSync(root, { recursive: true, force: true })
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

  it('leaves no process behind when stopped', async () => {
    expect(processesWith(`CODEX_HOME=${home}`).length).toBeGreaterThan(0)
    await codex.stop()
    expect(processesWith(`CODEX_HOME=${home}`)).toEqual([])
  }, 30_000)
})
