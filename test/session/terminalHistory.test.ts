import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  addStep,
  claudeWezterm,
  defaultInterpreters,
  graph,
  pty,
  run,
  UsageError,
} from '../../src/index.js'
import { interpreters } from '../../src/core.js'
import {
  claudeWeztermInterpreter,
  type ClaudeWeztermTerminal,
  openClaudeWezterm,
  openPty,
  ptyInterpreter,
  type PtyTerminal,
  TerminalInterrupted,
} from '../../src/interpreters/index.js'
import {
  createSession,
  type HistoryRecord,
  type HistoryWriteError,
  readHistory,
  type TerminalHistoryOptions,
  withHistory,
} from '../../src/session/index.js'
import { needsTmux } from '../interpreters/terminal/needsTmux.js'

const BASH = {
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ', PROMPT_COMMAND: '' },
}

const dirs: string[] = []
const stops: (() => Promise<void>)[] = []

const tmp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'nerve-term-history-'))
  dirs.push(dir)
  return dir
}

afterEach(async () => {
  await Promise.all(stops.splice(0).map((s) => s()))
})

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const shell = async (history: TerminalHistoryOptions, id = 'sh'): Promise<PtyTerminal> => {
  const node = pty(id, { ...BASH, parser: 'none' })
  const t = withHistory(history)(openPty(node, { killGraceMs: 500, drainMs: 2000 }), node)
  stops.push(() => t.stop())
  await t.start()
  return t
}

const recordsOf = async (root: string, node = 'sh'): Promise<readonly HistoryRecord[]> =>
  (await readHistory({ root, server: 'local', session: 'dev', node })).records

describe('a PTY terminal with history', () => {
  it('records each execute as a send, numbered from 1, with its input, parser and answer', async () => {
    const root = tmp()
    const t = await shell({ root, server: 'local', session: 'dev' })
    expect((await t.execute('echo one')).text).toBe('one')
    expect((await t.execute('echo two')).text).toBe('two')
    const records = await recordsOf(root)
    expect(records.map((r) => [r.seq, r.op, r.node, r.input, r.parser, r.response?.text])).toEqual([
      [1, 'send', 'sh', 'echo one', 'none', 'one'],
      [2, 'send', 'sh', 'echo two', 'none', 'two'],
    ])
    expect(records[0]?.response?.sections).toEqual([{ type: 'text', content: 'one', metadata: {} }])
    expect(typeof records[0]?.durationMs).toBe('number')
  })

  it('records an interrupt, the interrupted execute with its partial output, and the close', async () => {
    const root = tmp()
    const t = await shell({ root, server: 'local', session: 'dev' })
    const seen: string[] = []
    const reading = (async () => {
      for await (const c of t.executeStream('echo started; sleep 30')) {
        seen.push(c)
        if (seen.join('').includes('started\r\n')) await t.interrupt()
      }
    })()
    await expect(reading).rejects.toBeInstanceOf(TerminalInterrupted)
    await t.stop()
    const records = await recordsOf(root)
    expect(records.map((r) => [r.seq, r.op])).toEqual([
      [1, 'interrupt'],
      [2, 'send_stream'],
      [3, 'close'],
    ])
    expect(records[1]?.error).toMatch(/interrupted/)
    expect(records[1]?.partial).toContain('started')
    expect(records[2]?.buffer).toContain('started')
  })

  it('records streamed executes, writes and explicit reads', async () => {
    const root = tmp()
    const t = await shell({ root, server: 'local', session: 'dev' })
    const chunks: string[] = []
    for await (const c of t.executeStream('echo streamed')) chunks.push(c)
    await t.write('echo raw\n')
    await t.execute('true')
    const tail = t.readTail(2)
    const records = await recordsOf(root)
    expect(records.map((r) => r.op)).toEqual(['send_stream', 'write', 'send', 'read'])
    expect(records[0]?.response?.text).toBe('streamed')
    expect(records[1]?.data).toBe('echo raw\n')
    expect(records[3]).toMatchObject({ lines: 2, chars: tail.length })
  })

  it('continues the numbering when a second terminal of the same node reopens the file', async () => {
    const root = tmp()
    const history = { root, server: 'local', session: 'dev' }
    const first = await shell(history)
    await first.execute('echo a')
    await first.stop()
    const second = await shell(history)
    await second.execute('echo b')
    await second.stop()
    await second.stop()
    const records = await recordsOf(root)
    expect(records.map((r) => [r.seq, r.op, r.input])).toEqual([
      [1, 'send', 'echo a'],
      [2, 'close', undefined],
      [3, 'send', 'echo b'],
      [4, 'close', undefined],
    ])
  })

  it('records a close with the exit code when the program ends by itself', async () => {
    const root = tmp()
    const t = await shell({ root, server: 'local', session: 'dev' })
    await expect(t.execute('exit 3')).rejects.toMatchObject({ exitCode: 3 })
    await t.stop()
    const records = await recordsOf(root)
    expect(records.map((r) => [r.op, r.exitCode])).toEqual([
      ['send', undefined],
      ['close', 3],
    ])
  })

  it('never fails an execute when the history cannot be written', async () => {
    const root = join(tmp(), 'a-file')
    writeFileSync(root, 'not a directory')
    const errors: HistoryWriteError[] = []
    const t = await shell({ root, server: 'local', session: 'dev', onError: (e) => errors.push(e) })
    expect((await t.execute('echo still')).text).toBe('still')
    await t.stop()
    expect(errors.map((e) => e.op)).toEqual(['send', 'close'])
  })

  it('rejects names a history path cannot have', () => {
    const t = openPty(pty('sh', BASH))
    expect(() => withHistory({ server: 'local', session: '..' })(t)).toThrow(UsageError)
  })

  it('keeps the members of the terminal it decorates', async () => {
    const t = await shell({ root: tmp(), server: 'local', session: 'dev' })
    expect(t.pid).toBeGreaterThan(0)
    expect(t.nodeId).toBe('sh')
    expect(t.state).toBe('ready')
  })
})

