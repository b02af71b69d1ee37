import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { pty } from '../../../src/index.js'
import {
  openPty,
  parsedResponse,
  type Parser,
  type PtyTerminal,
  screenState,
  type ScreenState,
  section,
  TerminalAnswerError,
  TerminalDialog,
  TerminalInterrupted,
  TerminalTimeout,
} from '../../../src/interpreters/index.js'
import { TerminalScreen } from '../../../src/interpreters/terminal/screen.js'
import { ScreenWatcher } from '../../../src/interpreters/terminal/screenWatch.js'

const TUI = fileURLToPath(new URL('../../fake-tui/tui', import.meta.url))

/** A parser for the fake TUI, reading its screen. */
const classify = (screen: string): ScreenState => {
  const lines = screen.split('\n')
  if (lines.some((l) => l.includes('esc to interrupt'))) return screenState.busy()
  if (lines.some((l) => l.startsWith('Do you trust')))
    return screenState.dialog('Do you trust this folder?')
  const prompt = lines.findLastIndex((l) => l.startsWith('❯'))
  return prompt > 0 && lines[prompt - 1]!.startsWith('──')
    ? screenState.ready()
    : screenState.unknown()
}
const tuiParser: Parser = {
  name: 'tui',
  reads: 'screen',
  classify,
  isReady: (screen) => classify(screen)._tag === 'ready',
  keys: { interrupt: '\x1b' },
  draft: (screen) =>
    /^❯ (.*)$/m.exec(screen.split('\n').findLast((l) => l.startsWith('❯')) ?? '')?.[1] ?? '',
  parse(screen, options = {}) {
    const lines = screen.split('\n')
    const asked = lines.findLastIndex((l) => l === `> ${options.input ?? ''}`)
    const end = lines.findLastIndex((l) => l.startsWith('❯')) - 1
    const answer = lines.slice(asked + 1, end).filter((l) => l.trim() !== '')
    const ready = classify(screen)._tag === 'ready'
    return parsedResponse({
      raw: screen,
      error: /^\s*⎿\s+(.*)$/.exec(answer[0] ?? '')?.[1],
      sections: answer.map((l) => section('text', l.replace(/^⏺ /, ''))),
      isReady: ready,
      isComplete: ready && asked >= 0 && asked < end - 1,
    })
  },
}

const opened: PtyTerminal[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.stop()))
})

const tui = (args: string[] = [], timeoutMs = 5000): PtyTerminal => {
  const node = pty('tui', { command: TUI, args, cols: 60, rows: 20, timeoutMs })
  const t = openPty(node, { killGraceMs: 500, drainMs: 2000, parser: tuiParser })
  opened.push(t)
  return t
}

describe('TerminalScreen', () => {
  it('shows what cursor moves and erases leave, not the byte stream', async () => {
    const screen = new TerminalScreen({ cols: 20, rows: 5 })
    screen.write('first\r\nsecond\x1b[1;1H\x1b[2Kredrawn')
    await screen.flushed()
    expect(screen.lines()).toEqual(['redrawn', 'second'])
    screen.dispose()
  })

  it('keeps a row as wide as the screen apart from the next row, and joins rows the program wrapped', async () => {
    const screen = new TerminalScreen({ cols: 10, rows: 5 })
    screen.write('─'.repeat(10) + '\r\n❯ hi\r\n' + 'x'.repeat(15))
    await screen.flushed()
    expect(screen.lines()).toEqual(['─'.repeat(10), '❯ hi', 'x'.repeat(15)])
    screen.dispose()
  })

  it('calls its listeners once a write was parsed', async () => {
    const screen = new TerminalScreen({ cols: 10, rows: 5 })
    const seen: string[] = []
    screen.onChange(() => seen.push(screen.text()))
    screen.write('a')
    expect(seen).toEqual([])
    await screen.flushed()
    expect(seen).toEqual(['a'])
    screen.dispose()
  })
})

