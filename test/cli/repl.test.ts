/**
 * The REPL as a person uses it: the built `nerve repl` in a real
 * pseudo-terminal (node-pty), typed into, its screen read back.
 */
import { spawn, type IPty } from 'node-pty'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { createEngine, startServer } from '../../src/server/index.js'
import { bin, testDir } from './run.js'

const dir = testDir('repl')
const historyFile = join(dir, 'history')

/** A REPL in a pseudo-terminal: type lines, wait for what the screen shows next. */
const open = (args: readonly string[]) => {
  const term: IPty = spawn(process.execPath, [bin, ...args], {
    name: 'xterm',
    cols: 160,
    rows: 50,
    cwd: dir,
    env: { ...process.env, HOME: dir, XDG_RUNTIME_DIR: dir, NERVE_REPL_HISTORY: historyFile },
  })
  let out = ''
  let seen = 0
  term.onData((d) => (out += d))
  const exited = new Promise<number>((resolve) =>
    term.onExit(({ exitCode }) => {
      resolve(exitCode)
    }),
  )
  /** Waits until the output after the last match matches `re`; returns what matched. */
  const expectOut = async (re: RegExp, ms = 20_000): Promise<string> => {
    const until = Date.now() + ms
    for (;;) {
      // eslint-disable-next-line no-control-regex -- the terminal's escape codes are what is dropped
      const clean = out.slice(seen).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      const m = re.exec(clean)
      if (m !== null) {
        seen = out.length
        return m[0]
      }
      if (Date.now() > until) throw new Error(`screen never showed ${re}; it shows:\n${clean}`)
      await new Promise((r) => setTimeout(r, 25))
    }
  }
  const type = (s: string): void => {
    term.write(s)
  }
  return { term, expectOut, type, exited }
}

describe('nerve repl', () => {
  it('creates, executes, forks, completes, runs a graph, keeps its history, and quits', async () => {
    writeFileSync(
      join(dir, 'g.json'),
      JSON.stringify({
        id: 'two',
        nodes: { sh: { kind: 'bash' } },
        steps: [
          { id: 'first', node: 'sh', input: 'echo one' },
          { id: 'second', node: 'sh', input: 'echo two', dependsOn: ['first'] },
        ],
      }),
    )
    const r = open(['repl'])
    try {
      await r.expectOut(/nerve> /)
      r.type(':create sh bash\r')
      await r.expectOut(/Created bash node @sh \(\w+\)[\s\S]*nerve> /)
      r.type('@sh echo hi-there\r')
      await r.expectOut(/\nhi-there\r?\n[\s\S]*nerve> /) // the answer, not the echo of the line
      r.type(':fork @sh\r')
      const forked = await r.expectOut(/Forked @sh → @sh_fork_\d{4}/)
      const copy = forked.split('@').at(-1)!
      r.type(':fork @nobody\r')
      await r.expectOut(/Node '@nobody' not found/)
      r.type(`:fork @sh ${copy}\r`)
      await r.expectOut(new RegExp(`Node '@${copy}' already exists`))
      // Tab completes a command, then a node name.
      r.type(':no\t')
      await r.expectOut(/:nodes/)
      r.type('\r')
      await r.expectOut(new RegExp(`@sh\\s+bash[\\s\\S]*@${copy}\\s+bash`))
      r.type('@sh_f\t')
      await r.expectOut(new RegExp(`@${copy}`))
      r.type(' echo from-the-copy\r')
      await r.expectOut(/\nfrom-the-copy\r?\n[\s\S]*nerve> /)
      r.type(':history @sh\r')
      await r.expectOut(/echo hi-there/)
      r.type(':graph run\r')
      await r.expectOut(/No graph loaded/)
      r.type(':graph load g.json\r')
      await r.expectOut(/Loaded graph 'two'/)
      r.type(':graph show\r')
      await r.expectOut(/second\s+\(bash sh\) ← first/)
      r.type(':graph run\r')
      await r.expectOut(/run \S+ completed/)
      r.type(':bogus\r')
      await r.expectOut(/Unknown command :bogus/)
      r.type('@ghost hello\r')
      await r.expectOut(/error: UnknownNode/)
      r.type(':quit\r')
      expect(await r.exited).toBe(0)
    } finally {
      r.term.kill()
    }
    const saved = readFileSync(historyFile, 'utf8').split('\n')
    expect(saved).toContain(':create sh bash')
    expect(saved).toContain('@sh echo hi-there')
  }, 120_000)

  it('recalls the lines of an earlier session with the up arrow', async () => {
    const r = open(['repl'])
    try {
      await r.expectOut(/nerve> /)
      r.type('\x1b[A')
      await r.expectOut(/:quit/)
      r.type('\x1b[A')
      await r.expectOut(/@ghost hello/)
      r.type('\x15:quit\r') // Ctrl-U clears the line first
      expect(await r.exited).toBe(0)
    } finally {
      r.term.kill()
    }
  }, 60_000)
})

describe('nerve server repl', () => {
  it("works on the daemon's session, which other clients see", async () => {
    const socket = join(dir, 'd.sock')
    const server = await startServer({
      engine: createEngine({ history: false }),
      socket,
      pidFile: false,
    })
    const r = open(['server', 'repl', '--socket', socket])
    try {
      await r.expectOut(/nerve> /)
      r.type(':create remote bash\r')
      await r.expectOut(/Created bash node @remote/)
      const sdk = await NerveClient.connect(socket)
      try {
        expect((await sdk.listNodes()).map((n) => n.id)).toEqual(['remote'])
      } finally {
        await sdk.close()
      }
      r.type('\x04') // Ctrl-D leaves too
      expect(await r.exited).toBe(0)
    } finally {
      r.term.kill()
      await server.close()
    }
  }, 60_000)
})
