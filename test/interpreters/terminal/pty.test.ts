import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { afterEach, describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  graph,
  pty,
  type PtyNode,
  type PtyOptions,
  run,
  type RunEvent,
  UsageError,
} from '../../../src/index.js'
import { interpreters, type NodeContext, nodeRegistry } from '../../../src/core.js'
import {
  openPty,
  type ParsedResponse,
  ptyInterpreter,
  type PtyTerminal,
  TerminalExited,
  TerminalInterrupted,
  TerminalTimeout,
} from '../../../src/interpreters/index.js'
import {
  BASH,
  eventually,
  groupOf,
  running as alive,
  sessionMembers,
  sessionOf,
} from './processes.js'

const opened: PtyTerminal[] = []
const stops: (() => Promise<void>)[] = []

afterEach(async () => {
  await Promise.all([...opened.splice(0).map((t) => t.stop()), ...stops.splice(0).map((s) => s())])
})

const shell = async (options: Partial<PtyOptions> = {}, id = 'sh'): Promise<PtyTerminal> => {
  const t = openPty(pty(id, { ...BASH, ...options }), { killGraceMs: 500, drainMs: 2000 })
  opened.push(t)
  await t.start()
  return t
}

const children = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l !== '')
      .map(Number)
  } catch {
    return []
  }
}

const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  )

