/**
 * PTY terminal benchmarks (issue 4), each against raw node-pty driving the
 * same `bash --norc --noprofile` (prompt `$ `) in the same run:
 *
 * - `pty.roundtrip`: `echo hi` through `execute` with the none parser (ready
 *   detection, quiet window, parsing) against writing `echo hi\r` to node-pty
 *   and waiting for the output to end with the prompt. Target: median ≤ 2 ms
 *   and ≤ 6× raw.
 * - `pty.throughput`: 50 MB (`head -c 37500000 /dev/zero | base64 -w0`)
 *   streamed through `executeStream` against node-pty's own data events, in
 *   MB/s (higher is better). Neither holds the flood: the raw loop keeps the
 *   last 64 characters, our terminal the newest 64 K (`maxBufferChars`), as
 *   a reader streaming a flood would. Target: ≥ 80% of raw.
 * - `pty.throughput.whole`: the same with the whole 50 MB kept for the answer
 *   (`maxBufferChars` 64 Mi), which costs the memory it fills: no target.
 * - `pty.spawn`: `start()` to ready (first prompt, then the quiet window)
 *   against spawning with node-pty and waiting for the first prompt.
 */
import * as nodePty from 'node-pty'
import { pty } from '../src/index.js'
import { openPty, type PtyTerminal } from '../src/interpreters/index.js'
import { interleaveAsync, type Benchmark, type Result } from './harness.js'

const BASH = {
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ', PROMPT_COMMAND: '' },
} as const

const MB = 50
const FLOOD = `head -c ${(MB * 1e6 * 3) / 4} /dev/zero | base64 -w0; echo`

const now = (): number => performance.now()

/** A raw node-pty bash: write, then wait until the output after the write ends with the prompt. */
class RawBash {
  private readonly proc: nodePty.IPty
  private received = 0
  private text = ''
  private waiting: (() => void) | undefined
  private readonly exited: Promise<void>

  constructor() {
    const env: Record<string, string | undefined> = { ...process.env, ...BASH.env, SHLVL: '1' }
    this.proc = nodePty.spawn(BASH.command, [...BASH.args], {
      name: 'xterm-256color',
      cols: 120,
      rows: 40,
      cwd: process.cwd(),
      env,
    })
    this.exited = new Promise((resolve) => {
      this.proc.onExit(() => {
        resolve()
      })
    })
    this.proc.onData((chunk) => {
      this.received += chunk.length
      // Keep only a short tail: the prompt is all we look for.
      this.text = (this.text + chunk).slice(-64)
      if (this.waiting !== undefined && this.text.endsWith('$ ') && this.text.includes('\n')) {
        const w = this.waiting
        this.waiting = undefined
        w()
      }
    })
  }

  /** Resolves at the first prompt. */
  ready(): Promise<void> {
    return new Promise((resolve) => {
      if (this.text.endsWith('$ ')) resolve()
      else {
        this.text = '\n' + this.text
        this.waiting = resolve
      }
    })
  }

  /** Writes a command; resolves with the characters received until the prompt came back. */
  roundTrip(command: string): Promise<number> {
    this.text = ''
    const start = this.received
    return new Promise((resolve) => {
      this.waiting = () => {
        resolve(this.received - start)
      }
      this.proc.write(`${command}\r`)
    })
  }

  /** `SIGHUP`, and `SIGKILL` if bash is still there 200 ms later (a just-started bash may miss the first). */
  async stop(): Promise<void> {
    process.kill(-this.proc.pid, 'SIGHUP')
    const timer = setTimeout(() => {
      process.kill(-this.proc.pid, 'SIGKILL')
    }, 200)
    await this.exited
    clearTimeout(timer)
  }
}

const openShell = async (maxBufferChars?: number): Promise<PtyTerminal> => {
  const t = openPty(
    pty('bench', { ...BASH, args: [...BASH.args], env: { ...BASH.env } }),
    maxBufferChars === undefined ? {} : { maxBufferChars },
  )
  await t.start()
  return t
}

