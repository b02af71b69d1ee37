import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addNode, network, removeNode, startNetwork } from 'nerve-agents'
import { findExecutable, MissingBinary, runCommand } from 'nerve-agents/network'
import { cliHandoff } from './cliHandoff.js'

const fakes = ['claude'] as const
const bin = mkdtempSync(join(tmpdir(), 'nerve-fake-bin-'))
let path: string | undefined

beforeAll(() => {
  for (const name of fakes) {
    copyFileSync(
      fileURLToPath(new URL(`../fake-${name}/${name}`, import.meta.url)),
      join(bin, name),
    )
    chmodSync(join(bin, name), 0o755)
  }
  path = process.env.PATH
  process.env.PATH = `${bin}:${path ?? ''}`
})
afterAll(() => {
  process.env.PATH = path
})

describe('network providers', () => {
  it.each(fakes)(
    'drive %s-cli through a terminal node with its parser (a fake on PATH)',
    async (name) => {
      expect(await findExecutable(name)).toBe(join(bin, name))
      const provider = { type: 'cli', agent: `${name}-cli`, command: name } as const
      expect((await cliHandoff(provider, tmpdir(), 'hello there')).message).toBe(
        'You said: [message from user] hello there',
      )
    },
  )

  it('stop the terminal of a CLI agent node removed from the running network', async () => {
    const net = pipe(
      network('cli'),
      addNode({ id: 'agent', provider: { type: 'cli', agent: 'claude-cli', command: 'claude' } }),
    )
    const run = await startNetwork(net, { root: tmpdir() })
    run.send('agent', 'hello there')
    await run.idle()
    const events = run.session.events()
    run.edit(removeNode('agent'))
    const seen: string[] = []
    for await (const e of events) {
      if (e.type !== 'lagged' && e.name === 'agent') seen.push(e.type)
      if (seen.includes('stopped')) break
    }
    expect(seen).toEqual(['removed', 'stopped'])
    await run.stop()
  })

  it('fail at start with MissingBinary when a CLI agent is not installed', async () => {
    const net = pipe(
      network('cli'),
      addNode({
        id: 'codex',
        provider: { type: 'cli', agent: 'codex-cli', command: 'nerve-no-such-codex' },
      }),
    )
    const started = startNetwork(net, { root: tmpdir() })
    await expect(started).rejects.toBeInstanceOf(MissingBinary)
    await expect(started).rejects.toThrow(
      /node "codex" runs codex-cli, but "nerve-no-such-codex" is not an executable on PATH/,
    )
  })

  it('end the whole process group of a command when its signal aborts (rejecting) or its timeout passes (exit 124)', async () => {
    for (const end of ['abort', 'timeout'] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'nerve-command-'))
      const abort = new AbortController()
      // like `npm test`: a child that is not bash, which a signal to bash alone leaves running
      const running = runCommand(
        'sleep 60 >/dev/null 2>&1 & echo $! > child.pid; wait',
        dir,
        abort.signal,
        end === 'timeout' ? 500 : 60_000,
      )
      const pidFile = join(dir, 'child.pid')
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'))
      const child = Number(readFileSync(pidFile, 'utf8'))
      expect(alive(child)).toBe(true)
      if (end === 'abort') {
        abort.abort(new Error('cancelled'))
        await expect(running).rejects.toThrow('cancelled')
      } else expect((await running).exitCode).toBe(124)
      await until(() => !alive(child))
      expect(alive(child)).toBe(false)
    }
  })

  it("end a verifier's children when its network run is cancelled", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nerve-command-'))
    const net = pipe(
      network('verify'),
      addNode({
        id: 'verifier',
        provider: {
          type: 'command',
          command: 'sleep 60 >/dev/null 2>&1 & echo $! > child.pid; wait',
        },
      }),
    )
    const run = await startNetwork(net, { root: dir })
    run.send('verifier', 'check')
    const pidFile = join(dir, 'child.pid')
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'))
    const child = Number(readFileSync(pidFile, 'utf8'))
    expect(alive(child)).toBe(true)
    run.cancel()
    await run.stop()
    await until(() => !alive(child))
    expect(alive(child)).toBe(false)
  })

  it('run commands in the workspace and answer their exit code and output', async () => {
    expect(await runCommand('echo out; echo err >&2; exit 3', tmpdir())).toEqual({
      exitCode: 3,
      output: 'out\nerr\n',
    })
  })
})

/** Whether `pid` names a live process (a zombie is dead). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/** Resolves once `ok()` holds; gives up after 5 s (the caller's next assertion then says what is wrong). */
const until = async (ok: () => boolean): Promise<void> => {
  const end = Date.now() + 5000
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
}
