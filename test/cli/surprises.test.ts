/**
 * The command line never surprises: each case is what a new user typed, run
 * through the built `nerve` in real processes, pipes, pseudo-terminals and
 * tmux.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { delimiter, join } from 'node:path'
import { spawn } from 'node-pty'
import { describe, expect, it } from 'vitest'
import { exitingTerminalGraph } from '../interpreters/terminal/processes.js'
import { bin, nerve, root, testDaemon } from './run.js'

const { dir, home, env } = testDaemon('surprises')
const FAN_OUT = join(root, 'examples/fan-out.json')

/** Runs a shell pipeline (`$NERVE` is the built executable) and answers its stdout, stderr and code. */
const sh = (script: string): { code: number | null; stdout: string; stderr: string } => {
  const r = spawnSync('sh', ['-c', script], {
    cwd: root,
    env: { ...process.env, ...env, NERVE: `${process.execPath} ${bin}` },
    encoding: 'utf8',
    timeout: 60_000,
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('the REPL on a pipe', () => {
  it('reads lines that arrive while it connects, and leaves at :quit', async () => {
    const r = await nerve(['server', 'repl'], env, ':create sh bash\n:nodes\n:quit\n')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/Created bash node @sh/)
    expect(r.stdout).toMatch(/@sh {2}bash {2}\w+/)
  })

  it('leaves at the end of its input (< /dev/null)', async () => {
    const r = await nerve(['server', 'repl'], env, '')
    expect(r.code, r.stderr).toBe(0)
  })

  it('prints a skipped step as one line, not a failure then a success', async () => {
    const r = await nerve(['repl'], env, `:graph load ${FAN_OUT}\n:graph run\n`)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/↷ optional skipped: bash node "sh": the command exited with code 3/)
    expect(r.stdout).not.toMatch(/failed\s+optional|✖ optional|done\s+optional/)
  })
})

describe('graph run off a terminal', () => {
  it('ends quietly when the reader closes the pipe (| head -1)', () => {
    const r = sh(`$NERVE graph run ${FAN_OUT} --json | head -1`)
    expect(r.code).toBe(0)
    expect(r.stdout.trim().split('\n')).toHaveLength(1)
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'GRAPH_STARTED' })
    expect(r.stderr).toBe('')
  })

  it('prints human lines without --json: steps, their output, the summary; no JSON', () => {
    const r = sh(`$NERVE graph run ${FAN_OUT} | cat`)
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines.some((l) => /^✔ prepare done \(\d+ ms\)$/.test(l))).toBe(true)
    expect(lines).toContain('  join │ joined')
    expect(lines).toContain('↷ optional skipped: bash node "sh": the command exited with code 3')
    expect(r.stdout).toMatch(/^run \S+ completed$/m)
    expect(lines.some((l) => l.startsWith('{'))).toBe(false)
  })
})

describe('graph run tells a respawned terminal', () => {
  it('prints a line when a later step starts again a terminal whose program exited', () => {
    const file = join(dir, 'exits.json')
    writeFileSync(file, JSON.stringify(exitingTerminalGraph))
    const r = sh(`$NERVE graph run ${file} | cat`)
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toContain('⟳ after: sh had exited, started again')
    expect(lines.indexOf('▸ after')).toBeLessThan(
      lines.indexOf('⟳ after: sh had exited, started again'),
    )
  })
})