const roundtrip: Benchmark = {
  name: 'pty.roundtrip',
  async run({ rounds }): Promise<readonly Result[]> {
    const ours = await openShell()
    const raw = new RawBash()
    await raw.ready()
    try {
      const { ours: o, baseline: b } = await interleaveAsync({
        rounds: rounds ?? 400,
        warmup: 50,
        ours: async () => {
          const t0 = now()
          const r = await ours.execute('echo hi')
          const ms = now() - t0
          if (r.text !== 'hi') throw new Error(`pty.roundtrip: got ${JSON.stringify(r.text)}`)
          ours.clearBuffer()
          return { ms }
        },
        baseline: async () => {
          const t0 = now()
          await raw.roundTrip('echo hi')
          return { ms: now() - t0 }
        },
      })
      return [
        {
          name: 'pty.roundtrip',
          unit: 'ms',
          median: o.ms,
          baseline: 'raw node-pty write → prompt',
          baselineMedian: b.ms,
          target: { median: 2, ratio: 6 },
        },
      ]
    } finally {
      await Promise.all([ours.stop(), raw.stop()])
    }
  },
}

/** The flood streamed by a terminal keeping `keep` characters, against raw node-pty. */
const throughput = (name: string, keep: number, target?: Result['target']): Benchmark => ({
  name,
  async run({ rounds }): Promise<readonly Result[]> {
    const ours = await openShell(keep)
    const raw = new RawBash()
    await raw.ready()
    try {
      const { ours: o, baseline: b } = await interleaveAsync({
        rounds: rounds ?? 5,
        warmup: 1,
        ours: async () => {
          const t0 = now()
          let chars = 0
          const it = ours.executeStream(FLOOD)[Symbol.asyncIterator]()
          let step = await it.next()
          while (step.done !== true) {
            chars += step.value.length
            step = await it.next()
          }
          const s = (now() - t0) / 1e3
          const kept = step.value.text
          if (chars < MB * 1e6 || kept.length < Math.min(keep, MB * 1e6) - 1000) {
            throw new Error(`${name}: streamed ${chars} characters, kept ${kept.length}`)
          }
          ours.clearBuffer()
          return { mbps: MB / s }
        },
        baseline: async () => {
          const t0 = now()
          const chars = await raw.roundTrip(FLOOD)
          const s = (now() - t0) / 1e3
          if (chars < MB * 1e6) throw new Error(`${name} raw: got ${chars} characters`)
          return { mbps: MB / s }
        },
      })
      return [
        {
          name,
          unit: 'MB/s',
          median: o.mbps,
          baseline: 'raw node-pty data events',
          baselineMedian: b.mbps,
          ...(target === undefined ? {} : { target }),
        },
      ]
    } finally {
      await Promise.all([ours.stop(), raw.stop()])
    }
  },
})

const spawn: Benchmark = {
  name: 'pty.spawn',
  async run({ rounds }): Promise<readonly Result[]> {
    const { ours: o, baseline: b } = await interleaveAsync({
      rounds: rounds ?? 30,
      warmup: 3,
      ours: async () => {
        const t0 = now()
        const t = await openShell()
        const ms = now() - t0
        await t.stop()
        return { ms }
      },
      baseline: async () => {
        const t0 = now()
        const raw = new RawBash()
        await raw.ready()
        const ms = now() - t0
        await raw.stop()
        return { ms }
      },
    })
    return [
      {
        name: 'pty.spawn',
        unit: 'ms',
        median: o.ms,
        baseline: 'raw node-pty spawn → first prompt',
        baselineMedian: b.ms,
      },
    ]
  },
}

export const benchmarks: readonly Benchmark[] = [
  roundtrip,
  throughput('pty.throughput', 64 * 1024, { minRatio: 0.8 }),
  throughput('pty.throughput.whole', 64 * 1024 * 1024),
  spawn,
]
