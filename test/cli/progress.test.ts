/**
 * `nerve graph run` as a person sees it: the built executable in a real tmux
 * pane, its screen captured at points of the run.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bin, ensureBuilt, gateGraph, root } from './run.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-progress-'))
const socket = join(dir, 'tmux.sock')
const tmux = (...args: string[]): string =>
  execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' })

const screen = (pane: string): string => tmux('capture-pane', '-p', '-t', pane)

/** Waits until the pane's screen satisfies `ok`, returning that screen. */
const waitFor = async (pane: string, ok: (s: string) => boolean, ms = 30_000): Promise<string> => {
  const until = Date.now() + ms
  for (;;) {
    const s = screen(pane)
    if (ok(s)) return s
    if (Date.now() > until) throw new Error(`screen never matched:\n${s}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

let panes = 0
/** Starts `nerve graph run FILE` in a new 100×30 tmux session; the shell prints EXIT=code after. */
const start = (file: string): { pane: string; exit: string } => {
  const pane = `run${++panes}`
  const exit = join(dir, `${pane}.exit`)
  const cmd = `trap : INT; cd ${root} && node ${bin} graph run ${file}; echo EXIT=$? > ${exit}; sleep 60`
  tmux('new-session', '-d', '-s', pane, '-x', '100', '-y', '30', cmd)
  return { pane, exit }
}

const exitCode = async (file: string): Promise<number> => {
  const until = Date.now() + 30_000
  for (;;) {
    try {
      const m = /EXIT=(\d+)/.exec(readFileSync(file, 'utf8'))
      if (m) return Number(m[1])
    } catch {
      // not written yet
    }
    if (Date.now() > until) throw new Error('the command did not exit')
    await new Promise((r) => setTimeout(r, 100))
  }
}

beforeAll(() => {
  ensureBuilt()
}, 180_000)

afterAll(() => {
  try {
    tmux('kill-server')
  } catch {
    // no server left
  }
  rmSync(dir, { recursive: true, force: true })
})

const graphFile = (name: string, graph: unknown): string => {
  const file = join(dir, `${name}.json`)
  writeFileSync(file, JSON.stringify(graph))
  return file
}

describe('graph run on a terminal', () => {
  it('draws running, retrying, done, nested and failed rows and ends with the state line', async () => {
    const flag = join(dir, 'flaky')
    const file = graphFile('tree', {
      id: 'tree',
      nodes: {
        sh: { kind: 'bash' },
        inner: {
          kind: 'graph',
          steps: [{ id: 'deep', node: 'sh', input: 'echo deep' }],
        },
      },
      steps: [
        { id: 'quick', node: 'sh', input: 'echo quick' },
        { id: 'slow', node: 'sh', input: 'sleep 2.5; echo slow' },
        { id: 'nested', node: 'inner' },
        {
          id: 'flaky',
          node: 'sh',
          input: `test -f ${flag} || { touch ${flag}; sleep 1; exit 1; }; sleep 1.5; echo ok`,
          onError: { type: 'retry', count: 2, delayMs: 0 },
        },
        { id: 'broken', node: 'sh', input: 'exit 7', dependsOn: ['slow', 'flaky'] },
      ],
    })
    const { pane, exit } = start(file)

    const during = await waitFor(pane, (s) => /attempt 2 of 3/.test(s))
    expect(during).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] slow {2}\d/m) // a spinner and the elapsed time
    expect(during).toMatch(/^↻ flaky {2}[\d.]+ m?s, attempt 2 of 3$/m)
    expect(during).toMatch(/^✔ quick {2}\d+ ms$/m)

    // no step used a model: the state line names no tokens and no cost
    const end = await waitFor(pane, (s) => /^failed$/m.test(s))
    expect(end).toMatch(/^✔ slow {2}[\d.]+ s$/m)
    expect(end).toMatch(/^✔ nested {2}\d/m)
    expect(end).toMatch(/^ {2}✔ deep {2}\d+ ms$/m) // the nested graph's step, indented
    expect(end).toMatch(/^✔ flaky {2}[\d.]+ s$/m)
    expect(end).toMatch(/^✖ broken {2}\S.*7/m) // the error's first line names the exit code
    // what the steps printed, and the retry, stay on the screen under the tree, as piped
    expect(end).toMatch(/^ {2}quick │ quick$/m)
    expect(end).toMatch(/^ {2}slow │ slow$/m)
    expect(end).toMatch(/^↻ flaky failed, retrying: .*1/m)
    expect(end).toMatch(/^ {2}flaky │ ok$/m)
    expect(end.includes(`${String.fromCharCode(27)}[`)).toBe(false) // no stray escape codes
    expect(await exitCode(exit)).toBe(1)
  }, 60_000)

  it('cancels on Ctrl-C: running steps stop, finished ones are shown, exit code 8 (cancelled)', async () => {
    const file = graphFile('long', {
      id: 'long',
      nodes: { sh: { kind: 'bash' } },
      steps: [
        { id: 'first', node: 'sh', input: 'echo first' },
        { id: 'forever', node: 'sh', input: 'sleep 30; echo never', dependsOn: ['first'] },
      ],
    })
    const { pane, exit } = start(file)
    await waitFor(pane, (s) => /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] forever {2}[\d.]+ s$/m.test(s)) // running for a second
    const sent = Date.now()
    tmux('send-keys', '-t', pane, 'C-c')
    const end = await waitFor(pane, (s) => /^cancelled$/m.test(s), 15_000).catch((e: unknown) => {
      throw new Error(`${String(e)} ${readFileSync(exit, 'utf8')}`)
    })
    expect(Date.now() - sent).toBeLessThan(10_000) // the sleep saw the abort; it did not run out
    expect(end).toMatch(/^✔ first {2}\d+ ms$/m)
    expect(end).toMatch(/^■ forever {2}cancelled after [\d.]+ m?s$/m)
    expect(await exitCode(exit)).toBe(8)
  }, 60_000)

  it('asks on the terminal for an approval gate of the run, and goes on once answered', async () => {
    const file = graphFile('gate', gateGraph)
    const { pane, exit } = start(file)
    const asked = await waitFor(pane, (s) => /answer here: y \(approve\) or n \(deny\)/.test(s))
    expect(asked).toMatch(/^approve\? approval-\d+ {2}\S+\/gate wants ship: v1\.2$/m)
    expect(asked).not.toMatch(/nerve approve/) // no command that cannot reach this run
    tmux('send-keys', '-t', pane, 'maybe', 'Enter')
    await waitFor(pane, (s) => /^ {2}y or n\?\s*$/m.test(s))
    tmux('send-keys', '-t', pane, 'y', 'Enter')
    const end = await waitFor(pane, (s) => /^completed$/m.test(s))
    expect(end).toMatch(/^✔ ship {2}\d+ ms$/m)
    expect(end).toMatch(/^ {2}ship │ shipped$/m)
    expect(await exitCode(exit)).toBe(0)
  }, 60_000)
})