describe('the live tree', () => {
  it('draws in a pty that reports no size', async () => {
    const term = spawn(
      'sh',
      ['-c', `stty cols 0 rows 0; exec "${process.execPath}" "${bin}" graph run "${FAN_OUT}"`],
      {
        cols: 100,
        rows: 40,
        cwd: root,
        env: { ...process.env, ...env },
      },
    )
    let out = ''
    term.onData((d) => (out += d))
    const code = await new Promise<number>((resolve) =>
      term.onExit(({ exitCode }) => {
        resolve(exitCode)
      }),
    )
    expect(code).toBe(0)
    expect(out).toMatch(/✔ join/)
    expect(out).toMatch(/^completed\r?$/m) // no model used: no tokens, no cost
  })

  it('keeps the step outputs under the tree when the run ends (the screen, read by tmux)', async () => {
    const session = `nerve-tree-${process.pid}`
    const done = join(dir, 'tree-done')
    execFileSync('tmux', [
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '120',
      '-y',
      '40',
      `env NERVE_HOME='${home}' '${process.execPath}' '${bin}' graph run '${FAN_OUT}'; touch '${done}'; sleep 30`,
    ])
    try {
      for (let i = 0; i < 200 && !existsSync(done); i++) await new Promise((r) => setTimeout(r, 50))
      expect(existsSync(done)).toBe(true)
      const screen = execFileSync('tmux', ['capture-pane', '-p', '-t', session], {
        encoding: 'utf8',
      })
      const lines = screen.split('\n').map((l) => l.trimEnd())
      const tail = lines.slice(lines.findIndex((l) => l.startsWith('✔ join')))
      expect(tail.some((l) => /^ {2}join │ joined$/.test(l))).toBe(true)
      expect(tail).toContain('completed')
    } finally {
      spawnSync('tmux', ['kill-session', '-t', session])
    }
  })
})

describe('server start --detach', () => {
  it('says in one line that the socket is taken, before opening any store', async () => {
    const r = await nerve(['server', 'start', '--detach', '--store', '/nonexistent/dir/x.db'], env)
    expect(r.code).toBe(4)
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: SocketInUse at \S+nerve\.sock: a daemon is already listening/),
    ])
  })

  it('says in one line that the port is taken, not "see nerve.log"', async () => {
    const taken: Server = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as { port: number }).port
    try {
      const other = { ...env, NERVE_HOME: join(dir, 'other') }
      const r = await nerve(['server', 'start', '--detach', '--http', `127.0.0.1:${port}`], other)
      expect(r.code).toBe(4)
      const lines = r.stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^error: \w+/)
      expect(lines[0]).toMatch(new RegExp(`${port}`))
      expect(lines[0]).toMatch(/in use|EADDRINUSE/i)
      expect(lines[0]).not.toMatch(/see .*nerve\.log/)
    } finally {
      taken.close()
    }
  })
})

describe('--json covers errors', () => {
  const errorOf = (stdout: string): { tag: string; message: string; path?: string } => {
    const lines = stdout.trim().split('\n')
    expect(lines).toHaveLength(1)
    return (JSON.parse(lines[0]!) as { error: { tag: string; message: string; path?: string } })
      .error
  }

  it('prints one JSON error value on stdout, for a daemon that is not there', async () => {
    const r = await nerve(['node', 'list', '--json'], { ...env, NERVE_HOME: join(dir, 'nobody') })
    expect(r.code).toBe(6) // unavailable
    expect(r.stderr).toBe('')
    expect(errorOf(r.stdout)).toMatchObject({
      tag: 'DaemonNotRunning',
      path: join(dir, 'nobody', 'nerve.sock'),
    })
  })

  it('for a file that is not there, and for a usage error', async () => {
    const missing = await nerve(['graph', 'run', 'missing.json', '--json'], env)
    expect(missing.code).toBe(3) // not found
    expect(errorOf(missing.stdout)).toMatchObject({ tag: 'FileUnreadable' })
    const usage = await nerve(['node', 'create', 'x', '--json'], env)
    expect(usage.code).toBe(2)
    expect(errorOf(usage.stdout)).toMatchObject({ tag: 'UsageError' })
    expect(errorOf(usage.stdout).message).toMatch(/--kind/)
  })
})

