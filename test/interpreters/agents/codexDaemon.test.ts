import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { codexBinary, codexEnv, openPty, prepareCodexHome, pty } from '../../../src/index.js'
import { processesWith, scriptedModel } from './realCli.js'

const root = mkdtempSync(join(tmpdir(), 'nerve-codex-daemon-'))
afterAll(() => {
  // The daemon copied Codex's binary (about 400 MB) into the home.
  rmSync(root, { recursive: true, force: true })
})

/** The pids of `codex app-server` processes started from `home`, each the leader of its own session. */
const appServers = (home: string): number[] =>
  processesWith(`CODEX_HOME=${home}`).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('app-server')
    } catch {
      return false
    }
  })

it('ends the app-server daemon Codex starts in a session of its own when the node stops', async () => {
  const home = join(root, 'codex-home')
  const work = join(root, 'work')
  mkdirSync(work)
  const model = await scriptedModel()
  await prepareCodexHome({
    home,
    projects: [work],
    baseUrl: model.proxy.baseUrl('codex'),
    model: 'gpt-5',
    daemon: true,
  })
  const codex = openPty(
    pty('codex', {
      command: codexBinary(),
      cwd: work,
      // A HOME of its own: login shells Codex starts read no profile of the machine's.
      env: { ...codexEnv({ home }), HOME: root },
      parser: 'codex',
      cols: 100,
      rows: 30,
      timeoutMs: 45_000,
    }),
  )
  try {
    await codex.start()
    model.push({ text: 'Served.' })
    expect((await codex.execute('hello')).text).toBe('Served.')
    const daemons = appServers(home)
    expect(daemons.length).toBeGreaterThan(0)
    await codex.stop()
    expect(processesWith(`CODEX_HOME=${home}`)).toEqual([])
  } finally {
    await codex.stop()
    await model.proxy.close()
  }
}, 90_000)