describe('ScreenWatcher', () => {
  /** A watch of `screen` for the answer to `hello` with a minute's quiet window; `done` resolves when it is confirmed. */
  const watched = (screen: TerminalScreen, parser: Parser) => {
    let confirmed: () => void = () => undefined
    const done = new Promise<void>((resolve) => (confirmed = resolve))
    const watch = new ScreenWatcher({
      parser,
      screen,
      quietMs: 60_000,
      input: 'hello',
      since: screen.version,
      onReady: () => {
        confirmed()
      },
    })
    watch.check()
    return { watch, done }
  }
  const answered = '> hello\r\n⏺ echo: hello\r\n\r\n──────\r\n❯ '
  /** The turn running: what the watch must see before it believes a done mark. */
  const running = '> hello\r\n  esc to interrupt'
  /** Whether `done` settles within `ms`, far under the minute's window. */
  const settles = (done: Promise<void>, ms = 1000): Promise<boolean> =>
    Promise.race([
      done.then(() => true),
      new Promise<boolean>((resolve) => {
        setTimeout(() => {
          resolve(false)
        }, ms)
      }),
    ])

  it("confirms at once a turn its parser's finished says ended, without the quiet window", async () => {
    const screen = new TerminalScreen({ cols: 20, rows: 8 })
    const { done } = watched(screen, { ...tuiParser, finished: (text) => text.includes('echo:') })
    screen.write(running)
    await screen.flushed()
    screen.write('\x1b[2J\x1b[H' + answered)
    expect(await settles(done)).toBe(true)
    screen.dispose()
  })

  it('cuts a window already running short when the done mark is drawn after the answer', async () => {
    const screen = new TerminalScreen({ cols: 20, rows: 8 })
    const parser = { ...tuiParser, finished: (text: string) => text.includes('turn done') }
    const { watch, done } = watched(screen, parser)
    screen.write(running)
    await screen.flushed()
    screen.write('\x1b[2J\x1b[H' + answered)
    await screen.flushed()
    // The footer under the prompt line: the answer the window holds does not change.
    screen.write('\r\n  turn done')
    expect(await settles(done)).toBe(true)
    watch.close()
    screen.dispose()
  })

  it('does not believe a done mark before it saw the turn run: it may be an earlier turn with the same input', async () => {
    const screen = new TerminalScreen({ cols: 20, rows: 8 })
    const { watch, done } = watched(screen, { ...tuiParser, finished: () => true })
    screen.write(answered)
    expect(await settles(done, 100)).toBe(false)
    watch.close()
    screen.dispose()
  })

  it('holds any other ready screen through the quiet window', async () => {
    const screen = new TerminalScreen({ cols: 20, rows: 8 })
    let confirmed = false
    const { watch, done } = watched(screen, { ...tuiParser, finished: () => false })
    void done.then(() => (confirmed = true))
    screen.write(answered)
    await screen.flushed()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(confirmed).toBe(false)
    watch.close()
    screen.dispose()
  })
})

describe('a PTY node reading a screen', () => {
  it('answers a program that prints no line feed after the prompt, at once and not by a timeout', async () => {
    const t = tui()
    await t.start()
    const began = performance.now()
    const r = await t.execute('hello')
    expect(r.text).toBe('echo: hello')
    expect(r.isComplete).toBe(true)
    expect(performance.now() - began).toBeLessThan(2000)
    const again = await t.execute('second')
    expect(again.text).toBe('echo: second')
    expect(t.screen()).toContain('> hello')
  })

  it('submits with a key of its own, so a program that reads text and Enter together as a paste still gets the prompt', async () => {
    const t = tui()
    await t.start()
    const r = await t.execute('one two')
    expect(r.text).toBe('echo: one two')
  })

  it('presses the submit key again when the input still stands in the box: a program under load can lose it', async () => {
    const t = tui(['deaf'])
    await t.start()
    expect((await t.execute('hi')).text).toBe('echo: hi')
  })

  it('answers an input asked again with its new answer, not the earlier turn the history shows before Enter', async () => {
    // Enter well after the text: the box holds the input while the earlier turn's answer shows.
    const parser = { ...tuiParser, keys: { ...tuiParser.keys, submitDelayMs: 120 } }
    const t = openPty(pty('tui', { command: TUI, cols: 60, rows: 20, timeoutMs: 5000 }), {
      killGraceMs: 500,
      parser,
    })
    opened.push(t)
    await t.start()
    expect((await t.execute('count')).text).toBe('count: 1')
    expect((await t.execute('count')).text).toBe('count: 2')
    expect((await t.execute('count')).text).toBe('count: 3')
  })

  it('times out on a screen its parser cannot classify, with the screen in the error, never ready', async () => {
    const t = tui()
    await t.start()
    const error = await t.execute('garble', { timeoutMs: 400 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TerminalTimeout)
    expect((error as TerminalTimeout).state).toBe('unknown')
    expect((error as TerminalTimeout).partial).toContain('?!?')
    expect((error as Error).message).toContain('?!?')
  })

  it('interrupts with the key the program expects and is ready again', async () => {
    const t = tui()
    await t.start()
    const controller = new AbortController()
    const slow = t.execute('slow', { signal: controller.signal })
    setTimeout(() => {
      controller.abort()
    }, 300)
    await expect(slow).rejects.toBeInstanceOf(TerminalInterrupted)
    const r = await t.execute('after')
    expect(r.text).toBe('echo: after')
    expect(t.screen()).toContain('⎿  Interrupted')
  })

  it('lets the next input in only once the prompt has held: the first screen after the key can read ready before the program stopped', async () => {
    const t = tui()
    await t.start()
    const controller = new AbortController()
    const slow = t.execute('slowstop', { signal: controller.signal })
    setTimeout(() => {
      controller.abort()
    }, 300)
    await expect(slow).rejects.toBeInstanceOf(TerminalInterrupted)
    const r = await t.execute('after')
    expect(r.text).toBe('echo: after')
    expect(t.screen()).not.toContain('Queued')
  })

  it('rejects an input the program refused with what it said, and answers the next', async () => {
    const t = tui()
    await t.start()
    const error = await t.execute('refuse').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TerminalAnswerError)
    expect((error as TerminalAnswerError).said).toBe('Not logged in')
    expect((error as TerminalAnswerError).screen).toContain('> refuse')
    expect(t.state).toBe('ready')
    expect((await t.execute('after')).text).toBe('echo: after')
  })

  it('reports a dialog nothing answers at start, with the screen', async () => {
    const t = tui(['dialog'])
    const error = await t.start().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TerminalDialog)
    expect((error as TerminalDialog).title).toBe('Do you trust this folder?')
    expect((error as TerminalDialog).screen).toContain('2. No, exit')
    expect(t.state).toBe('stopped')
  })
})
