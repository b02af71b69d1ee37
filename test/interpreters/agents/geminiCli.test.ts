import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  forkGeminiHome,
  geminiEnv,
  geminiParser,
  geminiSessionId,
  prepareGeminiHome,
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

const { root, work } = cliRoot('gemini')
const home = join(root, 'gemini-home')
let model: ScriptedModel
let gemini: PtyTerminal

const state = () => geminiParser.classify!(gemini.screen())

beforeAll(async () => {
  model = await scriptedModel()
  await prepareGeminiHome({ home, projects: [work] })
  gemini = openCli('gemini', 'gemini', {
    root,
    work,
    env: geminiEnv({
      home,
      baseUrl: model.proxy.baseUrl('gemini'),
      apiKey: model.proxy.key('gemini'),
    }),
    timeoutMs: 45_000,
  })
  await gemini.start()
}, 90_000)

afterAll(async () => {
  await gemini.stop()
  await model.proxy.close()
})

describe('the real Gemini CLI 0.61 through a PTY node and the model proxy', () => {
  it('starts unattended in a home the node prepared: no trust, auth or key question', () => {
    expect(state()._tag).toBe('ready')
    const trusted: unknown = JSON.parse(
      readFileSync(join(home, '.gemini', 'trustedFolders.json'), 'utf8'),
    )
    expect(trusted).toEqual({ [work]: 'TRUST_FOLDER' })
  })

  it('answers two turns, each parsed alone, the second request carrying the first', async () => {
    model.push({ text: 'First answer.' })
    const one = await gemini.execute('say one')
    expect(one.text).toBe('First answer.')
    expect(one.isComplete).toBe(true)
    model.push({ text: 'Second answer.' })
    const two = await gemini.execute('say two')
    expect(two.text).toBe('Second answer.')
    const asked = model.requests.at(-1)!
    expect(asked.model).toBe('gemini-2.5-pro')
    expect(asked.system).toMatch(/interactive CLI agent/)
    const texts = asked.messages.map(textOf)
    expect(texts).toContain('First answer.')
    expect(texts.at(-1)).toBe('say two')
    expect(model.proxy.usage('gemini').calls).toBeGreaterThanOrEqual(2)
  }, 60_000)

  it('runs a read-only tool call and answers after it, the output sent back', async () => {
    model.push(
      { tools: [{ name: 'run_shell_command', input: { command: 'ls -a', description: 'List' } }] },
      { text: 'Listed the files.' },
    )
    const r = await gemini.execute('list the files')
    expect(r.text).toBe('Listed the files.')
    expect(r.sections[0]).toMatchObject({
      type: 'tool_call',
      metadata: { tool: 'Shell', status: 'done' },
    })
    const after = model.requests.at(-1)!.messages.at(-1)!
    expect(JSON.stringify(after.content)).toContain('tool_result')
  }, 60_000)

  it('shows a file write as a permission prompt, approved in the terminal', async () => {
    const file = join(work, 'notes.txt')
    model.push(
      { tools: [{ name: 'write_file', input: { file_path: file, content: 'hello\n' } }] },
      { text: 'Wrote the notes.' },
    )
    const answer = gemini.execute('write notes')
    await until(
      () => state()._tag === 'permission',
      () => gemini.screen(),
    )
    expect(state()).toMatchObject({ _tag: 'permission', tool: 'WriteFile', file: 'notes.txt' })
    await gemini.write('\r')
    expect((await answer).text).toBe('Wrote the notes.')
    expect(readFileSync(file, 'utf8')).toBe('hello\n')
  }, 60_000)

  it('shows a shell command as a permission prompt, denied in the terminal', async () => {
    model.push({
      tools: [
        { name: 'run_shell_command', input: { command: 'touch made.txt', description: 'Make' } },
      ],
    })
    const answer = gemini.execute('make a file')
    await until(
      () => state()._tag === 'permission',
      () => gemini.screen(),
    )
    expect(state()).toMatchObject({ _tag: 'permission', tool: 'Shell', command: 'touch made.txt' })
    await gemini.write('\x1b')
    const r = await answer
    expect(r.sections[0]?.metadata).toMatchObject({ tool: 'Shell', status: 'cancelled' })
    expect(existsSync(join(work, 'made.txt'))).toBe(false)
  }, 60_000)

  it('interrupts a turn with Esc, and the next turn runs', async () => {
    model.push({ text: 'Too late.', delayMs: 20_000 })
    const signal = AbortSignal.timeout(1500)
    await expect(gemini.execute('take your time', { signal })).rejects.toBeInstanceOf(
      TerminalInterrupted,
    )
    model.push({ text: 'Back again.' })
    expect((await gemini.execute('are you there')).text).toBe('Back again.')
  }, 60_000)

  it('forks: a copy of its home where gemini --resume carries the conversation on apart', async () => {
    const forkHome = join(root, 'fork-home')
    const id = await geminiSessionId(home)
    const args = await forkGeminiHome(home, forkHome)
    expect(args).toEqual(['--resume', id])
    const fork = openCli('gemini-fork', 'gemini', {
      root,
      work,
      env: geminiEnv({
        home: forkHome,
        baseUrl: model.proxy.baseUrl('fork'),
        apiKey: model.proxy.key('fork'),
      }),
      args,
      timeoutMs: 45_000,
    })
    try {
      await fork.start()
      model.push({ text: 'Forked answer.' })
      expect((await fork.execute('carry on')).text).toBe('Forked answer.')
      const texts = model.requests.at(-1)!.messages.map(textOf)
      // Gemini rebuilds the first prompt's session context on resume; the turns after it are carried.
      expect(texts).toEqual(
        expect.arrayContaining(['First answer.', 'say two', 'Second answer.', 'carry on']),
      )
      expect(model.proxy.usage('fork').calls).toBeGreaterThan(0)
    } finally {
      await fork.stop()
    }
    // The original's chats did not take the fork's turn.
    const chats = readdirSync(join(home, '.gemini', 'tmp'), { recursive: true }).map(String)
    const original = chats.filter((f) => f.endsWith('.jsonl'))
    for (const f of original)
      expect(readFileSync(join(home, '.gemini', 'tmp', f), 'utf8')).not.toContain('carry on')
  }, 90_000)

  it('leaves no process behind when stopped', async () => {
    expect(processesWith(`GEMINI_CLI_HOME=${home}`).length).toBeGreaterThan(0)
    await gemini.stop()
    expect(processesWith(`GEMINI_CLI_HOME=${home}`)).toEqual([])
  }, 30_000)
})