describe('a PTY terminal running bash', () => {
  it('starts ready and answers an execute with the output, without the echoed input', async () => {
    const t = await shell()
    expect(t.state).toBe('ready')
    const r = await t.execute('echo hi')
    expect(r.text).toBe('hi')
    expect(r.isComplete).toBe(true)
    expect(r.raw).toContain('echo hi')
    expect(t.state).toBe('ready')
  })

  it('strips the bracketed-paste codes bash 5.2 puts around its prompt', async () => {
    const t = await shell()
    const r = await t.execute('printf "a\\nb\\n"')
    expect(r.text).toBe('a\nb')
    expect(r.text).not.toContain('\x1b')
  })

  it('runs in its cwd with its env over the process environment', async () => {
    const dir = tmpdir()
    const t = await shell({ cwd: dir, env: { ...BASH.env, NERVE_PTY: 'yes' } })
    expect((await t.execute('pwd')).text).toBe(dir)
    expect((await t.execute('echo "$NERVE_PTY $SHLVL"')).text).toMatch(/^yes \d+$/)
  })

  it('keeps the CI markers of the process environment out of the terminal, unless the node sets them', async () => {
    const saved = { ...process.env }
    process.env.CI = 'true'
    process.env.CI_JOB_ID = '7'
    try {
      const plain = await shell({}, 'plain')
      expect((await plain.execute('echo "[${CI-unset}] [${CI_JOB_ID-unset}]"')).text).toBe(
        '[unset] [unset]',
      )
      const own = await shell({ env: { ...BASH.env, CI: 'mine' } }, 'own')
      expect((await own.execute('echo "[$CI]"')).text).toBe('[mine]')
    } finally {
      process.env = saved
    }
  })

  it('queues two concurrent executes: the second writes after the first answered', async () => {
    const t = await shell()
    const first = t.execute('echo a; sleep 0.2; echo b')
    const second = t.execute('echo c')
    expect((await first).text).toBe('a\nb')
    expect((await second).text).toBe('c')
  })

  it('streams output chunks, then returns the parsed response', async () => {
    const t = await shell()
    const stream = t.executeStream('for i in 1 2 3; do echo line$i; sleep 0.05; done')
    const it = stream[Symbol.asyncIterator]()
    const chunks: string[] = []
    let step = await it.next()
    while (step.done !== true) {
      chunks.push(step.value)
      step = await it.next()
    }
    const result: ParsedResponse = step.value
    expect(chunks.length).toBeGreaterThan(1)
    expect(chunks.join('')).toContain('line3')
    expect(result.text).toBe('line1\nline2\nline3')
  })

  it('rejects a timed-out execute with TerminalTimeout and stays usable', async () => {
    const t = await shell()
    const e = await rejection(t.execute('echo started; sleep 30', { timeoutMs: 1000 }))
    expect(e).toBeInstanceOf(TerminalTimeout)
    expect((e as TerminalTimeout).timeoutMs).toBe(1000)
    expect((e as TerminalTimeout).partial).toContain('started')
    expect((await t.execute('echo after')).text).toBe('after')
  })

  it('rejects with TerminalExited carrying the exit code when the program exits', async () => {
    const t = await shell()
    const e = await rejection(t.execute('exit 3'))
    expect(e).toBeInstanceOf(TerminalExited)
    expect((e as TerminalExited).exitCode).toBe(3)
    expect(t.state).toBe('stopped')
    const later = await rejection(t.execute('echo no'))
    expect(later).toBeInstanceOf(TerminalExited)
    expect((later as TerminalExited).exitCode).toBe(3)
  })

  it('settles an execute as interrupted by interrupt(), and answers the next one', async () => {
    const t = await shell()
    const pending = rejection(t.execute('sleep 30'))
    await new Promise((resolve) => setTimeout(resolve, 100))
    await t.interrupt()
    expect(await pending).toBeInstanceOf(TerminalInterrupted)
    expect((await t.execute('echo back')).text).toBe('back')
  })

  it('sends the interrupt key again when the program missed the first, so the next execute finds the prompt', async () => {
    const t = await shell()
    // The first Ctrl+C only clears the trap: the loop goes on until the second.
    const pending = rejection(
      t.execute(`bash -c 'trap "trap - INT" INT; while :; do sleep 0.05; done'`),
    )
    await new Promise((resolve) => setTimeout(resolve, 100))
    await t.interrupt()
    expect(await pending).toBeInstanceOf(TerminalInterrupted)
    expect((await t.execute('echo back', { timeoutMs: 5000 })).text).toBe('back')
  })

  it('settles an execute as interrupted when its signal aborts', async () => {
    const t = await shell()
    const ac = new AbortController()
    const pending = rejection(t.execute('sleep 30', { signal: ac.signal }))
    setTimeout(() => {
      ac.abort()
    }, 100)
    expect(await pending).toBeInstanceOf(TerminalInterrupted)
    expect((await t.execute('echo back')).text).toBe('back')
  })

  it('settles an execute when stopped during it, ending the program and its job', async () => {
    const t = await shell()
    const pid = t.pid!
    const pending = rejection(t.execute('sleep 31'))
    let jobs = children(pid)
    while (jobs.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      jobs = children(pid)
    }
    expect(jobs.length).toBe(1)
    await t.stop()
    expect(await pending).toBeInstanceOf(TerminalExited)
    expect(t.state).toBe('stopped')
    expect(alive(pid)).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(jobs.filter(alive)).toEqual([])
  })

  it('treats a second stop, and a stop before start, as harmless', async () => {
    const t = await shell()
    await Promise.all([t.stop(), t.stop()])
    await t.stop()
    expect(t.state).toBe('stopped')
    const never = openPty(pty('never', BASH))
    await never.stop()
    expect(never.state).toBe('stopped')
  })

  it('keeps the whole output in its buffer: read, readTail and clearBuffer', async () => {
    const t = await shell()
    await t.execute('echo one; echo two; echo three')
    expect(t.read()).toContain('three')
    const tail = t.readTail(2)
    expect(tail).toContain('three')
    expect(tail).not.toContain('two')
    t.clearBuffer()
    expect(t.read()).toBe('')
    expect((await t.execute('echo four')).text).toBe('four')
    expect(t.read()).not.toContain('three')
    expect(t.read()).toContain('four')
  })

  it('keeps the newest maxBufferChars characters of a long answer, and says it is not whole', async () => {
    const t = openPty(pty('sh', BASH), { maxBufferChars: 2000 })
    opened.push(t)
    await t.start()
    const long = await t.execute('seq 1 5000')
    expect(long.raw.length).toBeLessThanOrEqual(2000)
    expect(long.isComplete).toBe(false)
    // the newest lines, up to the prompt: consecutive numbers ending at 5000
    const lines = long.text.split('\n').slice(1).map(Number)
    expect(lines.length).toBeGreaterThan(100)
    expect(lines).toEqual(lines.map((_, i) => 5001 - lines.length + i))
    expect(t.read().length).toBeLessThanOrEqual(2000)
    const short = await t.execute('echo hi')
    expect([short.text, short.isComplete]).toEqual(['hi', true])
  })

  it('writes raw data with write, no newline added', async () => {
    const t = await shell()
    await t.write('echo raw')
    const r = await t.execute('')
    expect(r.text.split('\n').at(-1)).toBe('raw')
  })

  it('resets: a new process with an empty buffer', async () => {
    const t = await shell()
    await t.execute('X=1; echo set')
    const before = t.pid
    await t.reset()
    expect(t.pid).not.toBe(before)
    expect(t.read()).not.toContain('set')
    expect((await t.execute('echo "x=$X"')).text).toBe('x=')
  })

  it('rejects start with TerminalExited when the program cannot run', async () => {
    for (const options of [
      { command: 'no-such-command-nerve' },
      { ...BASH, cwd: '/no/such/dir' },
    ]) {
      const t = openPty(pty('bad', options))
      opened.push(t)
      const e = await rejection(t.start())
      expect(e).toBeInstanceOf(TerminalExited)
      expect(t.state).toBe('stopped')
    }
  })

  it('rejects an execute before start with a UsageError', async () => {
    const t = openPty(pty('early', BASH))
    expect(await rejection(t.execute('echo'))).toBeInstanceOf(UsageError)
  })
})

