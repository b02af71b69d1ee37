import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { codexEnv, prepareCodexHome } from '../../../src/interpreters/index.js'
import { cliRoot, openCli, processesWith, scriptedModel } from './realCli.js'

// Removed after the test: the daemon copies Codex's binary (about 400 MB) into the home.
const { root, work } = cliRoot('codex-daemon')

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
  const model = await scriptedModel()
  await prepareCodexHome({
    home,
    projects: [work],
    baseUrl: model.proxy.baseUrl('codex'),
    model: 'gpt-5',
    daemon: true,
  })
  const codex = openCli('codex', 'codex', {
    root,
    work,
    env: codexEnv({ home, proxyKey: model.proxy.key('codex') }),
    timeoutMs: 45_000,
  })
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