describe('an interpreter with withHistory as its decorator', () => {
  it('records the steps it runs (streamed by the runtime) and the close when stopped', async () => {
    const root = tmp()
    const interpreter = ptyInterpreter({
      decorate: withHistory({ root, server: 'local', session: 'dev' }),
    })
    const g = pipe(graph('g'), addStep({ id: 'say', node: pty('sh', BASH), input: 'echo hi' }))
    // With no session, the run starts the terminal and stops it as it ends.
    await run(g, { interpreters: interpreters(...defaultInterpreters.values(), interpreter) })
    const records = await recordsOf(root)
    expect(records.map((r) => [r.seq, r.op, r.input])).toEqual([
      [1, 'send_stream', 'echo hi'],
      [2, 'close', undefined],
    ])
  })
})

const FAKE_WEZTERM = fileURLToPath(new URL('../fake-wezterm/wezterm', import.meta.url))
const FAKE_CLAUDE = fileURLToPath(new URL('../fake-claude/claude', import.meta.url))

describe('a Claude-on-WezTerm node with history', () => {
  needsTmux()
  const dir = mkdtempSync(join(tmpdir(), 'nerve-term-history-claude-'))
  const socket = join(dir, 'tmux')
  let saved: string | undefined
  beforeAll(() => {
    saved = process.env.NERVE_FAKE_WEZTERM_SOCKET
    process.env.NERVE_FAKE_WEZTERM_SOCKET = socket
  })
  afterAll(() => {
    try {
      execFileSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore' })
    } catch {
      // the server exits with its last pane
    }
    rmSync(dir, { recursive: true, force: true })
    if (saved === undefined) delete process.env.NERVE_FAKE_WEZTERM_SOCKET
    else process.env.NERVE_FAKE_WEZTERM_SOCKET = saved
  })

  it('writes exactly one record per execute: the wrapper records, the inner WezTerm does not', async () => {
    const root = tmp()
    const history = { root, server: 'local', session: 'dev' }
    const interpreter = claudeWeztermInterpreter({ decorate: withHistory(history) })
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), interpreter),
    })
    stops.push(() => session.close())
    const node = session.register(
      claudeWezterm('agent', { wezterm: FAKE_WEZTERM, claude: FAKE_CLAUDE }),
    )
    await session.start('agent')
    const g = pipe(graph('g'), addStep({ id: 'ask', node, input: 'hello there' }))
    await run(g, { interpreters: session.interpreters, session })
    const t = session.live('agent') as ClaudeWeztermTerminal
    expect(t.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    expect((await t.execute('use a tool')).text).toBe('You said: use a tool')
    expect(withHistory(history)(t.inner)).toBe(t.inner)
    await session.close()
    const records = await recordsOf(root, 'agent')
    expect(records.map((r) => [r.op, r.input, r.response?.text])).toEqual([
      ['send_stream', 'hello there', 'You said: hello there'],
      ['send', 'use a tool', 'You said: use a tool'],
      ['close', undefined, undefined],
    ])
  })

  it('leaves a directly opened inner WezTerm terminal undecorated', () => {
    const t = openClaudeWezterm(claudeWezterm('other', { wezterm: FAKE_WEZTERM }))
    const history = { root: tmp(), server: 'local', session: 'dev' }
    expect(withHistory(history)(t.inner)).toBe(t.inner)
    expect(withHistory(history)(t)).not.toBe(t)
  })
})
