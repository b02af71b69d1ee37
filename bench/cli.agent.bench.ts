/**
 * A real CLI agent through Nerve (issue 23):
 *
 * - `cli.agent.turn`: a one-line answer from a scripted model through the
 *   real Claude Code (the pinned devDependency) in a PTY node, through the
 *   model proxy: `execute('ping N')` until the parsed answer (see
 *   `answerTo`) —
 *   against the same program, home, proxy and model driven by a bare
 *   node-pty script that types the prompt, sends Enter once the program
 *   answered the keys, and stops when the answer shows in the raw output. Target:
 *   ratio ≤ 1.2.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as nodePty from 'node-pty'
import { claudeWezterm } from '../src/index.js'
import { nodeRegistry } from '../src/core.js'
import {
  anthropicMessages,
  claudeBinary,
  claudeEnv,
  type ClaudePtyTerminal,
  claudeWeztermInterpreter,
  type ModelRequest,
  prepareClaudeHome,
  startModelProxy,
} from '../src/interpreters/index.js'
import { scriptedProvider } from '../src/testing/index.js'
import { interleaveAsync, type Benchmark, type Result } from './harness.js'

const now = (): number => performance.now()

/**
 * The answer to `ping N`: one letter (by N) eight times. Claude Code draws
 * only the cells that changed, and each turn's answer lands where the last
 * one stood: answers of consecutive turns share no cell, so the bare
 * script finds the whole of each in the raw output.
 */
const answerTo = (n: number): string => 'abcdefghijklmnopqrstuvwxyz'[n % 26]!.repeat(8)

const answer = (request: ModelRequest): string => {
  const last = request.messages.at(-1)
  const text =
    last === undefined
      ? ''
      : typeof last.content === 'string'
        ? last.content
        : last.content.map((b) => (b.type === 'text' ? b.text : '')).join(' ')
  const n = /ping (\d+)/.exec(text)?.[1]
  return n === undefined ? '?' : answerTo(Number(n))
}

/** Bare node-pty running claude: type, Enter once echoed, wait for the answer in the raw output. */
class RawClaude {
  private readonly proc: nodePty.IPty
  private text = ''
  private onData: (() => void) | undefined

  constructor(cwd: string, env: Readonly<Record<string, string>>) {
    this.proc = nodePty.spawn(claudeBinary(), ['--permission-mode', 'default'], {
      name: 'xterm-256color',
      cols: 120,
      rows: 40,
      cwd,
      env: { ...process.env, ...env },
    })
    this.proc.onData((chunk) => {
      this.text = (this.text + chunk).slice(-16_384)
      this.onData?.()
    })
  }

  private until(test: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.onData = undefined
        reject(
          new Error(
            `cli.agent.turn: the bare claude stalled; its output: ${this.text.slice(-400)}`,
          ),
        )
      }, 60_000)
      const check = (): void => {
        if (!test()) return
        clearTimeout(timer)
        this.onData = undefined
        resolve()
      }
      this.onData = check
      check()
    })
  }

  /**
   * Whether `word` shows in the raw output, escape sequences and blanks
   * left out: it draws only the cells that changed, moving the cursor over
   * the others (a blank between two words is a cursor move, not a space).
   */
  private seen(word: string): boolean {
    // eslint-disable-next-line no-control-regex
    return this.text.replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\s/g, '').includes(word)
  }

  ready(): Promise<void> {
    return this.until(() => this.text.includes('for shortcuts'))
  }

  async turn(n: number): Promise<void> {
    this.text = ''
    this.proc.write(`ping ${n}`)
    await this.until(() => this.seen(`ping${n}`))
    this.text = ''
    this.proc.write('\r')
    await this.until(() => this.seen(answerTo(n)))
  }

  stop(): void {
    this.proc.kill()
  }
}

const turn: Benchmark = {
  name: 'cli.agent.turn',
  async run({ rounds }): Promise<readonly Result[]> {
    const model = scriptedProvider([(request) => answer(request)], { loop: true })
    const proxy = await startModelProxy({
      protocols: [anthropicMessages],
      upstream: { _tag: 'provider', provider: model },
    })
    const project = mkdtempSync(join(tmpdir(), 'nerve-bench-claude-'))
    const home = mkdtempSync(join(tmpdir(), 'nerve-bench-home-'))
    const rawHome = mkdtempSync(join(tmpdir(), 'nerve-bench-raw-home-'))
    const interpreter = claudeWeztermInterpreter({ backend: 'pty', proxy, home, killGraceMs: 500 })
    const lifecycle = { signal: new AbortController().signal, session: nodeRegistry() }
    const node = claudeWezterm('bench', { cwd: project, timeoutMs: 60_000 })
    await prepareClaudeHome({ home: rawHome, projects: [project], apiKey: proxy.key('raw') })
    const raw = new RawClaude(
      project,
      claudeEnv({ home: rawHome, baseUrl: proxy.baseUrl('raw'), apiKey: proxy.key('raw') }),
    )
    let ours: ClaudePtyTerminal | undefined
    try {
      const [started] = await Promise.all([interpreter.start(node, lifecycle), raw.ready()])
      ours = started as ClaudePtyTerminal
      const terminal = ours
      let n = 0
      const { ours: o, baseline: b } = await interleaveAsync({
        rounds: rounds ?? 20,
        warmup: 2,
        ours: async () => {
          const i = ++n
          const t0 = now()
          const r = await terminal.execute(`ping ${i}`)
          const ms = now() - t0
          if (r.text !== answerTo(i))
            throw new Error(`cli.agent.turn: got ${JSON.stringify(r.text)}`)
          return { ms }
        },
        baseline: async () => {
          const i = ++n
          const t0 = now()
          await raw.turn(i)
          const ms = now() - t0
          // Outside the timing: let it come back to its prompt (its idle screen never goes quiet).
          await new Promise((resolve) => setTimeout(resolve, 300))
          return { ms }
        },
      })
      return [
        {
          name: 'cli.agent.turn',
          unit: 'ms',
          median: o.ms,
          baseline: 'bare node-pty claude, answer seen in the raw output',
          baselineMedian: b.ms,
          target: { ratio: 1.2 },
        },
      ]
    } finally {
      raw.stop()
      await ours?.stop()
      await proxy.close()
      for (const d of [project, home, rawHome]) rmSync(d, { recursive: true, force: true })
    }
  },
}

export const benchmarks: readonly Benchmark[] = [turn]
