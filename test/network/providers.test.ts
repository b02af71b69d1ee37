import { chmodSync, copyFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  addNode,
  connect,
  findExecutable,
  MissingBinary,
  network,
  removeNode,
  runCommand,
  startNetwork,
} from 'nerve-agents'

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
      const net = pipe(
        network('cli'),
        addNode({ id: 'agent', provider: { type: 'cli', agent: `${name}-cli` } }),
        addNode({ id: 'sink', provider: { type: 'mock', script: ['DONE'] } }),
        connect('agent', 'sink', { direction: 'one-way' }),
      )
      const run = await startNetwork(net, { root: tmpdir() })
      expect(run.session.state('agent')).toBe('created')
      run.send('agent', 'hello there')
      await run.idle()
      // The session started the terminal the firing wrote to, and says so.
      expect(run.session.state('agent')).toBe('ready')
      const out = await run.stop()
      expect(run.session.state('agent')).toBe('stopped')
      const handoff = out.log.envelopes().find((e) => e.fromNodeId === 'agent')
      expect(handoff?.payload.message).toBe('You said: [message from user] hello there')
      expect(out.done).toEqual(['sink'])
    },
  )

  it('stop the terminal of a CLI agent node removed from the running network', async () => {
    const net = pipe(
      network('cli'),
      addNode({ id: 'agent', provider: { type: 'cli', agent: 'claude-cli' } }),
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

  it('run commands in the workspace and answer their exit code and output', async () => {
    expect(await runCommand('echo out; echo err >&2; exit 3', tmpdir())).toEqual({
      exitCode: 3,
      output: 'out\nerr\n',
    })
  })
})