describe('stopping a PTY terminal', () => {
  /** The pids of the terminal's session besides the shell, once `count` of them run. */
  const jobsOf = (t: PtyTerminal, count: number): Promise<number[]> =>
    eventually(`${count} jobs`, () => {
      const pids = sessionMembers(t.pid!)
        .map((s) => s.pid)
        .filter((pid) => pid !== t.pid)
      return pids.length >= count ? pids : undefined
    })

  it('ends a foreground job that ignores SIGHUP and SIGTERM', async () => {
    const t = await shell()
    const pending = rejection(t.execute(`sh -c "trap '' HUP TERM; sleep 30"`))
    const pids = [t.pid!, ...(await jobsOf(t, 2))]
    await t.stop()
    expect(pids.filter(alive)).toEqual([])
    expect(await pending).toBeInstanceOf(TerminalExited)
  })

  it('ends a background job that ignores SIGHUP and SIGTERM', async () => {
    const t = await shell()
    await t.execute(`sh -c "trap '' HUP TERM; sleep 30" &`)
    const pids = [t.pid!, ...(await jobsOf(t, 2))]
    const started = Date.now()
    await t.stop()
    expect(pids.filter(alive)).toEqual([])
    // SIGKILL came after the grace (500 ms here), not at once
    expect(Date.now() - started).toBeGreaterThanOrEqual(450)
  })

  it('ends a nohup job that job control put in a process group of its own', async () => {
    const t = await shell()
    await t.execute('nohup sleep 30 > /dev/null 2>&1 &')
    const [job] = await jobsOf(t, 1)
    expect(groupOf(job!)).not.toBe(groupOf(t.pid!))
    await t.stop()
    expect([t.pid!, job!].filter(alive)).toEqual([])
  })

  it('ends a daemon that left the session and its parent (setsid, double fork)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nerve-pty-stop-'))
    try {
      const t = await shell({ cwd: dir })
      await t.execute(`( setsid sh -c 'echo $$ > daemon.pid; exec sleep 30' & ) &`)
      const daemon = await eventually('the daemon', () => {
        try {
          const pid = Number(readFileSync(join(dir, 'daemon.pid'), 'utf8'))
          return pid > 0 && alive(pid) ? pid : undefined
        } catch {
          return undefined
        }
      })
      expect(sessionOf(daemon)).not.toBe(t.pid)
      await t.stop()
      expect(alive(daemon)).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('ends without waiting out the grace when everything leaves on SIGHUP and SIGTERM', async () => {
    const t = openPty(pty('polite', BASH), { killGraceMs: 10_000 })
    opened.push(t)
    await t.start()
    await t.execute('sleep 30 &')
    const pids = [t.pid!, ...(await jobsOf(t, 1))]
    const started = Date.now()
    await t.stop()
    expect(pids.filter(alive)).toEqual([])
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('leaves alone what it did not start', async () => {
    const other = await shell({}, 'other')
    await other.execute('sleep 30 &')
    const [job] = await jobsOf(other, 1)
    const t = await shell()
    await t.stop()
    expect(alive(other.pid!)).toBe(true)
    expect(alive(job!)).toBe(true)
  })
})

describe('a PTY terminal running python3 -i', () => {
  it('waits for the >>> prompt and answers with the printed value', async () => {
    const t = openPty(pty('py', { command: 'python3', args: ['-i', '-q'] }))
    opened.push(t)
    await t.start()
    expect((await t.execute('print(6 * 7)')).text).toBe('42')
  })
})

describe('the pty interpreter', () => {
  const ctx = (input: unknown, live?: unknown, parser?: string): NodeContext =>
    ({
      input,
      signal: new AbortController().signal,
      ...(live === undefined ? {} : { live }),
      ...(parser === undefined ? {} : { parser }),
    }) as never
  const lifecycle = { signal: new AbortController().signal, session: nodeRegistry() }

  it('starts a terminal and answers it as the handle; executes on the handle keep its state; stop ends it', async () => {
    const ptys = ptyInterpreter()
    const node = pty('kept', BASH)
    const terminal = await ptys.start(node, lifecycle)
    stops.push(() => terminal.stop())
    expect(terminal.state).toBe('ready')
    await ptys.execute!(node, ctx('Y=5', terminal))
    const r = (await ptys.execute!(node, ctx('echo $Y', terminal, 'none'))) as ParsedResponse
    expect(r.text).toBe('5')
    await ptys.stop(node, { ...lifecycle, live: terminal })
    expect(terminal.state).toBe('stopped')
  })

  it('keeps no terminal: an execute given no handle runs on a terminal of its own, stopped after it', async () => {
    const ptys = ptyInterpreter()
    const node = pty('once', BASH)
    const first = (await ptys.execute!(node, ctx('echo $$'))) as ParsedResponse
    const second = (await ptys.execute!(node, ctx('echo $$'))) as ParsedResponse
    expect(first.text).not.toBe(second.text)
    expect(alive(Number(first.text))).toBe(false)
  })

  it('rejects a step input that is not a string with a UsageError', async () => {
    const ptys = ptyInterpreter()
    expect(
      await rejection(ptys.execute!(pty('n', BASH), ctx(42)) as Promise<unknown>),
    ).toBeInstanceOf(UsageError)
  })

  it('forks into a node that respawns the same command, cwd and env, and starts nothing itself', async () => {
    const ptys = ptyInterpreter({ clock: { now: () => Date.UTC(2025, 0, 1) } })
    const node = pty('orig', { ...BASH, cwd: tmpdir(), env: { ...BASH.env, WHO: 'fork' } })
    const source = await ptys.start(node, lifecycle)
    stops.push(() => source.stop())
    await ptys.execute!(node, ctx('echo original-output', source))
    const copy: PtyNode = await ptys.fork(node, 'copy', { ...lifecycle, live: source })
    expect(copy.metadata).toEqual({ forked_from: 'orig', fork_time: '2025-01-01T00:00:00.000Z' })
    expect([copy.command, copy.cwd, copy.env]).toEqual([node.command, node.cwd, node.env])
    const terminal = await ptys.start(copy, lifecycle)
    stops.push(() => terminal.stop())
    expect(terminal.read()).not.toContain('original-output')
    const r = (await ptys.execute!(copy, ctx('echo "$WHO $PWD"', terminal))) as ParsedResponse
    expect(r.text).toBe(`fork ${tmpdir()}`)
  })

  it('runs in a graph with no session on one terminal the run starts for its steps (concurrent first uses too) and stops when it ends', async () => {
    const ptys = ptyInterpreter()
    const sh = pty('shared', BASH)
    const g = pipe(
      graph('g'),
      addStep({ id: 'a', node: sh, input: 'echo a; echo $$' }),
      addStep({ id: 'b', node: sh, input: 'echo b; echo $$' }),
    )
    const { results } = await run(g, {
      interpreters: interpreters(...defaultInterpreters.values(), ptys),
    })
    const [a, b] = [results.a, results.b].map((r) => (r as ParsedResponse).text.split('\n'))
    expect([a![0], b![0]].sort()).toEqual(['a', 'b'])
    expect(a![1]).toBe(b![1])
    expect(alive(Number(a![1]))).toBe(false)
  })

  it('runs as a graph step, its output streamed as step_chunk events', async () => {
    const ptys = ptyInterpreter()
    const sh = pty('sh', BASH)
    const g = pipe(
      graph('g'),
      addStep({ id: 'first', node: sh, input: 'echo one' }),
      addStep({ id: 'second', node: sh, input: 'echo two', dependsOn: ['first'] }),
    )
    const events: RunEvent[] = []
    const { results } = await run(g, {
      interpreters: interpreters(...defaultInterpreters.values(), ptys),
      onEvent: (e) => events.push(e),
    })
    expect((results.first as ParsedResponse).text).toBe('one')
    expect((results.second as ParsedResponse).text).toBe('two')
    const chunks = events.flatMap((e) =>
      e.type === 'step_chunk' && e.stepId === 'second' ? [e.chunk as string] : [],
    )
    expect(chunks.join('')).toContain('two')
  })
})