describe('node create without WezTerm', () => {
  // a PATH without any wezterm on it
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => !existsSync(join(d, 'wezterm')))
    .join(delimiter)

  it('runs a claude node in a terminal Nerve owns, and the kinds say so', async () => {
    const r = await nerve(['node', 'create', 'cl', '--kind', 'claude'], { ...env, PATH: path })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Created claude-wezterm node 'cl' \(ready\)/)
    expect((await nerve(['node', 'stop', 'cl'], env)).code).toBe(0)
    const help = await nerve(['node', 'create', '--help'])
    expect(help.stdout).toMatch(/Choosing a kind: `nerve node kinds`/)
    const kinds = await nerve(['node', 'kinds'], env)
    expect(kinds.stdout).toMatch(
      /^claude-wezterm \(also: claude, claude-code\)\n {2}Claude Code, unattended: in a WezTerm pane when WezTerm is installed, else in a pseudo-terminal Nerve owns$/m,
    )
  })

  it('says WeztermMissing for a wezterm node, and how to run the program instead', async () => {
    const r = await nerve(['node', 'create', 'w', '--kind', 'wezterm'], { ...env, PATH: path })
    expect(r.code).toBe(6) // unavailable
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: WeztermMissing at --kind: .*--kind tmux --set command=bash/),
    ])
  })
})

describe('smaller things', () => {
  it('refuses to send to a network that has finished', async () => {
    const ran = await nerve(
      [
        'network',
        'run',
        join(root, 'examples/review.network.json'),
        '--server',
        '--send',
        'writer=hi',
        '--root',
        dir,
      ],
      env,
    )
    expect(ran.code, ran.stderr).toBe(0)
    const sent = await nerve(['network', 'send', 'review', 'writer', 'again?'], env)
    expect(sent.code).toBe(5) // invalid state
    expect(sent.stdout).toBe('')
    expect(sent.stderr).toMatch(
      /^error: NetworkFinished at \/networkId: network "review" has finished/,
    )
  })

  it('shows the help of a nested command with nerve help', async () => {
    const r = await nerve(['help', 'graph', 'run'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Usage: nerve graph run \[options\] <file>/)
  })

  it('says a replay matched its recording, and names a skipped step as skipped', async () => {
    const rec = join(dir, 'run.rec.json')
    expect((await nerve(['graph', 'run', FAN_OUT, '--record', rec, '--json'], env)).code).toBe(0)
    const r = await nerve(['replay', rec], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^replayed fan-out: completed — every step matched the recording$/m)
    expect(r.stdout).toMatch(/^ {2}optional: skipped$/m)
    expect(r.stdout).not.toMatch(/undefined/)
  })

  it('prints node history as lines a person reads: time of day, op, input → answer, whole ms', async () => {
    expect((await nerve(['node', 'create', 'hist', '--kind', 'bash'], env)).code).toBe(0)
    expect((await nerve(['node', 'execute', 'hist', 'echo hi'], env)).code).toBe(0)
    const r = await nerve(['node', 'history', 'hist'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trimEnd()).toMatch(
      /^ {3}1 {2}\d\d:\d\d:\d\d\.\d{3} {2}run {9}echo hi {2}→ hi {2}\(\d+ ms\)$/,
    )
  })

  it('says a worker cannot reach a Redis that refuses, at once', async () => {
    const started = Date.now()
    const r = await nerve(['worker', '--redis', 'redis://127.0.0.1:1', '--queue', 'q'], env)
    expect(Date.now() - started).toBeLessThan(3000)
    expect(r.code).toBe(6) // unavailable
    expect(r.stderr).toMatch(/^error: RedisUnreachable at --redis: .*refused/)
  })
})

describe('server stop', () => {
  it('returns once the daemon process has exited', async () => {
    const h = join(dir, 'stopping')
    const e = { ...env, NERVE_HOME: h }
    const started = await nerve(['server', 'start', '--detach', '--json'], e)
    const { pid } = JSON.parse(started.stdout) as { pid: number }
    const stopped = await nerve(['server', 'stop'], e)
    expect(stopped.code, stopped.stderr).toBe(0)
    expect(stopped.stdout).toBe(`Nerve daemon ${pid} stopped\n`)
    expect(() => process.kill(pid, 0)).toThrow()
    expect(readFileSync(join(h, 'nerve.log'), 'utf8')).not.toMatch(/error/)
  })
})
